// kbuild-cc, the CC of kseries' makes: a question Kbuild asks the compiler about itself is answered by the compiler
// once and from the cache after (the output file's name aside, which try-run makes new each time); a compile that
// writes a dependency file always reaches the compiler; stdin is part of the question; a read-only cache still answers.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from 'vitest';
import { withoutHelper } from '../../src/tools/make.js';
import { probeAnswering } from '../../src/tools/probe-cache.js';

test('a question is asked of the compiler once; a compile with a dependency file every time', async () => {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-probes-'));
  // A stand-in compiler that counts its calls, answers on stdout and stderr, writes its -o file and fails on -mbad.
  const log = path.join(home, 'calls');
  const cc = path.join(home, 'fakecc');
  fs.writeFileSync(cc, `#!/bin/sh\necho "$*" >> ${log}\nin=$(cat)\necho "out $* $in"; echo "err" >&2\nprev=; for a do [ "$prev" = -o ] && [ "$a" != /dev/null ] && echo obj > "$a"; prev=$a; done\ncase "$*" in *-mbad*) exit 1 ;; esac\n`);
  fs.chmodSync(cc, 0o755);
  const env = { ...process.env, KSERIES_CACHE: home };
  const answering = (await probeAnswering(cc, env))!;
  expect(answering).toBeDefined();
  // One path whatever the helper's version (it is CC in every object's command line); made again when its source is
  // not the one its digest names.
  expect(answering.cc).toBe(path.join(home, 'bin', 'kbuild-cc'));
  const digest = fs.readFileSync(`${answering.cc}.digest`, 'utf8');
  fs.writeFileSync(`${answering.cc}.digest`, 'an older source');
  expect((await probeAnswering(cc, env))!.cc).toBe(answering.cc);
  expect(fs.readFileSync(`${answering.cc}.digest`, 'utf8')).toBe(digest);
  const calls = () => fs.readFileSync(log, 'utf8').trim().split('\n').length;
  const ask = (args: string[], input = '') => {
    try {
      return { code: 0, out: execFileSync(answering.cc, args, { cwd: home, env: { ...env, ...answering.env }, input, stdio: ['pipe', 'pipe', 'pipe'] }).toString() };
    } catch (e) {
      return { code: (e as { status: number }).status, out: String((e as { stdout: Buffer }).stdout) };
    }
  };
  fs.mkdirSync(path.join(home, '.tmp_1'));
  fs.mkdirSync(path.join(home, '.tmp_2'));
  const first = ask(['-Werror', '-mfoo', '-c', '-x', 'c', '/dev/null', '-o', '.tmp_1/tmp']);
  const again = ask(['-Werror', '-mfoo', '-c', '-x', 'c', '/dev/null', '-o', '.tmp_2/tmp']);
  expect(again).toEqual(first);
  expect(calls()).toBe(1);
  expect(fs.readFileSync(path.join(home, '.tmp_2/tmp'), 'utf8')).toBe('obj\n');
  // A failing option stays failing.
  expect(ask(['-mbad', '-c', '-x', 'c', '/dev/null', '-o', '/dev/null']).code).toBe(1);
  expect(ask(['-mbad', '-c', '-x', 'c', '/dev/null', '-o', '/dev/null']).code).toBe(1);
  expect(calls()).toBe(2);
  // What the compiler reads on stdin is part of the question.
  expect(ask(['-E', '-x', 'c', '-'], 'int a;').out).toContain('int a;');
  expect(ask(['-E', '-x', 'c', '-'], 'int b;').out).toContain('int b;');
  expect(ask(['-E', '-x', 'c', '-'], 'int a;').out).toContain('int a;');
  expect(calls()).toBe(4);
  // A real compile: every time.
  ask(['-Wp,-MMD,lib/.x.o.d', '-c', '-o', 'x.o', 'x.c']);
  ask(['-Wp,-MMD,lib/.x.o.d', '-c', '-o', 'x.o', 'x.c']);
  expect(calls()).toBe(6);
  // Read-only (a sandboxed build's): what is kept is still answered, the rest asked of the compiler.
  fs.chmodSync(answering.env.KSERIES_CC_PROBES!, 0o555);
  if (process.getuid?.() !== 0) {
    ask(['-Werror', '-mfoo', '-c', '-x', 'c', '/dev/null', '-o', '.tmp_1/tmp']);
    ask(['--version']);
    expect(calls()).toBe(7);
  }
  fs.chmodSync(answering.env.KSERIES_CC_PROBES!, 0o755);
  fs.rmSync(home, { recursive: true, force: true });
});

test('KSERIES_PROBE_CACHE=0 leaves CC as it was', async () => {
  expect(await probeAnswering('gcc', { ...process.env, KSERIES_PROBE_CACHE: '0' })).toBeUndefined();
});

test('a recorded make as a user would type it: CC the compiler itself, none of the helper\'s settings', () => {
  const call = { program: 'make', args: ['-C', '/src', 'O=/b', 'CC=/cache/bin/kbuild-cc-1', 'HOSTCC=gcc', 'vmlinux'], cwd: '/src', env: { CCACHE_DIR: '/c', KSERIES_CC: 'ccache gcc', KSERIES_CC_PROBES: '/p', KSERIES_CC_ID: 'x' } };
  expect(withoutHelper(call)).toEqual({ ...call, args: ['-C', '/src', 'O=/b', 'CC=ccache gcc', 'HOSTCC=gcc', 'vmlinux'], env: { CCACHE_DIR: '/c' } });
  const plain = { program: 'make', args: ['defconfig'], cwd: '/src' };
  expect(withoutHelper(plain)).toBe(plain);
});
