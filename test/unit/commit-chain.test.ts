// commitChain writes commits from trees alone (git mktree on the changed paths): the result must be what git
// commit would have made of the same changes, modes and untouched names included.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { commitChain, revertedOn } from '../../src/tools/git.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-chain-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const git = (...args: string[]) => execFileSync('git', ['-c', 'core.quotepath=off', ...args], { cwd: dir, encoding: 'latin1' }).trim();
const env = { GIT_AUTHOR_NAME: 'A U Thor', GIT_AUTHOR_EMAIL: 'a@example.org', GIT_COMMITTER_NAME: 'A U Thor', GIT_COMMITTER_EMAIL: 'a@example.org' };

test('a chain of commits changes, adds and deletes files; every other entry of every tree stays as it was', async () => {
  git('init', '-q');
  fs.mkdirSync(path.join(dir, 'drivers/gpio'), { recursive: true });
  fs.mkdirSync(path.join(dir, 'drivers/spi'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'drivers/gpio/gpio-a.c'), 'int a;\n');
  fs.writeFileSync(path.join(dir, 'drivers/spi/spi-b.c'), 'int b;\n');
  fs.writeFileSync(path.join(dir, 'run.sh'), '#!/bin/sh\n', { mode: 0o755 });
  fs.writeFileSync(Buffer.concat([Buffer.from(`${dir}/`), Buffer.from('caf\xe9.txt', 'latin1')]), 'latin-1 name\n');
  git('add', '-A');
  execFileSync('git', ['commit', '-q', '-m', 'base'], { cwd: dir, env: { ...process.env, ...env } });
  const base = git('rev-parse', 'HEAD');
  const ids = await commitChain(dir, base, [
    { changes: [{ file: 'drivers/gpio/gpio-a.c', after: 'int a = 1;\n' }, { file: 'run.sh', after: '#!/bin/sh\nexit 0\n' }], message: 'gpio: a\n\nBody.  \n', env },
    { changes: [{ file: 'drivers/spi/spi-b.c', after: undefined }, { file: 'include/linux/new.h', after: '#define NEW 1\n' }], message: 'spi: drop b\n', env },
  ], dir);
  expect(ids).toHaveLength(2);
  expect(git('show', `${ids[0]}:drivers/gpio/gpio-a.c`)).toBe('int a = 1;');
  expect(git('log', '-1', '--format=%B', ids[0]!)).toBe('gpio: a\n\nBody.');
  expect(git('rev-parse', `${ids[1]}^`)).toBe(ids[0]);
  expect(git('ls-tree', '-r', ids[1]!).split('\n').map((l) => l.replace(/ [0-9a-f]{40}\t/, ' '))).toEqual([
    '100644 blob caf\xe9.txt',
    '100644 blob drivers/gpio/gpio-a.c',
    '100644 blob include/linux/new.h',
    '100755 blob run.sh',
  ]);
  // The folder whose last file went is gone; git fsck finds every object well formed.
  expect(git('ls-tree', ids[1]!, 'drivers/')).not.toContain('spi');
  git('fsck', '--strict', '--no-dangling');
  expect(git('status', '--porcelain')).toBe('');
  // The same changes through git's own index give the same tree, to the byte.
  fs.writeFileSync(path.join(dir, 'drivers/gpio/gpio-a.c'), 'int a = 1;\n');
  fs.writeFileSync(path.join(dir, 'run.sh'), '#!/bin/sh\nexit 0\n');
  fs.rmSync(path.join(dir, 'drivers/spi'), { recursive: true });
  fs.mkdirSync(path.join(dir, 'include/linux'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'include/linux/new.h'), '#define NEW 1\n');
  git('add', '-A');
  expect(git('write-tree')).toBe(git('rev-parse', `${ids[1]}^{tree}`));
});

test("revertedOn takes one commit's change out of a later tip, in an index of its own; a change later commits build on is refused", async () => {
  const base = git('rev-parse', 'HEAD');
  const [fix, test2, later] = await commitChain(dir, base, [
    { changes: [{ file: 'fix.c', after: 'int fixed;\n' }], message: 'x: Fix\n', env },
    { changes: [{ file: 'test.c', after: 'int test;\n' }], message: 'x: Test\n', env },
    { changes: [{ file: 'fix.c', after: 'int fixed;\nint more;\n' }], message: 'x: More\n', env },
  ], dir);
  const index = git('rev-parse', '--git-path', 'index');
  const before = fs.existsSync(path.join(dir, index)) ? fs.readFileSync(path.join(dir, index)) : undefined;
  const without = await revertedOn(dir, fix!, test2!, dir);
  expect(git('rev-parse', `${without}^`)).toBe(test2);
  expect(git('ls-tree', '--name-only', without!)).not.toContain('fix.c');
  expect(git('show', `${without}:test.c`)).toBe('int test;');
  expect(git('log', '-1', '--format=%s', without!)).toBe('Revert "x: Fix"');
  // A later commit changed what the fix added: its diff no longer reverses cleanly.
  expect(await revertedOn(dir, fix!, later!, dir)).toBeUndefined();
  // The repository's own index is untouched.
  expect(fs.existsSync(path.join(dir, index)) ? fs.readFileSync(path.join(dir, index)) : undefined).toEqual(before);
});
