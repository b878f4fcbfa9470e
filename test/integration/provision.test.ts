// Provisioning the real tree: Debian's tarball → a git tree with one base commit and a version tag, cached.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, test } from 'vitest';
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

test('provisioning from the Debian tarball into an empty cache is deterministic, and reuses the cache after', async () => {
  const cache = tmp('kseries-cache-');
  const cwd = tmp('kseries-cwd-');
  const env = { ...process.env, KSERIES_CACHE: cache };
  const first = await provisionTree({ cwd, env });
  expect(first.how).toBe('debian-tarball');
  expect(fs.realpathSync(path.join(cwd, 'kernel-tree'))).toBe(first.tree.root);
  const cached = await provisionedTree();
  // Same tarball, same identity and date: the same base commit as the cache the other tests use.
  expect(git(first.tree.root, 'rev-parse', 'HEAD')).toBe(git(cached.root, 'rev-parse', 'master'));
  expect((await provisionTree({ cwd, env })).how).toBe('existing');
  expect((await provisionTree({ cwd: tmp('kseries-cwd-'), env })).how).toBe('cache');
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
