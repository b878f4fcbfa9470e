// Building as the bots build (issue 34), on the real tree. The objects x86-64 can build but whose configuration
// kseries once gave up on: a dependency continued on the next line (smc91x's "|| \"), alternatives without
// COMPILE_TEST (rtl8366rb: "NET_DSA_REALTEK_SMI || NET_DSA_REALTEK_MDIO"), symbols without a prompt that only a
// `select` sets (MLX4_CORE by MLX4_EN, QED_RDMA by INFINIBAND_QEDR inside `if INFINIBAND`), and an object a chain of
// dependencies reaches (mlx5's lib/hv.o: PCI_HYPERV_INTERFACE, HYPERV). The kernel-doc warnings W=1 prints.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, expect, test } from 'vitest';
import type { CheckReport } from '../../src/check/report.js';
import { recordMakes } from '../../src/tools/make.js';
import type { KernelTree } from '../../src/tree/tree.js';
import { cli, git, userTree } from '../helpers/tree.js';

const FILES = [
  'drivers/net/dsa/realtek/rtl8366rb.c',
  'drivers/net/ethernet/mellanox/mlx4/main.c',
  'drivers/net/ethernet/mellanox/mlx5/core/lib/hv.c',
  'drivers/net/ethernet/qlogic/qed/qed_roce.c',
  'drivers/net/ethernet/smsc/smc91x.c',
];

let tree: KernelTree;
beforeAll(async () => {
  tree = await userTree();
});

const COMMENT = (text: string) => `${text}\n/* Built by kseries' configuration test. */\n`;

/** A commit on `base` that edits (or adds) each file, made without touching the checkout. */
function commitEdits(root: string, base: string, files: string[], edit: (text: string) => string = COMMENT): string {
  const index = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-kconfig-')), 'index');
  const env = { ...process.env, GIT_INDEX_FILE: index, GIT_AUTHOR_NAME: 'K Tester', GIT_AUTHOR_EMAIL: 'k@tester.dev', GIT_COMMITTER_NAME: 'K Tester', GIT_COMMITTER_EMAIL: 'k@tester.dev' };
  const g = (args: string[], input?: string) => execFileSync('git', args, { cwd: root, env, encoding: 'utf8', input, maxBuffer: 64 * 1024 * 1024 }).trim();
  g(['read-tree', base]);
  for (const f of files) {
    const exists = g(['ls-tree', base, '--', f]) !== '';
    const text = exists ? execFileSync('git', ['show', `${base}:${f}`], { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }) : '';
    const blob = g(['hash-object', '-w', '--stdin'], edit(text));
    g(['update-index', '--add', '--cacheinfo', `100644,${blob},${f}`]);
  }
  const commit = g(['commit-tree', g(['write-tree']), '-p', base, '-m', 'net: note where each driver is built\n\nSigned-off-by: K Tester <k@tester.dev>']);
  fs.rmSync(path.dirname(index), { recursive: true, force: true });
  return commit;
}

test('objects x86-64 can build are built: continued lines, plain alternatives, selected symbols, dependency chains', async () => {
  const base = git(tree.root, 'rev-parse', 'HEAD').trim();
  const tip = commitEdits(tree.root, base, FILES);
  const r = await cli(['--tree', tree.root, 'check', '--range', `${base}..${tip}`, '--json']);
  const report = JSON.parse(r.out) as CheckReport;
  const [p] = report.patches;
  expect(p!.build.notBuilt, JSON.stringify(p!.build.notBuilt)).toEqual([]);
  expect(p!.build.objects).toEqual(FILES.map((f) => f.replace(/\.c$/, '.o')));
  expect(p!.build.status).toBe('ok');
  console.log(`built with ${report.compiler}; switched on: ${report.configAsBuilt?.on.join(' ')}`);
});

test('each set of symbols keeps its build folder: a range checked again after one that asked for other symbols neither configures nor prepares', async () => {
  const base = git(tree.root, 'rev-parse', 'HEAD').trim();
  const drivers = commitEdits(tree.root, base, FILES);
  const bcd = commitEdits(tree.root, base, ['lib/bcd.c']);
  const check = (tip: string) => cli(['--tree', tree.root, 'check', '--range', `${base}..${tip}`, '--fresh', '--json']);
  await check(drivers);
  await check(bcd);
  const makes: string[] = [];
  recordMakes((c) => makes.push(c.args.filter((a) => !a.startsWith('-') && !a.includes('=')).join(' ')));
  const again = await check(drivers).finally(() => recordMakes(undefined));
  const [p] = (JSON.parse(again.out) as CheckReport).patches;
  expect(p!.build).toMatchObject({ status: 'ok', objects: FILES.map((f) => f.replace(/\.c$/, '.o')), notBuilt: [] });
  // Only compiles: no config target, olddefconfig or prepare in any build (gcc's, clang's).
  expect(makes.filter((m) => /config|prepare/.test(m))).toEqual([]);
  expect(makes.length).toBeGreaterThan(0);
  console.log(`checked again: ${makes.length} makes, ${makes.join('; ')}`);
});

test("a kernel-doc comment that names a parameter the function lacks: W=1's kernel-doc warnings are new warnings", async () => {
  const base = git(tree.root, 'rev-parse', 'HEAD').trim();
  const doc = '/**\n * _bcd2bin - a BCD byte as binary\n * @nonexistent: no such parameter\n */\n';
  const tip = commitEdits(tree.root, base, ['lib/bcd.c'], (text) => text.replace(/^unsigned _bcd2bin\(/m, `${doc}unsigned _bcd2bin(`));
  const r = await cli(['--tree', tree.root, 'check', '--range', `${base}..${tip}`, '--json']);
  const [p] = (JSON.parse(r.out) as CheckReport).patches;
  expect(p!.build.status).toBe('ok');
  expect(p!.build.newWarnings).toEqual([
    expect.stringMatching(/^lib\/bcd\.c:\d+: warning: Function parameter or struct member 'val' not described in '_bcd2bin'$/),
    expect.stringMatching(/^lib\/bcd\.c:\d+: warning: Excess function parameter 'nonexistent' description in '_bcd2bin'$/),
  ]);
});

test("another architecture's files are built for it with its cross compiler; a driver x86-64 cannot build, where its dependencies allow, in the configuration they need", async () => {
  const base = git(tree.root, 'rev-parse', 'HEAD').trim();
  const riscv = commitEdits(tree.root, base, ['arch/riscv/kernel/setup.c']);
  // An arm64-only file that no longer compiles, and an ARM_AMBA driver that x86-64's defconfig cannot build.
  const broken = commitEdits(tree.root, riscv, ['arch/arm64/kernel/cpufeature.c', 'drivers/tty/serial/amba-pl011.c'], (text) =>
    text.includes('cpufeature') ? `${text}\nstatic int kseries_broken = ;\n` : COMMENT(text),
  );
  // PS3's network driver: big-endian powerpc64 only (PPC_PS3 needs CPU_BIG_ENDIAN), not powerpc's ppc64le default;
  // IXP4xx's: ARCH_IXP4XX needs ARMv5 and big-endian, which arm's defconfig (ARMv7) is not, its board defconfig is.
  const drivers = commitEdits(tree.root, broken, ['drivers/net/ethernet/toshiba/ps3_gelic_net.c', 'drivers/net/ethernet/xscale/ixp4xx_eth.c']);
  const r = await cli(['--tree', tree.root, 'check', '--range', `${base}..${drivers}`, '--json']);
  const report = JSON.parse(r.out) as CheckReport;
  const [p1, p2, p3] = report.patches;
  const cross = (a: string) => fs.existsSync(`/usr/bin/${a}-linux-gnu-gcc`);
  if (cross('riscv64')) {
    expect(p1!.build).toMatchObject({ status: 'ok', objects: ['arch/riscv/kernel/setup.o'], notBuilt: [], builtOn: { 'arch/riscv/kernel/setup.o': [expect.stringMatching(/^riscv defconfig, .*riscv64-linux-gnu-gcc$/)] } });
  } else {
    expect(p1!.build.notBuilt).toEqual([{ object: 'arch/riscv/kernel/setup.o', reason: 'arch/riscv/kernel/setup is riscv code: no riscv cross compiler is installed (apt-get install gcc-riscv64-linux-gnu)' }]);
  }
  if (cross('aarch64')) {
    expect(p2!.build.status).toBe('failed');
    expect(p2!.build.errors[0]).toMatch(/^arch\/arm64\/kernel\/cpufeature\.c:\d+:\d+: error: expected expression before .;. token$/);
    expect(p2!.build.builtOn).toEqual({ 'arch/arm64/kernel/cpufeature.o': [expect.stringMatching(/^arm64 /)], 'drivers/tty/serial/amba-pl011.o': [expect.stringMatching(/^arm64 /)] });
    expect(report.otherBuilds?.map((o) => o.config.base)).toEqual(expect.arrayContaining(['arm64 defconfig']));
  } else {
    expect(p2!.build.notBuilt.map((n) => n.object)).toEqual(['arch/arm64/kernel/cpufeature.o', 'drivers/tty/serial/amba-pl011.o']);
  }
  const ps3 = 'drivers/net/ethernet/toshiba/ps3_gelic_net.o';
  const ixp4xx = 'drivers/net/ethernet/xscale/ixp4xx_eth.o';
  expect(p3!.build.status).toBe('ok');
  if (cross('powerpc64')) expect(p3!.build.builtOn?.[ps3]).toEqual([expect.stringMatching(/^powerpc ppc64_defconfig, .*powerpc64-linux-gnu-gcc$/)]);
  else expect(p3!.build.notBuilt.map((n) => n.object)).toContain(ps3);
  if (fs.existsSync('/usr/bin/arm-linux-gnueabihf-gcc')) expect(p3!.build.builtOn?.[ixp4xx]).toEqual([expect.stringMatching(/^arm ixp4xx_defconfig, .*arm-linux-gnueabihf-gcc$/)]);
  else expect(p3!.build.notBuilt.map((n) => n.object)).toContain(ixp4xx);
  console.log(`riscv, arm64, powerpc and arm builds: ${JSON.stringify([p1!.build.builtOn, p2!.build.builtOn, p3!.build.builtOn])}`);
});

test('sparse and clang, as 0-day and NIPA run them: a global sparse flags and a self-assignment only clang warns of, each at its patch', async () => {
  const base = git(tree.root, 'rev-parse', 'HEAD').trim();
  const global = commitEdits(tree.root, base, ['lib/bcd.c'], (text) => text.replace('#include <linux/export.h>\n', '#include <linux/export.h>\n\nunsigned int bcd_conversions;\n'));
  const self = commitEdits(tree.root, global, ['lib/bcd.c'], (text) => text.replace('\treturn (t << 4)', '\tval = val;\n\treturn (t << 4)'));
  const r = await cli(['--tree', tree.root, 'check', '--range', `${base}..${self}`, '--json']);
  const report = JSON.parse(r.out) as CheckReport;
  const [p1, p2] = report.patches;
  const has = (p: string) => ['/usr/bin', '/usr/local/bin'].some((d) => fs.existsSync(path.join(d, p)));
  const sparse = has('sparse');
  const clang = has('clang') && has('ld.lld') && has('llvm-objcopy');
  expect(report.compiler).toMatch(sparse ? / \+ sparse$/ : /gcc$/);
  // sparse's warning is x86-64's own (its build runs C=1); clang's names its build, as the robot names a config.
  expect(p1!.build.newWarnings).toEqual(sparse ? [expect.stringMatching(/^lib\/bcd\.c:\d+:\d+: warning: symbol 'bcd_conversions' was not declared\. Should it be static\?$/)] : []);
  expect(p2!.build.newWarnings).toEqual(clang ? [expect.stringMatching(/^lib\/bcd\.c:\d+:\d+: warning: explicitly assigning value of variable of type 'unsigned int' to itself \[-Wself-assign\] \[x86_64 defconfig, (ccache )?clang( \+ sparse)?\]$/)] : []);
  expect(p2!.build.builtOn?.['lib/bcd.o']).toEqual([expect.stringMatching(/^x86_64 defconfig, .*gcc/), ...(clang ? [expect.stringMatching(/^x86_64 defconfig, .*clang$/)] : [])]);
  expect(report.buildsNotRun ?? []).toEqual([...(sparse ? [] : ['sparse: not installed (apt-get install sparse)']), ...(clang ? [] : [expect.stringMatching(/^clang: .* not installed \(apt-get install clang lld llvm\)$/)])]);
  console.log(`sparse ${sparse ? 'ran' : 'absent'}, clang ${clang ? 'ran' : 'absent'}: ${JSON.stringify([p1!.build.newWarnings, p2!.build.newWarnings])}`);
});

test("checkpatch's SPDX check runs (a license LICENSES/ lacks is a finding), or the report says it did not", async () => {
  const base = git(tree.root, 'rev-parse', 'HEAD').trim();
  const added = commitEdits(tree.root, base, ['lib/kseries_spdx.c'], () => '// SPDX-License-Identifier: GPL-7.0-bogus\n/* A file under a license the kernel does not have. */\n');
  const r = await cli(['--tree', tree.root, 'check', '--range', `${base}..${added}`, '--no-build', '--json']);
  const [p] = (JSON.parse(r.out) as CheckReport).patches;
  const python = (py: string) => {
    try {
      execFileSync(py, ['-c', 'import ply, git'], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  };
  const spdx = p!.checkpatch.findings.filter((f) => f.type === 'SPDX_LICENSE_TAG').map((f) => f.message);
  if (python('python3') || python('/usr/bin/python3')) {
    expect(spdx).toEqual(["'SPDX-License-Identifier: GPL-7.0-bogus' is not supported in LICENSES/..."]);
    expect(p!.checkpatch.notRun).toBeUndefined();
  } else {
    expect(spdx).toEqual([]);
    expect(p!.checkpatch.notRun).toEqual([expect.stringMatching(/^SPDX license check \(scripts\/spdxcheck\.py\) did not run: python3 has no module /)]);
  }
});

test('review of a received arm64 patch builds it for arm64, in the sandbox', async () => {
  const base = git(tree.root, 'rev-parse', 'HEAD').trim();
  const arm64 = commitEdits(tree.root, base, ['arch/arm64/kernel/cpufeature.c']);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-review-arm64-'));
  try {
    const mbox = path.join(dir, 'arm64.mbox');
    fs.writeFileSync(mbox, execFileSync('git', ['format-patch', '--stdout', `--base=${base}`, '-1', arm64], { cwd: tree.root, encoding: 'utf8' }));
    const r = await cli(['--tree', tree.root, 'review', mbox, '--out', dir, '--json']);
    expect(r.err).toBe('');
    const report = JSON.parse(r.out) as { sandbox: string; patches: CheckReport['patches'] };
    const [p] = report.patches;
    if (fs.existsSync('/usr/bin/aarch64-linux-gnu-gcc')) {
      expect(p!.build).toMatchObject({ status: 'ok', objects: ['arch/arm64/kernel/cpufeature.o'], notBuilt: [] });
      expect(p!.build.builtOn).toEqual({ 'arch/arm64/kernel/cpufeature.o': [expect.stringMatching(/^arm64 defconfig, .*aarch64-linux-gnu-gcc$/)] });
    } else {
      expect(p!.build.notBuilt.map((n) => n.reason)).toEqual([expect.stringContaining('apt-get install gcc-aarch64-linux-gnu')]);
    }
    console.log(`review of an arm64 patch: ${report.sandbox}; ${JSON.stringify(p!.build.builtOn ?? p!.build.notBuilt)}`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a .dtsi change builds the device trees of boards that include it, for their architecture, with dtc\'s new warnings', async () => {
  const base = git(tree.root, 'rev-parse', 'HEAD').trim();
  const dtsi = 'arch/arm64/boot/dts/freescale/imx8mq.dtsi';
  const node = commitEdits(tree.root, base, [dtsi], (text) => `${text}\n/ {\n\tkseries {\n\t\treg = <0x0 0x1 0x0 0x1>;\n\t};\n};\n`);
  const r = await cli(['--tree', tree.root, 'check', '--range', `${base}..${node}`, '--json']);
  const [p] = (JSON.parse(r.out) as CheckReport).patches;
  if (!fs.existsSync('/usr/bin/aarch64-linux-gnu-gcc')) {
    expect(p!.build.notBuilt.length).toBe(3);
    return;
  }
  expect(p!.build.status).toBe('ok');
  expect(p!.build.objects).toHaveLength(3);
  for (const o of p!.build.objects) expect(o).toMatch(/^arch\/arm64\/boot\/dts\/freescale\/imx8mq-.*\.dtb$/);
  expect(p!.build.note).toMatch(/^arch\/arm64\/boot\/dts\/freescale\/imx8mq\.dtsi: built 3 of \d+ device trees that include it \(--full builds all\)$/);
  expect(p!.build.newWarnings).toEqual([expect.stringMatching(/^arch\/arm64\/boot\/dts\/freescale\/imx8mq\.dtsi:\d+\.\d+-\d+\.\d+: Warning \(unit_address_vs_reg\): \/kseries: node has a reg or ranges property, but no unit name$/)]);
  console.log(`dtsi: ${p!.build.note}; ${JSON.stringify(p!.build.builtOn)}; ${p!.build.newWarnings}`);
});

test('what only a 32-bit kernel builds goes to i386: ftgmac100 (!64BIT), lance (ISA)', async () => {
  const base = git(tree.root, 'rev-parse', 'HEAD').trim();
  const files = ['drivers/net/ethernet/amd/lance.c', 'drivers/net/ethernet/faraday/ftgmac100.c'];
  const tip = commitEdits(tree.root, base, files);
  const r = await cli(['--tree', tree.root, 'check', '--range', `${base}..${tip}`, '--compilers', 'gcc', '--json']);
  const [p] = (JSON.parse(r.out) as CheckReport).patches;
  expect(p!.build).toMatchObject({ status: 'ok', notBuilt: [], objects: files.map((f) => f.replace(/\.c$/, '.o')) });
  for (const f of files) expect(p!.build.builtOn![f.replace(/\.c$/, '.o')]).toEqual([expect.stringMatching(/^i386 defconfig, (ccache )?gcc$/)]);
});
