// Once per test run: provision the real tree (cached) and clone it as "the user's tree" that integration tests share.
// Checking out 86k files costs tens of seconds here, so one clone serves every test file (they run one at a time).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { cacheDir } from '../../src/tree/paths.js';
import { provisionTree } from '../../src/tree/provision.js';

declare module 'vitest' {
  export interface ProvidedContext {
    cloneRoot: string;
  }
}

export default async function setup(project: TestProject): Promise<() => void> {
  const repoRoot = path.resolve(__dirname, '../..');
  const { tree } = await provisionTree({ cwd: repoRoot, log: (l) => console.error(`[tree] ${l}`) });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-linux-'));
  const env = { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' };
  execFileSync('git', ['clone', '-q', '--shared', tree.root, dir], { env });
  const root = fs.realpathSync(dir);
  project.provide('cloneRoot', root);
  // The build and KUnit directories kseries kept for this clone (keyed by its git directory) go with it.
  const treeId = createHash('sha1').update(path.join(root, '.git')).digest('hex').slice(0, 12);
  return () => {
    fs.rmSync(dir, { recursive: true, force: true });
    for (const kept of ['build', 'kunit']) fs.rmSync(path.join(cacheDir(), kept, treeId), { recursive: true, force: true });
  };
}
