// Which path compiles, and what the report calls it: plain gcc, ccache, distcc, or ccache handing its misses to distcc.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { KernelBuild } from '../../src/build/builder.js';
import { compilerPath } from '../../src/build/compiler.js';
import type { KernelTree } from '../../src/tree/tree.js';

const env = { PATH: '/usr/bin', CCACHE_DIR: '/var/cache/ccache', DISTCC_HOSTS: 'build1/8', HOME: '/root' };

test.each([
  [{ ccache: false, distcc: false }, { name: 'gcc' }],
  [{ ccache: true, distcc: false }, { name: 'ccache gcc', cc: 'ccache gcc', env: { CCACHE_DIR: '/var/cache/ccache', CCACHE_DEPEND: '1', DISTCC_HOSTS: 'build1/8' } }],
  [{ ccache: false, distcc: true }, { name: 'distcc gcc', cc: 'distcc gcc', env: { CCACHE_DIR: '/var/cache/ccache', DISTCC_HOSTS: 'build1/8' } }],
  [
    { ccache: true, distcc: true },
    { name: 'ccache + distcc gcc', cc: 'ccache gcc', env: { CCACHE_DIR: '/var/cache/ccache', CCACHE_DEPEND: '1', DISTCC_HOSTS: 'build1/8', CCACHE_PREFIX: 'distcc' } },
  ],
])('%j compiles as %j', (use, expected) => {
  expect(compilerPath(use, env)).toEqual(expected);
});

test("without CCACHE_DIR, ccache keeps its cache in kseries' own", () => {
  expect(compilerPath({ ccache: true, distcc: false }, { KSERIES_CACHE: '/c/kseries' }).env).toEqual({ CCACHE_DIR: '/c/kseries/ccache', CCACHE_DEPEND: '1' });
  expect(compilerPath({ ccache: false, distcc: true }, { KSERIES_CACHE: '/c/kseries' }).env).toEqual({});
});

test("ccache's depend mode (no preprocessor run before a compile) unless the environment turns it off", () => {
  expect(compilerPath({ ccache: true, distcc: false }, { CCACHE_NODEPEND: '1' }).env).not.toHaveProperty('CCACHE_DEPEND');
  expect(compilerPath({ ccache: true, distcc: false }, { CCACHE_DEPEND: '0' }).env).toMatchObject({ CCACHE_DEPEND: '0' });
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
