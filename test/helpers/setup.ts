// Hermetic git for every test: no user or system config, a fixed identity.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const home = fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-test-git-'));
const config = path.join(home, 'gitconfig');
fs.writeFileSync(config, '[user]\n\tname = Test Author\n\temail = test.author@example.org\n[init]\n\tdefaultBranch = master\n');
process.env.GIT_CONFIG_GLOBAL = config;
process.env.GIT_CONFIG_NOSYSTEM = '1';
