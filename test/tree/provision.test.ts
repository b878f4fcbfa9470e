// Provisioning the real tree: Debian's tarball → a git tree with one base commit and a version tag, cached.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { debianTarball } from '../../src/tree/paths.js';
import { provisionTree } from '../../src/tree/provision.js';
import { cli, git, provisionedTree, userTree } from '../helpers/tree.js';

const scratch: string[] = [];
const tmp = (prefix: string) => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  scratch.push(d);
  return d;
};
afterAll(() => scratch.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

test('the provisioned tree has one base commit, a v<version> tag and every file tracked', async () => {
  const tree = await provisionedTree();
  expect(tree.version).toMatch(/^6\.12\.\d+$/);
  expect(git(tree.root, 'rev-list', '--count', 'master').trim()).toBe('1');
  expect(git(tree.root, 'rev-parse', `v${tree.version}^{commit}`)).toBe(git(tree.root, 'rev-parse', 'master'));
  expect(Number(git(tree.root, 'ls-files', '-z').split('\0').length)).toBeGreaterThan(80000);
  expect(git(tree.root, 'ls-files', 'MAINTAINERS', 'scripts/checkpatch.pl', 'mm/memcontrol.c').trim().split('\n')).toHaveLength(3);
  expect(fs.readFileSync(path.join(tree.root, '.gitignore'), 'utf8')).not.toMatch(/^\/\*$/m);
});

/**
 * A tarball laid out as Debian's (`linux-source-6.12/...`) that holds what makes a kernel tree to kseries: the real
 * tarball's .gitignore (with the block that ignores everything at the top level, from the tarball itself), and the
 * tree's Makefile (the version), MAINTAINERS and scripts/checkpatch.pl. The whole 86k-file tarball goes through the
 * same code once, when the first run of a machine provisions the cache (global-setup.ts); the test above checks it.
 */
async function smallDebianTarball(): Promise<string> {
  const dir = tmp('kseries-tarball-');
  const top = path.join(dir, 'linux-source-6.12');
  const real = debianTarball();
  execFileSync('tar', ['-xJf', real, '-C', dir, '--occurrence=1', 'linux-source-6.12/.gitignore']);
  const cached = await provisionedTree();
  for (const f of ['Makefile', 'MAINTAINERS', 'scripts/checkpatch.pl']) {
    fs.mkdirSync(path.dirname(path.join(top, f)), { recursive: true });
    fs.writeFileSync(path.join(top, f), git(cached.root, 'show', `HEAD:${f}`));
  }
  const file = path.join(dir, 'linux-source-6.12.tar.xz');
  execFileSync('tar', ['-cJf', file, '-C', dir, 'linux-source-6.12']);
  fs.utimesSync(file, fs.statSync(real).atime, fs.statSync(real).mtime);
  return file;
}

test('provisioning from a Debian tarball into an empty cache is deterministic, and reuses the cache after', async () => {
  const tarball = await smallDebianTarball();
  const provisioned = async () => {
    const cwd = tmp('kseries-cwd-');
    const env = { ...process.env, KSERIES_CACHE: tmp('kseries-cache-'), KSERIES_LINUX_TARBALL: tarball };
    const p = await provisionTree({ cwd, env });
    expect(p.how).toBe('debian-tarball');
    expect(fs.realpathSync(path.join(cwd, 'kernel-tree'))).toBe(p.tree.root);
    return { ...p, cwd, env };
  };
  const first = await provisioned();
  expect(first.tree.version).toBe((await provisionedTree()).version);
  // The block of Debian's .gitignore that ignores everything at the top level is gone, so the files are tracked.
  expect(git(first.tree.root, 'ls-files').trim().split('\n').sort()).toEqual(['MAINTAINERS', 'Makefile', 'scripts/checkpatch.pl']);
  expect(fs.readFileSync(path.join(first.tree.root, '.gitignore'), 'utf8')).not.toMatch(/^\/\*$/m);
  expect(git(first.tree.root, 'rev-parse', `v${first.tree.version}^{commit}`)).toBe(git(first.tree.root, 'rev-parse', 'master'));
  // Every object is in a pack: no loose objects for a background `git gc` to pack later.
  expect(git(first.tree.root, 'count-objects', '-v')).toMatch(/^count: 0$/m);
  // Same tarball, same identity and date: the same base commit in another empty cache.
  expect(git((await provisioned()).tree.root, 'rev-parse', 'HEAD')).toBe(git(first.tree.root, 'rev-parse', 'HEAD'));
  expect((await provisionTree({ cwd: first.cwd, env: first.env })).how).toBe('existing');
  expect((await provisionTree({ cwd: tmp('kseries-cwd-'), env: first.env })).how).toBe('cache');
  // The base commit names the package the tarball is from: 6.1's given by KSERIES_LINUX_TARBALL is not 6.12's.
  expect(git(first.tree.root, 'log', '-1', '--format=%s').trim()).toBe(`Linux ${first.tree.version} (Debian linux-source-6.12)`);
  const older = path.join(tmp('kseries-tarball-'), 'linux-source-6.1.tar.xz');
  fs.copyFileSync(tarball, older);
  const other = await provisionTree({ cwd: tmp('kseries-cwd-'), env: { ...process.env, KSERIES_CACHE: tmp('kseries-cache-'), KSERIES_LINUX_TARBALL: older } });
  expect(git(other.tree.root, 'log', '-1', '--format=%s').trim()).toBe(`Linux ${other.tree.version} (Debian linux-source-6.1)`);
});

test('tree init --from uses a user tree in place, and tree show reads it', async () => {
  const user = await userTree();
  const cwd = tmp('kseries-cwd-');
  const r = await cli(['tree', 'init', '--from', user.root], { cwd });
  expect(r.code).toBe(0);
  expect(fs.readlinkSync(path.join(cwd, 'kernel-tree'))).toBe(user.root);
  const show = await cli(['tree', 'show', '--json'], { cwd });
  expect(JSON.parse(show.out)).toMatchObject({ root: user.root, version: user.version });
});

test('without tarball or network, tree init says which commands to run', async () => {
  const cwd = tmp('kseries-cwd-');
  const env = { ...process.env, KSERIES_CACHE: tmp('kseries-cache-'), KSERIES_LINUX_TARBALL: '/nonexistent.tar.xz', KSERIES_OFFLINE: '1' };
  const r = await cli(['tree', 'init'], { cwd, env });
  expect(r.code).toBe(2);
  expect(r.err).toMatch(/^kseries: no Linux 6\.12 tree could be provisioned\nhint: run `sudo apt-get install linux-source-6\.12` then `kseries tree init`/);
  expect(fs.existsSync(path.join(cwd, 'kernel-tree'))).toBe(false);
});
