// The build plan (each build a run needs, merged by folder), the ledger of what builds took here, and the cache's
// folders with their pruning: on a cache folder of our own, no kernel built.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, test } from 'vitest';
import '../../src/recipes/registry.js';
import { cacheFolders, pruneBuildFolders } from '../../src/build/cache-folders.js';
import { buildTimes, ledgered, recordRun, runTimes } from '../../src/build/ledger.js';
import { formatPlan, planBuilds, type PlannedSeries } from '../../src/plan/builds.js';
import type { KernelTree } from '../../src/tree/tree.js';

const made: string[] = [];
afterEach(() => made.splice(0).forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

function scratchCache(): NodeJS.ProcessEnv {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-plan-'));
  made.push(dir);
  // No ccache, clang or cross compiler on this PATH: the plan names what this machine lacks, not what it has.
  return { KSERIES_CACHE: dir, PATH: '/nonexistent' };
}

const tree = { root: '/nowhere', gitCommonDir: '/nowhere/.git', version: '6.12.118' } as KernelTree;
const kunit = { config: ['CONFIG_KUNIT=y', 'CONFIG_KPROBES=y'], kprobeCensus: true, show: [] };

function series(env: NodeJS.ProcessEnv, name: string, more: Partial<PlannedSeries> = {}): PlannedSeries {
  return { tree, series: name, recipe: name, config: 'defconfig', build: true, boot: 'minimal', env, ...more };
}

test('two series with the same kunitconfig share one KUnit kernel; measure and the lockdep boots share the boot kernel', async () => {
  const env = scratchCache();
  const plan = await planBuilds([
    series(env, 'kprobe-cold', { kunit: { ...kunit, without: 'the fix' } }),
    series(env, 'kprobe-post', { kunit }),
    series(env, 'static-keys', { measure: { config: 'minimal', candidates: 'auto' } }),
  ]);
  const kernels = plan.builds.filter((b) => b.kind === 'kernel');
  expect(kernels.map((k) => k.name)).toEqual(['KUnit kernel', 'boot kernel']);
  expect(kernels[0]!.why).toEqual(['kprobe-cold: KUnit on the base and the series, and the series without its fix', 'kprobe-post: KUnit on the base and the series']);
  expect(kernels[1]!.why).toEqual(["static-keys: how often each candidate's test runs, measured in the booted kernel", 'static-keys: the series booted under lockdep, its writers run']);
  expect(kernels.every((k) => k.holds.state === 'nothing' && k.objects === undefined)).toBe(true);
  // Without clang here, the objects of every series are built by gcc for x86-64 in one configuration's folders, and
  // on i386 where a patch's lines depend on a symbol flipped there (the other side).
  const objects = plan.builds.filter((b) => b.kind === 'objects');
  expect(objects.map((o) => o.name)).toEqual(['x86_64 defconfig objects', 'i386 defconfig objects (the other side)']);
  expect(objects[0]!.why).toHaveLength(3);
  expect(formatPlan(plan).join('\n')).toContain('    for kprobe-cold, kprobe-post, static-keys: each patch\'s objects, built in order');
});

test('--no-build plans nothing; a check without a kunitconfig or a static key builds no kernel', async () => {
  const env = scratchCache();
  expect((await planBuilds([series(env, 'cocci', { build: false })])).builds).toEqual([]);
  expect((await planBuilds([series(env, 'cocci')])).builds.map((b) => b.kind)).toEqual(['objects', 'objects']);
  // --no-sides and machines named without i386 plan no other side.
  expect((await planBuilds([series(env, 'cocci', { noSides: true })])).builds.map((b) => b.name)).toEqual(['x86_64 defconfig objects']);
  expect((await planBuilds([series(env, 'cocci', { arches: ['x86_64'] })])).builds.map((b) => b.name)).toEqual(['x86_64 defconfig objects']);
});

test('the ledger keeps the last cold and warm build of a folder, and of a whole run', async () => {
  const env = scratchCache();
  const dir = path.join(env.KSERIES_CACHE!, 'build', 'shared', 'kunit.py+0123456789');
  const write = (n: number) => {
    for (let i = 0; i < n; i++) {
      fs.mkdirSync(path.join(dir, 'lib'), { recursive: true });
      fs.writeFileSync(path.join(dir, 'lib', `f${i}.o`), '');
    }
  };
  await ledgered(dir, env, async () => write(10));
  expect(buildTimes(dir, env)).toMatchObject({ cold: { compiled: 10, objects: 10 } });
  expect(buildTimes(dir, env).warm).toBeUndefined();
  // Two of ten objects again: warm, and the cold record stays.
  await new Promise((r) => setTimeout(r, 1100));
  await ledgered(dir, env, async () => write(2));
  expect(buildTimes(dir, env)).toMatchObject({ cold: { compiled: 10 }, warm: { compiled: 2, objects: 10 } });
  recordRun('start', 1234.56, 'cold', env);
  expect(runTimes('start', env)).toMatchObject({ cold: { seconds: 1234.6 } });
});

test('a whole folder compiled again from ccache (its misses counted before and after) is a warm build', async () => {
  const env = scratchCache();
  const dir = path.join(env.KSERIES_CACHE!, 'build', 'shared', 'minimal-lockdep');
  // A stand-in ccache whose --print-stats reports the misses written in its folder.
  const bin = path.join(env.KSERIES_CACHE!, 'bin');
  const ccacheDir = path.join(env.KSERIES_CACHE!, 'ccache');
  fs.mkdirSync(bin);
  fs.mkdirSync(ccacheDir);
  fs.writeFileSync(path.join(bin, 'ccache'), '#!/bin/sh\nprintf "cache_hit\\t0\\ncache_miss\\t%s\\n" "$(cat "$CCACHE_DIR/misses")"\n');
  fs.chmodSync(path.join(bin, 'ccache'), 0o755);
  const misses = (n: number) => fs.writeFileSync(path.join(ccacheDir, 'misses'), String(n));
  const saved = process.env.PATH;
  process.env.PATH = `${bin}:${saved}`;
  try {
    const build = (missed: number) => async () => {
      fs.rmSync(dir, { recursive: true, force: true });
      fs.mkdirSync(dir, { recursive: true });
      for (let i = 0; i < 10; i++) fs.writeFileSync(path.join(dir, `f${i}.o`), '');
      misses(missed);
    };
    misses(100);
    await ledgered(dir, env, build(101), ccacheDir);
    expect(buildTimes(dir, env)).toMatchObject({ warm: { compiled: 10, objects: 10 } });
    expect(buildTimes(dir, env).cold).toBeUndefined();
    await ledgered(dir, env, build(110), ccacheDir);
    expect(buildTimes(dir, env)).toMatchObject({ cold: { compiled: 10, objects: 10 } });
  } finally {
    process.env.PATH = saved;
  }
});

test('cache lists build folders by configuration, used last first; --prune keeps that many of each', async () => {
  const env = scratchCache();
  const root = env.KSERIES_CACHE!;
  const folder = (rel: string, age: number) => {
    const dir = path.join(root, rel);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, '.config'), 'CONFIG_64BIT=y\n');
    const t = new Date(Date.now() - age * 60_000);
    fs.utimesSync(path.join(dir, '.config'), t, t);
    fs.utimesSync(dir, t, t);
  };
  folder('build/abc/defconfig', 50);
  folder('build/abc/defconfig+1111111111', 10);
  folder('build/abc/defconfig+2222222222', 30);
  folder('build/shared/kunit.py+3333333333', 5);
  folder('build/shared/kunit.py+4444444444', 1);
  fs.writeFileSync(path.join(root, 'build/shared/kunit.py+3333333333.kunitconfig'), 'CONFIG_KUNIT=y\n');
  folder('sources/kunit', 1);
  const folders = await cacheFolders(env);
  expect(folders.filter((f) => f.kind === 'build').map((f) => path.relative(root, f.path))).toEqual([
    'build/abc/defconfig+1111111111',
    'build/abc/defconfig+2222222222',
    'build/abc/defconfig',
    'build/shared/kunit.py+4444444444',
    'build/shared/kunit.py+3333333333',
  ]);
  expect(folders.find((f) => f.kind === 'source')).toBeDefined();
  const removed = pruneBuildFolders(folders, 1).map((f) => path.relative(root, f.path));
  expect(removed).toEqual(['build/abc/defconfig+2222222222', 'build/abc/defconfig', 'build/shared/kunit.py+3333333333']);
  expect(fs.readdirSync(path.join(root, 'build/shared')).sort()).toEqual(['kunit.py+4444444444']);
});
