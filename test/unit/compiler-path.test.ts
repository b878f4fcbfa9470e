// Which path compiles, and what the report calls it: plain gcc, ccache, distcc, or ccache handing its misses to distcc.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { afterAll, expect, test } from 'vitest';
import { KernelBuild } from '../../src/build/builder.js';
import { compilerPath, retireDependCache } from '../../src/build/compiler.js';
import { onPath } from '../../src/tools/which.js';
import type { KernelTree } from '../../src/tree/tree.js';

const env = { PATH: '/usr/bin', CCACHE_DIR: '/var/cache/ccache', DISTCC_HOSTS: 'build1/8', HOME: '/root' };

test.each([
  [{ ccache: false, distcc: false }, { name: 'gcc' }],
  [{ ccache: true, distcc: false }, { name: 'ccache gcc', cc: 'ccache gcc', env: { CCACHE_DIR: '/var/cache/ccache', DISTCC_HOSTS: 'build1/8' } }],
  [{ ccache: false, distcc: true }, { name: 'distcc gcc', cc: 'distcc gcc', env: { CCACHE_DIR: '/var/cache/ccache', DISTCC_HOSTS: 'build1/8' } }],
  [
    { ccache: true, distcc: true },
    { name: 'ccache + distcc gcc', cc: 'ccache gcc', env: { CCACHE_DIR: '/var/cache/ccache', DISTCC_HOSTS: 'build1/8', CCACHE_PREFIX: 'distcc' } },
  ],
])('%j compiles as %j', (use, expected) => {
  expect(compilerPath(use, env)).toEqual(expected);
});

test("without CCACHE_DIR, ccache keeps its cache in kseries' own", () => {
  expect(compilerPath({ ccache: true, distcc: false }, { KSERIES_CACHE: '/c/kseries' }).env).toEqual({ CCACHE_DIR: '/c/kseries/ccache-direct' });
  expect(compilerPath({ ccache: false, distcc: true }, { KSERIES_CACHE: '/c/kseries' }).env).toEqual({});
});

test("kseries' builds run ccache in depend mode, kunit.py's in the default mode; the environment's choice wins", () => {
  expect(compilerPath({ ccache: true, distcc: false, depend: true }, {}).env).toMatchObject({ CCACHE_DEPEND: '1' });
  expect(compilerPath({ ccache: true, distcc: false }, {}).env).not.toHaveProperty('CCACHE_DEPEND');
  expect(compilerPath({ ccache: true, distcc: false, depend: true }, { CCACHE_NODEPEND: '1' }).env).not.toHaveProperty('CCACHE_DEPEND');
  expect(compilerPath({ ccache: true, distcc: false }, { CCACHE_DEPEND: '1' }).env).toMatchObject({ CCACHE_DEPEND: '1' });
});

// The bzImage wraps the kernel with .incbin (arch/x86/boot/compressed/piggy.S): depend mode hands back the old object
// when the data changed (why buildImage makes the image with CCACHE_DISABLE), the default mode compiles it again.
test.skipIf(!onPath('ccache'))('an object whose .incbin data changed: old from depend mode, compiled again in the default mode or with ccache disabled', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-incbin-'));
  try {
    const compile = (data: string, out: string, use: { depend?: boolean; disable?: boolean }) => {
      const { env: settings = {} } = compilerPath({ ccache: true, distcc: false, depend: use.depend }, { KSERIES_CACHE: path.join(dir, use.depend ? 'depend' : 'default') });
      fs.writeFileSync(path.join(dir, 'data.bin'), data);
      execFileSync('ccache', ['gcc', '-Wp,-MMD,t.d', '-c', 't.S', '-o', out], { cwd: dir, env: { ...process.env, ...settings, ...(use.disable ? { CCACHE_DISABLE: '1' } : {}) } });
      return fs.readFileSync(path.join(dir, out));
    };
    fs.writeFileSync(path.join(dir, 't.S'), '.section .rodata\n.incbin "data.bin"\n');
    expect(compile('AAAA', 'a.o', {}).equals(compile('BBBB', 'b.o', {}))).toBe(false);
    expect(compile('AAAA', 'c.o', { depend: true }).equals(compile('BBBB', 'd.o', { depend: true }))).toBe(true);
    expect(compile('AAAA', 'e.o', { depend: true, disable: true }).equals(compile('BBBB', 'f.o', { depend: true, disable: true }))).toBe(false);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

// The build finds ccache on the PATH it is given; distcc is asked for (--distcc) or implied by DISTCC_HOSTS.
const bin = fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-bin-'));
fs.writeFileSync(path.join(bin, 'ccache'), '#!/bin/sh\n', { mode: 0o755 });
const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-bin-'));
afterAll(() => [bin, empty].forEach((d) => fs.rmSync(d, { recursive: true, force: true })));
const tree = { root: '/nonexistent', gitCommonDir: '/nonexistent/.git', version: '6.12' } satisfies KernelTree;

test.each([
  [empty, false, {}, 'gcc'],
  [bin, false, {}, 'ccache gcc'],
  [empty, true, {}, 'distcc gcc'],
  [bin, true, {}, 'ccache + distcc gcc'],
  [bin, false, { DISTCC_HOSTS: 'localhost' }, 'ccache + distcc gcc'],
])('PATH=%s --distcc=%s %j: the report says %s', (dir, distcc, more, name) => {
  const build = new KernelBuild(tree, tree.root, { config: 'defconfig', distcc, env: { PATH: dir, KSERIES_CACHE: '/nonexistent/cache', ...more } });
  expect(build.compiler).toBe(name);
});

test('retiring the depend-mode ccache folder also drops the image wrappers built with it, once', () => {
  const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-cache-'));
  try {
    const wrapper = path.join(cache, 'build/shared/minimal-lockdep/arch/x86/boot/compressed/piggy.o');
    const vmlinux = path.join(cache, 'build/shared/minimal-lockdep/vmlinux');
    fs.mkdirSync(path.dirname(wrapper), { recursive: true });
    // Files beside the build directories, as a KUnit run leaves them in build/shared (seen on a 6.1 cache).
    const results = path.join(cache, 'build/shared/minimal-lockdep.base.results.json');
    [wrapper, vmlinux, results].forEach((f) => fs.writeFileSync(f, 'x'));
    retireDependCache({ KSERIES_CACHE: cache });
    expect([fs.existsSync(wrapper), fs.existsSync(vmlinux)]).toEqual([true, true]);
    fs.mkdirSync(path.join(cache, 'ccache'));
    retireDependCache({ KSERIES_CACHE: cache });
    expect([fs.existsSync(wrapper), fs.existsSync(vmlinux), fs.existsSync(path.join(cache, 'ccache'))]).toEqual([false, true, false]);
  } finally {
    fs.rmSync(cache, { recursive: true, force: true });
  }
});
