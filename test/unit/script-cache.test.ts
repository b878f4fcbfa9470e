// The tree's checkpatch.pl and get_maintainer.pl are asked once per question: the same patch against the same tree
// (the same commit, the same script and the files it reads) is answered from kseries' cache; a new patch, another
// commit or an edited spelling list asks perl again; a patch applied again (another commit id in its From line) is the
// same question; KSERIES_SCRIPT_CACHE=0 asks every time.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { runCheckpatch, runGetMaintainer } from '../../src/tools/kernel-scripts.js';

let saved: NodeJS.ProcessEnv;
beforeEach(() => {
  saved = { ...process.env };
});
afterEach(() => {
  process.env = saved;
});

test('checkpatch.pl and get_maintainer.pl answer a question once', async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-scripts-'));
  process.env.KSERIES_CACHE = path.join(root, 'cache');
  const tree = path.join(root, 'tree');
  const log = path.join(root, 'calls');
  fs.mkdirSync(path.join(tree, 'scripts'), { recursive: true });
  // Stand-ins that count their calls and answer as the real ones do.
  fs.writeFileSync(path.join(tree, 'scripts', 'checkpatch.pl'), `open(my $l, '>>', '${log}'); print $l "checkpatch\\n"; my $n = () = <STDIN>; print "-:1: WARNING:TEST: read $n lines\\n"; exit 1;\n`);
  fs.writeFileSync(path.join(tree, 'scripts', 'get_maintainer.pl'), `open(my $l, '>>', '${log}'); print $l "get_maintainer\\n"; print "A Maintainer <a\\@kernel.org> (maintainer:THING)\\n";\n`);
  fs.writeFileSync(path.join(tree, 'scripts', 'spelling.txt'), 'teh||the\n');
  fs.writeFileSync(path.join(tree, 'MAINTAINERS'), 'THING\nM:\tA Maintainer <a@kernel.org>\nF:\tlib/\n');
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=k', '-c', 'user.email=k@example.org', ...args], { cwd: tree, stdio: 'pipe' });
  git('init', '-q');
  git('add', '.');
  git('commit', '-q', '-m', 'base');
  const calls = () => fs.readFileSync(log, 'utf8').trim().split('\n').length;
  const patch = (commit: string, date = 'Sun, 6 Dec 2026 10:00:00 +0000', body = '') => `From ${commit} Mon Sep 17 00:00:00 2001\nFrom: k <k@example.org>\nDate: ${date}\nSubject: [PATCH] lib: x\n\n${body}---\n`;

  const first = await runCheckpatch(tree, patch('a'.repeat(40)));
  expect(first.warnings).toBe(1);
  expect(calls()).toBe(1);
  // Committed again: another commit and date, the same text.
  expect(await runCheckpatch(tree, patch('b'.repeat(40), 'Mon, 7 Dec 2026 11:00:00 +0000'))).toEqual(first);
  expect(calls()).toBe(1);
  // A "Date:" line of the message is the message's, not a header.
  await runCheckpatch(tree, patch('a'.repeat(40), undefined, 'Date: teh day\n\n'));
  await runCheckpatch(tree, patch('a'.repeat(40), undefined, 'Date: the day\n\n'));
  expect(calls()).toBe(3);
  await runCheckpatch(tree, `${patch('a'.repeat(40))}more\n`);
  expect(calls()).toBe(4);
  // What the script reads besides the patch is part of the question.
  fs.writeFileSync(path.join(tree, 'scripts', 'spelling.txt'), 'teh||the\nrecieve||receive\n');
  await runCheckpatch(tree, patch('a'.repeat(40)));
  expect(calls()).toBe(5);

  // A patch by its temporary file's name: the text is the question, not the name.
  const file = (name: string) => {
    const f = path.join(root, name);
    fs.writeFileSync(f, patch('c'.repeat(40)));
    return f;
  };
  const named = await runGetMaintainer(tree, file('one.patch'), { useGit: false });
  expect(named.to).toEqual(['A Maintainer <a@kernel.org>']);
  expect(await runGetMaintainer(tree, file('two.patch'), { useGit: false })).toEqual(named);
  expect(calls()).toBe(6);
  // Another commit of the tree asks again.
  fs.writeFileSync(path.join(tree, 'README'), 'x\n');
  git('add', 'README');
  git('commit', '-q', '-m', 'more');
  await runGetMaintainer(tree, file('three.patch'), { useGit: false });
  expect(calls()).toBe(7);

  process.env.KSERIES_SCRIPT_CACHE = '0';
  await runCheckpatch(tree, patch('a'.repeat(40)));
  expect(calls()).toBe(8);
});
