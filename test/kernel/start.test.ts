// `kseries start` (npm start) end to end, as a maintainer reads what it emits.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { KUNIT_KERNEL } from '../../src/boot/kunit.js';
import type { CheckReport } from '../../src/check/report.js';
import { DEMO_FLAGS, demoFlags } from '../../src/commands/start.js';
import { formatHotness } from '../../src/measure/hotness.js';
import type { MeasureReport } from '../../src/recipes/static-key/measure.js';
import { checkpatchMail } from '../../src/check/checks/checkpatch.js';
import { runCheckpatch } from '../../src/tools/kernel-scripts.js';
import { cacheDir } from '../../src/tree/paths.js';
import type { KernelTree } from '../../src/tree/tree.js';
import { expectConfigAsBuilt, expectHintsAsInDiff, expectNamesTouched, expectOneTree, expectSizesAsBuilt, readMail } from '../helpers/maintainer-read.js';
import { MEASURED } from '../helpers/kernels.js';
import { verdictBesidesIdentity } from '../helpers/series.js';
import { cli, git, userTree } from '../helpers/tree.js';

/**
 * The x86-64 defconfig build folder of `tree` that a check report was built in: of the tree's folders (the config's,
 * and one per set of symbols asked for, `defconfig+<digest>`), the newest whose .config sets what the report's config
 * line switched on, has CONFIG_WERROR off and holds the objects whose sizes the report states.
 */
function defconfigBuild(tree: KernelTree, on: string[], objects: string[] = []): string {
  const root = path.join(cacheDir(), 'build', createHash('sha1').update(tree.gitCommonDir).digest('hex').slice(0, 12));
  const dirs = fs.readdirSync(root).filter((d) => d === 'defconfig' || d.startsWith('defconfig+')).map((d) => path.join(root, d)).filter((d) => fs.existsSync(path.join(d, '.config')));
  const fits = (d: string) => {
    const config = fs.readFileSync(path.join(d, '.config'), 'utf8');
    return !/^CONFIG_WERROR=y$/m.test(config) && on.every((s) => new RegExp(`^CONFIG_${s}=[ym]$`, 'm').test(config)) && objects.every((o) => fs.existsSync(path.join(d, o)));
  };
  return dirs.filter(fits).sort((a, b) => fs.statSync(path.join(b, '.config')).mtimeMs - fs.statSync(path.join(a, '.config')).mtimeMs)[0]!;
}

const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-start-'));
afterAll(() => fs.rmSync(cwd, { recursive: true, force: true }));

test('start makes the static-keys demo, the .cold fix and the kprobe-post RFC on top of it: generated, built, proven or KUnit-tested, emitted', async () => {
  const tree = await userTree();
  const r = await cli(['--tree', tree.root, 'start'], { cwd });
  expect(r.code, r.err).toBe(0);
  // It says first what it will build: two kernels (the KUnit kernel of both kprobe series, the boot kernel).
  expect(r.err).toMatch(/^build plan: 2 kernels, \d+ object builds?$/m);
  // The first result early: kprobe-cold is in out/ before static-keys begins, whose boot kernel it never waits for.
  const written = r.err.indexOf('kprobe-cold: written to out/kprobe-cold/v1/');
  expect(written).toBeGreaterThan(-1);
  expect(written).toBeLessThan(r.err.indexOf('static-keys: generating'));
  // The demo flags are the hottest auto flags on a hot path of the measured minimal kernel, less those the draft's
  // object code refuted (generate says which and plans again without them).
  const m = JSON.parse((await cli(['--tree', tree.root, 'measure', ...MEASURED, '--json'])).out) as MeasureReport;
  expect(m.cached).toBe(true);
  const refuted = new Set([...r.err.matchAll(/the draft's object code refutes (.*): planning again/g)].flatMap((x) => x[1]!.split(', ').map((claim) => claim.split(' ')[0]!)));
  const hottest = demoFlags(m).pool.filter((c) => !refuted.has(c.variable)).slice(0, DEMO_FLAGS);
  expect(hottest.length).toBeGreaterThan(0);
  expect(hottest.every((c) => c.hits!.path === 'hot')).toBe(true);
  console.log(`start: ${hottest.map((c) => `${c.variable} ${formatHotness(c.hits!)}`).join(', ')}; refuted by the draft: ${[...refuted].join(', ') || 'none'}`);
  // One series per maintainer tree, each its own folder; together they hold the demo flags.
  const dirs = fs.readdirSync(path.join(cwd, 'out')).filter((d) => d.startsWith('static-keys')).map((d) => path.join(cwd, 'out', d, 'v1'));
  expect(dirs.length).toBeGreaterThan(0);
  const proofs: CheckReport['patches'][number]['proofs'] = [];
  const trees = new Set<string>();
  for (const dir of dirs) {
    const report = JSON.parse(fs.readFileSync(path.join(dir, 'report.json'), 'utf8')) as CheckReport;
    expect(verdictBesidesIdentity(report)).toBe('clean');
    const built = defconfigBuild(tree, report.configAsBuilt?.on ?? [], report.patches.flatMap((p) => (p.build.sizes ?? []).map((z) => z.object)));
    const dotConfig = fs.readFileSync(path.join(built, '.config'), 'utf8');
    proofs.push(...report.patches.flatMap((p) => p.proofs));
    // The series boots clean under lockdep with its writers run.
    expect(report.boot).toMatchObject({ ok: true, config: 'minimal+lockdep', failures: [] });
    expect(report.boot!.statement).toMatch(/^boots clean on x86-64 minimal\+lockdep in QEMU\/(KVM|TCG), /);
    const patches = fs.readdirSync(dir).filter((f) => /^000[1-9].*\.patch$/.test(f)).sort();
    expect(patches.length).toBeGreaterThan(0);
    const mails: ReturnType<typeof readMail>[] = [];
    for (const [i, f] of patches.entries()) {
      const text = fs.readFileSync(path.join(dir, f), 'utf8');
      expect((await runCheckpatch(tree.root, text, { strict: true })).findings).toEqual([]);
      expect(text).toMatch(/in all: \d+ tests?, \d+ insns\/\d+ bytes -> \d+ jump labels?, \d+ insns?\/\d+ bytes/);
      expect(text.replace(/\n/g, ' ')).toMatch(/its tests ran (1 per [\d.]+|[\d.]+ per) [a-z ]+ \([\d.]+ times per second of the default workload\)/);
      // As a maintainer reads it: the hint sentence against the diff, the config line against the .config, every
      // function named against what the patch touches.
      const mail = readMail(text);
      mails.push(mail);
      expectHintsAsInDiff(mail);
      expectConfigAsBuilt(mail, dotConfig);
      const sources = mail.files.map((f) => git(tree.root, 'show', `${report.series.base}:${f}`)).join('\n');
      expectNamesTouched(mail, report.patches[i]!.proofs.flatMap((p) => p.functions ?? []), sources);
    }
    // The figures of each object are those of the built objects (size -A, readelf), and the series goes to one tree.
    expectSizesAsBuilt(report, built);
    const route = await expectOneTree(tree.root, mails);
    expect(trees.has(route.tree), `two series for ${route.tree}`).toBe(false);
    trees.add(route.tree);
    const cover = fs.readFileSync(path.join(dir, patches.length > 1 ? '0000-cover-letter.patch' : patches[0]!), 'utf8').replace(/\n/g, ' ');
    if (patches.length > 1) for (const c of hottest.filter((h) => mails.some((m) => m.files.includes(h.file)))) expect(cover).toContain(`${c.hits!.perSecond} per second`);
    expect(cover).toMatch(/boots clean on x86-64 minimal\+lockdep in QEMU\/(KVM|TCG)/);
  }
  console.log(`start: static-keys series for ${[...trees].join(', ')}`);
  expect(proofs.map((p) => p.claim.split(' ')[0]).sort()).toEqual(hottest.map((c) => c.variable).sort());
  expect(proofs.every((p) => p.ok)).toBe(true);
  expect(r.out).toContain('next:');
  // The two halves agree: kseries review of what kseries emitted is clean, for every series.
  expect(r.out.match(/kseries review of these mails: clean/g)).toHaveLength(dirs.length + 2);
  expect(r.out).toContain('kseries send static-keys-');

  // kprobe-cold: the .cold fix as a plain series of three, sent first; its test fails without the fix.
  const kc = path.join(cwd, 'out', 'kprobe-cold', 'v1');
  const cr = JSON.parse(fs.readFileSync(path.join(kc, 'report.json'), 'utf8')) as CheckReport;
  expect(cr.failed).toBe(false);
  // The test patch adds a Kconfig symbol: it is configured under the series' Kconfig and its objects are built.
  expect(cr.patches.map((p) => p.build.status)).toEqual(['ok', 'ok', 'ok']);
  const coldCases = ['jump', 'oneway', 'twins', 'register_again'].map((c) => `kprobes_test_x86.test_kprobe_cold_${c}`);
  expect(cr.kunit).toMatchObject({ ok: true, problems: [], base: { status: 'passed', passed: 7, leftOut: ['CONFIG_X86_KPROBES_KUNIT_TEST=y'] }, series: { status: 'passed', passed: 11 }, added: coldCases });
  // Without the fix the three cases of probes it refuses fail, and nothing crashes: the suite after runs, and the
  // last case registers the same probes again (none was left behind).
  expect(cr.kunit!.without).toMatchObject({ subject: 'x86/kprobes: Check the .cold part of a function in can_optimize()', failed: coldCases.slice(0, 3), run: { status: 'failed', passed: 8 } });
  // One test kernel, kunit.py's own configuration, as maintainers run the tests: no second configuration to run again.
  expect(cr.kunit!.kernel).toBe(KUNIT_KERNEL);
  // What the fix newly refuses, counted on its test kernel: at least the test's own probe before the .cold part's target.
  // GCC 12 makes no .cold part in 6.12 on x86-64 (__cold is empty there): the three are the test's, in assembly.
  const coldCensus = cr.kunit!.census!;
  expect(coldCensus.coldParts).toBeGreaterThanOrEqual(3);
  expect(coldCensus.coldWritten).toBe(3);
  expect(coldCensus.coldRefused).toBeGreaterThanOrEqual(1);
  console.log(`kprobe-cold on its test kernel: ${coldCensus.coldParts} .cold parts, ${coldCensus.coldRefused} of ${coldCensus.sites} sites newly refused`);
  const coldFiles = fs.readdirSync(kc).filter((f) => f.endsWith('.patch')).sort();
  expect(coldFiles).toHaveLength(4);
  for (const f of coldFiles.slice(1)) {
    const text = fs.readFileSync(path.join(kc, f), 'utf8');
    expect(text).toMatch(/^Subject: \[PATCH [1-3]\/3\] x86\/kprobes: /m);
    const head = text.slice(0, text.indexOf('\n\n'));
    // To: the kprobes maintainers, who apply it (the recipe's to), and x86's; Cc: objtool's, on every patch.
    expect(head).toMatch(/^To: .*mhiramat@kernel\.org.*x86@kernel\.org.*\nCc: /ms);
    expect(head).toMatch(/^Cc: .*jpoimboe@kernel\.org/ms);
    const found = await checkpatchMail(tree.root, text, { history: false });
    expect(found.findings.filter((x) => !x.fromTree)).toEqual([]);
  }
  const ccover = fs.readFileSync(path.join(kc, coldFiles[0]!), 'utf8');
  expect(ccover).toMatch(/^Subject: \[PATCH 0\/3\] x86\/kprobes: Let can_optimize\(\) see jumps from a function's \.cold part$/m);
  expect(ccover.replace(/\n/g, ' ')).toMatch(/7 of 7 tests passed on the base, 11 of 11 with the series, which adds test_kprobe_cold_jump, test_kprobe_cold_oneway, test_kprobe_cold_twins, test_kprobe_cold_register_again\. Without patch 2, 8 of 11 passed: test_kprobe_cold_jump, test_kprobe_cold_oneway, test_kprobe_cold_twins failed\./);
  const fixMail = fs.readFileSync(path.join(kc, coldFiles[2]!), 'utf8').replace(/\s+/g, ' ');
  // No count of sites that says nothing of real code: the kernel's .cold parts are the test's own.
  expect(fixMail).toContain(`has no .cold part the compiler made in its ${coldCensus.objects} objects, only the test's own, written in assembly`);
  expect(fixMail).toContain('Cc: stable@vger.kernel.org # needs the previous patch;');
  const coldBase = git(tree.root, 'rev-parse', 'kseries/kprobe-cold/v1~3').trim();

  // kprobe-post: five RFC patches on top of the fix, checkpatch-clean, KUnit passing on the fix and with the series,
  // and the census.
  const kp = path.join(cwd, 'out', 'kprobe-post', 'v1');
  const kr = JSON.parse(fs.readFileSync(path.join(kp, 'report.json'), 'utf8')) as CheckReport;
  expect(kr.failed).toBe(false);
  expect(kr.patches.map((p) => p.build.status)).toEqual(['ok', 'ok', 'ok', 'ok', 'skipped']);
  expect(kr.kunit).toMatchObject({ ok: true, problems: [], base: { status: 'passed', passed: 11 }, series: { status: 'passed', passed: 19 } });
  // Where maintainers run them: kunit.py's own configuration.
  expect(kr.kunit!.kernel).toBe(KUNIT_KERNEL);
  console.log(`kunit.py's own configuration: ${JSON.stringify(kr.kunit!.series.settings)}`);
  expect(kr.kunit!.added).toEqual(['moved', 'regs', 'aggregated', 'disable', 'ip', 'not_moved', 'not_asked', 'refused'].map((c) => `kprobes_test_x86.test_kprobe_post_${c}`));
  expect(kr.kunit!.series.settings?.map((x) => x.name)).toContain('CONFIG_OPTPROBES');
  // The generic patch is built as the bots build kprobes.c: x86-64 with gcc and clang, and the recipe's arches (i386,
  // arm64, riscv) where a compiler for them is installed; the x86 patches on i386 as well.
  const machines = (p: number, o: string) => (kr.patches[p]!.build.builtOn?.[o] ?? []).filter((b) => !b.includes(': not built')).map((b) => `${b.split(' ')[0]}${/clang/.test(b) ? '-clang' : ''}`);
  const cross = (a: string) => fs.existsSync(`/usr/bin/${a}-linux-gnu-gcc`);
  expect(machines(0, 'kernel/kprobes.o')).toEqual(expect.arrayContaining(['x86_64', 'i386', ...(cross('aarch64') ? ['arm64'] : []), ...(cross('riscv64') ? ['riscv'] : [])]));
  expect(machines(1, 'arch/x86/kernel/kprobes/opt.o')).toEqual(expect.arrayContaining(['x86_64', 'i386']));
  console.log(`kprobe-post's generic patch built on: ${machines(0, 'kernel/kprobes.o').join(', ')}`);
  expect(['kvm', 'tcg']).toContain(kr.kunit!.accel);
  console.log(`KUnit ran under ${kr.kunit!.accel}: ${kr.kunit!.accelWhy}`);
  const census = kr.kunit!.census!;
  expect(census.sites).toBeGreaterThan(100000);
  expect(census.move + census.stay).toBe(census.sites);
  expect(census.x86.move).toBeGreaterThan(0);
  const files = fs.readdirSync(kp).filter((f) => f.endsWith('.patch')).sort();
  expect(files).toHaveLength(6);
  for (const f of files.slice(1)) {
    const text = fs.readFileSync(path.join(kp, f), 'utf8');
    expect(text).toMatch(/^Subject: \[RFC PATCH [1-5]\/5\] /m);
    // Every patch goes to the kprobes maintainers and the x86 ones (ccAll), the x86 patches too.
    const head = text.slice(0, text.indexOf('\n\n'));
    expect(head).toContain('mhiramat@kernel.org');
    expect(head).toContain('linux-trace-kernel@vger.kernel.org');
    // The documentation list only on the documentation patch (and the cover): the code patches are not its matter.
    if (f.includes('Documentation-kprobes')) expect(head).toContain('linux-doc@vger.kernel.org');
    else expect(head).not.toContain('linux-doc@vger.kernel.org');
    // objtool's maintainers are the .cold fix's matter, not the RFC's.
    expect(head).not.toContain('jpoimboe@kernel.org');
    // Clean, but for the sample's new file, which MAINTAINERS covers already (KPROBES: F: samples/kprobes).
    const found = await checkpatchMail(tree.root, text, { history: false });
    expect(found.findings.filter((x) => !x.fromTree)).toEqual([]);
    expect(found.findings.map((x) => x.type)).toEqual(f.includes('samples-kprobes') ? ['FILE_PATH_CHANGES'] : []);
  }
  const kcover = fs.readFileSync(path.join(kp, files[0]!), 'utf8');
  expect(kcover).toMatch(/^Subject: \[RFC PATCH 0\/5\] kprobes: Let a probe with only a post_handler be optimized$/m);
  expect(kcover.replace(/\n/g, ' ')).toMatch(/11 of 11 tests passed on the base, 19 of 19 with the series/);
  expect(kcover.replace(/\n/g, ' ')).toMatch(/KUnit kprobes_test_x86, kprobes_test \(kunit.py's x86_64 config \+ kunitconfig under QEMU, (KVM|TCG)\) passes 11 of 11 tests on the base and 19 of 19 with the series/);
  // It stands on the fix: the tree's commit as base-commit, the fix's three patches and its thread named.
  expect(kcover).toContain(`base-commit: ${coldBase}`);
  expect(kcover.match(/^prerequisite-patch-id: [0-9a-f]{40}$/gm)).toHaveLength(3);
  // The fix has not been sent: the cover says it is posted separately and names no Message-Id b4 could not find.
  expect(kcover).not.toMatch(/^prerequisite-message-id:/m);
  expect(kcover.replace(/\s+/g, ' ')).toContain('(3 patches), which is posted separately;');
  expect(kcover.replace(/\s+/g, ' ')).toContain('This series applies on top of the series "x86/kprobes: Let can_optimize() see jumps from a function\'s .cold part" (3 patches)');
  expect(kcover.replace(/\n/g, ' ')).toMatch(new RegExp(`Of ${census.sites} sites, ${census.move} could move and ${census.stay} stay`));
  // The census's conditions beside its figures: no modules, BUG, -Os, and how many .cold parts that kernel has.
  expect(kcover.replace(/\n/g, ' ')).toMatch(new RegExp(`built with CONFIG_MODULES=[yn], CONFIG_BUG=[yn], CONFIG_CC_OPTIMIZE_FOR_SIZE=[yn], and it holds ${census.coldParts} \\.cold parts?, kprobes_test_x86's own`));
  expect(git(tree.root, 'show', 'kseries/kprobe-post/v1:arch/x86/kernel/kprobes/core.c')).toContain('kprobe_opcode_t *arch_kprobe_next_insn(kprobe_opcode_t *addr)');
  expect(git(tree.root, 'show', 'kseries/kprobe-post/v1:arch/x86/kernel/kprobes/opt.c')).toMatch(/static int insns_avoid_range\(unsigned long start, unsigned long size,/);
  // From an empty cache start builds two kernels (helpers/kernels.ts derives them from the build plan) and the objects.
}, 45 * 60 * 1000);
