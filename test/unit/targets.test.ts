// The machines a patch's objects are built for: which cross compiler, which defconfig, and why none where none is.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { KernelBuild } from '../../src/build/builder.js';
import { archOfPath, installedCross, targetFor, targetNamed } from '../../src/build/targets.js';
import type { KernelTree } from '../../src/tree/tree.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-targets-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A PATH holding only the named programs (empty scripts). */
function pathWith(...programs: string[]): NodeJS.ProcessEnv {
  const bin = fs.mkdtempSync(path.join(dir, 'bin-'));
  for (const p of programs) fs.writeFileSync(path.join(bin, p), '#!/bin/sh\n', { mode: 0o755 });
  return { PATH: bin, KSERIES_CACHE: path.join(dir, 'cache') };
}

test('a file under arch/<a>/ names its architecture folder', () => {
  expect(archOfPath('arch/riscv/kernel/setup.c')).toBe('riscv');
  expect(archOfPath('drivers/net/ethernet/toshiba/ps3_gelic_net.c')).toBeUndefined();
});

test('a cross compiler on PATH is a target; a missing one says which package builds for it', () => {
  const env = pathWith('aarch64-linux-gnu-gcc', 'powerpc64-linux-gnu-gcc');
  expect(targetFor('arm64', env)).toEqual({ arch: 'arm64', prefix: 'aarch64-linux-gnu-' });
  expect(targetFor('sparc', env)).toEqual({ missing: 'no sparc cross compiler is installed (apt-get install gcc-sparc64-linux-gnu)' });
  expect(targetFor('nios2', env)).toEqual({ missing: 'kseries knows no cross compiler for nios2' });
  expect(targetNamed('x86', env)).toEqual({ arch: 'x86_64' });
  expect(installedCross(env)).toEqual(['arm64', 'powerpc']);
});

test('powerpc builds big-endian ppc64_defconfig, as its compiler and PS3 need, in a directory of its own', () => {
  const env = pathWith('powerpc64-linux-gnu-gcc');
  const target = targetFor('powerpc', env);
  expect(target).toEqual({ arch: 'powerpc', prefix: 'powerpc64-linux-gnu-', defconfig: 'ppc64_defconfig' });
  const tree = { gitCommonDir: path.join(dir, 'linux/.git') } as KernelTree;
  const build = new KernelBuild(tree, path.join(dir, 'linux'), { config: 'defconfig', distcc: false, target: target as { arch: string }, env });
  expect(path.basename(build.buildDir)).toBe('ppc64_defconfig-powerpc');
  expect(build.baseName).toBe('powerpc ppc64_defconfig');
  const arm64 = new KernelBuild(tree, path.join(dir, 'linux'), { config: 'defconfig', distcc: false, target: { arch: 'arm64', prefix: 'aarch64-linux-gnu-' }, env });
  expect(path.basename(arm64.buildDir)).toBe('defconfig-arm64');
});
