import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
// The pieces of a boot that need no kernel: what /init prints and how it is read, how kprobe events are packed on
// the command line, which symbols a measured kernel gets, which writers a boot exercises, and what fails a boot.
import { describe, expect, test } from 'vitest';
import { judgeToggles, toggleProbes, toggleScript } from '../../src/recipes/static-key/toggle-probes.js';
import { objectPlans } from '../../src/boot/config.js';
import { configSettings, definedAt, kunitKernelDir, seedKunitDir } from '../../src/boot/kunit.js';
import { initScript, parseConsole } from '../../src/boot/guest.js';
import { WORKLOADS } from '../../src/boot/workloads.js';
import { consoleFailures, formatBoot, type BootReport } from '../../src/recipes/static-key/boot-check.js';
import { addsStaticKey, keysAdded, keyWriters, writerParams } from '../../src/recipes/static-key/key-writers.js';
import { packEvents } from '../../src/measure/events.js';

describe('the console of a boot', () => {
  // The md5s are busybox md5sum's (the same as coreutils') of the rows as /init printed them.
  const console_ = [
    '[    0.000000] Linux version 6.12.57 (root@host) (gcc (Debian 12.2.0-14) 12.2.0)',
    '@@kseries init',
    '@@kseries profile boot 2 1dfd559066d7431a55fc8b84c4a0087b',
    'ks0 12',
    'ks1 0',
    '@@kseries end',
    '@@kseries events-adding 1.10',
    '@@kseries refused p:kseries/ks2 nosuch+0x4',
    '@@kseries events-enabling 1.40',
    '@@kseries profile before 4 3e46a4466b53d20765c45d73756b06ec',
    'ks0 15',
    'ks1 0',
    'ks3 0',
    'ref0 0',
    '@@kseries end',
    '@@kseries workload-start 1.52',
    '@@kseries phase-start 01-build 1.52',
    '[    2.100000] random: crng init done',
    '@@kseries phase-end 01-build 2.52 0',
    '@@kseries profile phase:01-build 3 9033518e2032e0f53606ac57c8deacee',
    'ks0 1015',
    'ks3 100',
    'ref0 400',
    '@@kseries end',
    '@@kseries phase-start 02-services 2.60',
    '@@kseries phase-end 02-services 4.00 1',
    '@@kseries profile phase:02-services 4 852965c167eb5ad8055242304ca619b9',
    'ks0 2515',
    'ks1 7',
    'ks3 300',
    'ref0 900',
    '@@kseries end',
    '@@kseries workload-end 4.02 1',
    '@@kseries profile after 4 852965c167eb5ad8055242304ca619b9',
    'ks0 2515',
    'ks1 7',
    'ks3 300',
    'ref0 900',
    '@@kseries end',
    '@@kseries done',
  ].join('\r\n');

  test('markers, the kprobe_profile readings around every phase, refused events, the phase and workload times are read', () => {
    const c = parseConsole(console_);
    expect(c).toMatchObject({ reachedInit: true, finished: true, workloadStatus: 1, workloadSeconds: 2.5, refused: ['p:kseries/ks2 nosuch+0x4'], garbled: [] });
    expect(c.phases).toEqual([{ name: 'build', seconds: 1, status: 0 }, { name: 'services', seconds: 1.4, status: 1 }]);
    expect(c.placing).toEqual({ adding: 0.3, enabling: 0.12 });
    expect(Object.fromEntries(c.profiles.boot!)).toEqual({ ks0: 12, ks1: 0 });
    expect(c.profiles.after!.get('ks0')! - c.profiles.before!.get('ks0')!).toBe(2500);
    expect(c.profiles.phases.get('build')!.get('ks3')).toBe(100);
    expect(c.profiles.phases.get('build')!.has('ks1')).toBe(false);
  });

  test('a reading the console garbled (a digit lost, a row lost) is not used, and says so', () => {
    const lostDigit = console_.replace('ks0 1015', 'ks0 105');
    const lostRow = console_.replace('ks3 300\r\nref0 900\r\n@@kseries end\r\n@@kseries done', 'ref0 900\r\n@@kseries end\r\n@@kseries done');
    const a = parseConsole(lostDigit);
    expect(a.garbled).toEqual(['phase:01-build (3 rows announced, 3 read, md5 differs)']);
    expect(a.profiles.phases.has('build')).toBe(false);
    expect(parseConsole(lostRow).garbled).toEqual(['after (4 rows announced, 3 read, md5 differs)']);
    // /init prints each reading twice: a garbled first copy is passed over for the intact second one.
    const build = ['@@kseries profile phase:01-build 3 9033518e2032e0f53606ac57c8deacee', 'ks0 1015', 'ks3 100', 'ref0 400', '@@kseries end'];
    const twice = console_.replace(build.join('\r\n'), [...build, ...build].join('\r\n'));
    const secondGood = parseConsole(twice.replace('ks0 1015', '15'));
    expect(secondGood.garbled).toEqual([]);
    expect(secondGood.profiles.phases.get('build')!.get('ks0')).toBe(1015);
    expect(parseConsole(twice.replaceAll('ks0 1015', 'ks0 105')).garbled).toEqual(['phase:01-build (3 rows announced, 3 read, md5 differs)']);
  });

  test('why the kernel refused a command-line event is taken from what trace_kprobe printed before it', () => {
    const c = parseConsole([
      '[    0.81] trace_kprobe: Could not probe notrace function tsc_init',
      '[    0.81] trace_kprobe: Failed to add event(-22): p:kseries/ks46 tsc_init+0x38',
      '[    0.82] trace_kprobe: Failed to add event(-84): p:kseries/ks27 0xffffffff81dac000',
    ].join('\n'));
    expect(Object.fromEntries(c.eventErrors)).toEqual({ ks46: 'Could not probe notrace function tsc_init', ks27: 'error -84' });
  });

  test('a kernel that never reached init, or an init that did not finish, is seen as such', () => {
    expect(parseConsole('[ 0.1] Kernel panic - not syncing: VFS: Unable to mount root fs')).toMatchObject({ reachedInit: false, finished: false });
    const stuck = parseConsole('@@kseries init\n@@kseries workload-start 1.0\n');
    expect(stuck).toMatchObject({ reachedInit: true, finished: false });
    expect(stuck.workloadSeconds).toBeUndefined();
  });

  test('/init reads the profile at boot, adds the late events, runs each phase with a reading after it and powers off', () => {
    const init = initScript();
    expect(init.startsWith('#!/bin/busybox sh\n')).toBe(true);
    const order = ['profile boot all', '/kseries/events', 'profile before all', 'sh /kseries/phases/$phase', 'profile phase:$phase', 'profile after', 'say done', 'reboot -f'].map((s) => init.indexOf(s));
    expect(order.every((at, i) => at > 0 && (i === 0 || at > order[i - 1]!))).toBe(true);
  });

  test('the default workload does what a system does; only its last phase starts and stops something', () => {
    const phases = WORKLOADS.default!.phases;
    expect(phases.map((p) => [p.name, !!p.setup])).toEqual([['build', false], ['net', false], ['memory', false], ['idle', false], ['services', true]]);
    expect(phases.find((p) => p.name === 'net')!.script).toMatch(/nc -l -p 7777/);
    // cgroups are created only in the setup phase: memcg's flags are read there, and a flag read only there is no hot one.
    expect(phases.filter((p) => /cgroup/.test(p.script)).map((p) => p.name)).toEqual(['services']);
  });
});

describe('kprobe events on the command line', () => {
  const site = (probe: string, init = false) => ({ probe, init });

  test('one kprobe_event= with the definitions comma-separated; what does not fit is added after boot', () => {
    const sites = Array.from({ length: 80 }, (_, i) => site(`some_function_name_${i}+0x${(i * 4).toString(16)}`));
    const packed = packEvents(sites);
    expect(packed.params).toHaveLength(1);
    expect(packed.params[0]).toMatch(/^kprobe_event=p:kseries\/ks0,some_function_name_0\+0x0;p:kseries\/ks1,/);
    expect(packed.params[0]!.length).toBeLessThanOrEqual(2048 - 160);
    expect(packed.atBoot.length).toBeGreaterThan(20);
    expect(packed.late.length).toBe(80 - packed.atBoot.length);
    expect(packed.late[0]!.definition).toMatch(/^p:kseries\/ks\d+ some_function_name_\d+\+0x[0-9a-f]+$/);
    expect(packed.byEvent.get(sites[79]!)!.atBoot).toBe(false);
  });

  test('sites in __init code go first, and one that cannot be on the command line gets no event', () => {
    const late = site('hot+0x10');
    const init = site('setup_thing+0x4', true);
    const packed = packEvents([late, init], 'kprobe_event='.length + 'p:kseries/ks0 setup_thing+0x4'.length);
    expect(packed.atBoot.map((e) => e.definition)).toEqual(['p:kseries/ks0 setup_thing+0x4']);
    expect(packed.late.map((e) => e.definition)).toEqual(['p:kseries/ks1 hot+0x10']);
    const none = packEvents([init], 10);
    expect(none.byEvent.has(init)).toBe(false);
    expect(none.params).toEqual([]);
  });
});

describe('the minimal config of a measurement', () => {
  const files: Record<string, string> = {
    Makefile: 'obj-y += kernel/ mm/ drivers/ net/ samples/\n',
    'kernel/Makefile': 'obj-y += fork.o\nobj-$(CONFIG_RCU_TORTURE_TEST) += torture.o\n',
    'mm/Makefile': 'obj-$(CONFIG_MEMCG) += memcontrol.o\n',
    'drivers/Makefile': 'obj-$(CONFIG_FOO) += foo.o\n',
    'net/Makefile': 'obj-$(CONFIG_BT) += bluetooth.o\n',
    'samples/Makefile': 'obj-$(CONFIG_SAMPLES) += s.o\n',
    'kernel/power/Makefile': 'obj-$(CONFIG_ACPI) += acpi.o\n',
  };
  const read = async (f: string) => files[f];

  test('core objects get their symbols; drivers, samples, other architectures, tests and absent hardware stay out, each with why', async () => {
    const plans = await objectPlans(['kernel/fork.o', 'mm/memcontrol.o', 'drivers/foo.o', 'kernel/torture.o', 'net/bluetooth.o', 'samples/s.o', 'arch/arm/x.o'], read, new Set());
    const by = Object.fromEntries(plans.map((p) => [p.object, p]));
    expect(by['kernel/fork.o']).toEqual({ object: 'kernel/fork.o', symbols: [] });
    expect(by['mm/memcontrol.o']).toEqual({ object: 'mm/memcontrol.o', symbols: ['MEMCG'] });
    expect(by['drivers/foo.o']!.leftOff).toMatch(/driver the base config does not build/);
    expect(by['kernel/torture.o']!.leftOff).toBe('CONFIG_RCU_TORTURE_TEST is left off: it changes the kernel being measured');
    expect(by['net/bluetooth.o']!.leftOff).toBe('CONFIG_BT is left off: the QEMU guest never runs that code');
    expect(by['samples/s.o']!.leftOff).toMatch(/sample code/);
    expect(by['arch/arm/x.o']!.leftOff).toMatch(/^arm code: the measured kernel is x86-64/);
    const [acpi] = await objectPlans(['kernel/power/acpi.o'], read, new Set());
    expect(acpi!.leftOff).toBe('CONFIG_ACPI is left off: it changes the kernel being measured');
  });

  test('a driver the base already builds needs nothing', async () => {
    const [plan] = await objectPlans(['drivers/foo.o'], read, new Set(['FOO']));
    expect(plan).toEqual({ object: 'drivers/foo.o', symbols: [] });
  });
});

describe('the writers a boot exercises', () => {
  const c = `static DEFINE_STATIC_KEY_FALSE(nosocket_key);
static DEFINE_STATIC_KEY_FALSE(nobpf_key);
static DEFINE_STATIC_KEY_FALSE(ready_key);
static DEFINE_STATIC_KEY_TRUE(on_key);

static int __init cgroup_memory(char *s)
{
	char *token;

	while ((token = strsep(&s, ",")) != NULL) {
		if (!strcmp(token, "nosocket"))
			static_branch_enable(&nosocket_key);
		if (!strcmp(token, "nobpf"))
			static_branch_enable(&nobpf_key);
	}
	return 1;
}
__setup("cgroup.memory=", cgroup_memory);

static int __init set_on(char *arg)
{
	bool v;

	if (kstrtobool(arg, &v))
		return -EINVAL;
	if (!v)
		static_branch_disable(&on_key);
	return 0;
}
early_param("thing_on", set_on);

static int __init ready(void)
{
	static_branch_enable(&ready_key);
	return 0;
}
late_initcall(ready);

void foo_set(bool on)
{
	if (on)
		static_branch_enable(&ready_key);
}
`;

  test('each write is placed in its function and registration, and __setup values come from the comparisons above it', () => {
    const w = keyWriters(c);
    expect(w.map((x) => [x.function, x.runs, x.param])).toEqual([
      ['cgroup_memory', 'param', 'cgroup.memory=nosocket'],
      ['cgroup_memory', 'param', 'cgroup.memory=nobpf'],
      ['set_on', 'param', 'thing_on=0'],
      ['ready', 'initcall', undefined],
      ['foo_set', 'elsewhere', undefined],
    ]);
    expect(w[0]!.line).toBe(12);
    expect(w.map((x) => x.key)).toEqual(['nosocket_key', 'nobpf_key', 'on_key', 'ready_key', 'ready_key']);
    expect(writerParams(w)).toEqual(['cgroup.memory=nosocket,nobpf', 'thing_on=0']);
  });

  test('a diff that adds a static key or a write of one is booted; other diffs are not', () => {
    expect(addsStaticKey('+static DEFINE_STATIC_KEY_FALSE(k);\n')).toBe(true);
    expect(addsStaticKey('+\t\tstatic_branch_enable(&k);\n')).toBe(true);
    expect(addsStaticKey('-static DEFINE_STATIC_KEY_FALSE(k);\n+int x;\n')).toBe(false);
    expect([...keysAdded('+static DEFINE_STATIC_KEY_FALSE_RO(a_key);\n+\t\tstatic_branch_enable(&b_key);\n \tstatic_branch_inc(&c_key);\n')]).toEqual(['a_key', 'b_key']);
  });
});

describe('what fails a boot', () => {
  test('a might_sleep BUG, a lockdep report and a WARNING are quoted with the line after; an ordinary boot is clean', () => {
    const log = [
      '[    1.000000] Run /init as init process',
      '[    1.200000] BUG: sleeping function called from invalid context at kernel/locking/mutex.c:585',
      '[    1.200001] in_atomic(): 1, irqs_disabled(): 0, non_block: 0, pid: 1, name: swapper/0',
      '[    1.300000] ======================================================',
      '[    1.300001] WARNING: possible circular locking dependency detected',
      '[    1.300002] 6.12.57 #1 Not tainted',
    ].join('\n');
    expect(consoleFailures(log)).toEqual([
      'BUG: sleeping function called from invalid context at kernel/locking/mutex.c:585',
      '  in_atomic(): 1, irqs_disabled(): 0, non_block: 0, pid: 1, name: swapper/0',
      'WARNING: possible circular locking dependency detected',
      '  6.12.57 #1 Not tainted',
    ]);
    expect(consoleFailures('[ 0.5] Freeing unused kernel image (initmem) memory: 1024K\n@@kseries done\n')).toEqual([]);
  });
});

test('the boot in the check report: the statement, each writer and how it ran, the failing lines', () => {
  const b: BootReport = {
    config: 'minimal+lockdep', accel: 'tcg', accelWhy: '/dev/kvm is missing', params: ['cgroup.memory=nosocket'], seconds: 41.5, consoleLog: '/c/console.log',
    writers: [
      { file: 'mm/memcontrol.c', line: 7, function: 'cgroup_memory', call: 'static_branch_enable(&k);', runs: 'param', param: 'cgroup.memory=nosocket' },
      { file: 'kernel/panic.c', line: 9, function: 'p_init', call: 'static_branch_enable(&p);', runs: 'initcall' },
    ],
    toggles: [],
    failures: ['BUG: sleeping function called from invalid context at kernel/cpu.c:1', '  in_atomic(): 1'], ok: false,
    statement: 'does not boot clean on x86-64 minimal+lockdep in QEMU/TCG, writers exercised: cgroup.memory=nosocket, p_init() (initcall)',
  };
  expect(formatBoot(b)).toEqual([
    'boot FAILED: does not boot clean on x86-64 minimal+lockdep in QEMU/TCG, writers exercised: cgroup.memory=nosocket, p_init() (initcall) (41.5 s; /dev/kvm is missing)',
    '  writer mm/memcontrol.c:7 cgroup_memory(): runs with cgroup.memory=nosocket',
    '  writer kernel/panic.c:9 p_init(): an initcall: runs on every boot',
    '  | BUG: sleeping function called from invalid context at kernel/cpu.c:1',
    '  |   in_atomic(): 1',
    '  console log: /c/console.log',
  ]);
});

describe('interfaces that switch a key, read back in the booted kernel', () => {
  const param = `static DEFINE_STATIC_KEY_FALSE(q_key);\nstatic int q_set(const char *val, const struct kernel_param *kp)\n{\n\tstatic_branch_enable(&q_key);\n\treturn 0;\n}\nstatic const struct kernel_param_ops q_ops = {\n\t.set = q_set,\n};\nmodule_param_cb(quiet, &q_ops, NULL, 0644);\n`;
  const sysctl = `static DEFINE_STATIC_KEY_TRUE(s_key);\nstatic int s_sysctl(const struct ctl_table *t, int w, void *b, size_t *l, loff_t *p)\n{\n\tret = proc_dointvec_minmax(&tmp, w, b, l, p);\n\tstatic_branch_disable(&s_key);\n}\nstatic struct ctl_table tab[] = {\n\t{\n\t\t.procname = "strict",\n\t\t.proc_handler = s_sysctl,\n\t},\n};\nstatic int __init i(void)\n{\n\tregister_sysctl_init("fs", tab);\n}\n`;
  const keys = new Set(['q_key', 's_key']);

  test('a module parameter and a sysctl whose handlers switch added keys are probed, with what they must read', () => {
    const probes = [...toggleProbes('kernel/printk/printk.c', param, keys, () => false), ...toggleProbes('fs/namei.c', sysctl, keys, () => true)];
    expect(probes.map((p) => [p.path, p.initial, p.writes.map((w) => `${w.value}:${w.expect}`).join(' ')])).toEqual([
      ['/sys/module/printk/parameters/quiet', 'N', '1:Y n:N on:Y 0:N 2:refused'],
      ['/proc/sys/fs/strict', '1', '1:1 0:0 2:refused -1:refused'],
    ]);
    expect(toggleProbes('t.c', param.replace('0644', '0444'), keys, () => false)).toEqual([]);
    const script = toggleScript(probes);
    expect(script).toContain('if echo 2 > $f 2>/dev/null; then echo "@@kseries toggle $f write 2 ok $(cat $f)"; else echo "@@kseries toggle $f write 2 refused $(cat $f)"; fi');
  });

  test('the console against the expectations: a write taken that should be refused, a wrong value, a missing file', () => {
    const [p] = toggleProbes('fs/namei.c', sysctl, keys, () => true);
    const good = ['read 1', 'write 1 ok 1', 'write 0 ok 0', 'write 2 refused 0', 'write -1 refused 0'].map((l) => `@@kseries toggle ${p!.path} ${l}`).join('\n');
    expect(judgeToggles([p!], good)).toEqual([]);
    expect(judgeToggles([p!], good.replace('write 2 refused 0', 'write 2 ok 1'))).toEqual([`${p!.path} (fs/namei.c:10): writing 2 gave "write 2 ok 1", expected "write 2 refused 0"`]);
    expect(judgeToggles([p!], `@@kseries toggle ${p!.path} missing`)).toEqual([`${p!.path} (fs/namei.c:10): not in the booted kernel`]);
  });
});

test('one KUnit build folder per kunitconfig: the two kprobe series, whose lines agree in any order, share it', () => {
  const env = { KSERIES_CACHE: '/cache' };
  const kprobes = ['CONFIG_KUNIT=y', 'CONFIG_KPROBES=y', 'CONFIG_KPROBES_SANITY_TEST=y'];
  expect(kunitKernelDir(kprobes, env)).toMatch(/^\/cache\/build\/shared\/kunit\.py\+[0-9a-f]{10}$/);
  expect(kunitKernelDir([...kprobes].reverse(), env)).toBe(kunitKernelDir(kprobes, env));
  expect(kunitKernelDir([...kprobes, 'CONFIG_MODULES=y'], env)).not.toBe(kunitKernelDir(kprobes, env));
});

test("a new kunitconfig's folder is seeded from its newest sibling folder, not from the results and kunitconfig files beside them", () => {
  const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-seed-'));
  const env = { KSERIES_CACHE: cache };
  const old = kunitKernelDir(['CONFIG_KUNIT=y'], env);
  fs.mkdirSync(old, { recursive: true });
  for (const f of ['vmlinux', '.config']) fs.writeFileSync(path.join(old, f), f);
  for (const x of ['.kunitconfig', '.base.results.json']) fs.writeFileSync(`${old}${x}`, '{}');
  const fresh = kunitKernelDir(['CONFIG_KUNIT=y', 'CONFIG_KPROBES=y'], env);
  seedKunitDir(fresh, env);
  expect(fs.readFileSync(path.join(fresh, 'vmlinux'), 'utf8')).toBe('vmlinux');
});

test("a kunitconfig line whose symbol the commit's Kconfig files do not define is left out at that commit (a series' own test)", async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-kconfig-'));
  const git = (...args: string[]) => execFileSync('git', args, { cwd: root, encoding: 'utf8' }).trim();
  git('init', '-q');
  fs.writeFileSync(path.join(root, 'Kconfig'), 'config KUNIT\n\tbool "KUnit"\n');
  git('add', '.');
  git('commit', '-q', '-m', 'base');
  const base = git('rev-parse', 'HEAD');
  fs.mkdirSync(path.join(root, 'arch'));
  fs.writeFileSync(path.join(root, 'arch/Kconfig.debug'), 'config X86_KPROBES_KUNIT_TEST\n\ttristate "tests"\n');
  git('add', '.');
  git('commit', '-q', '-m', 'test');
  const config = ['CONFIG_KUNIT=y', 'CONFIG_X86_KPROBES_KUNIT_TEST=y'];
  expect(await definedAt({ root } as never, base, config)).toEqual({ kept: ['CONFIG_KUNIT=y'], leftOut: ['CONFIG_X86_KPROBES_KUNIT_TEST=y'] });
  expect(await definedAt({ root } as never, git('rev-parse', 'HEAD'), config)).toEqual({ kept: config, leftOut: [] });
});

test('a KUnit run states the values of the symbols it is asked for, and leaves out those the .config does not name', () => {
  const config = ['CONFIG_OPTPROBES=y', '# CONFIG_PREEMPT is not set', 'CONFIG_PREEMPT_VOLUNTARY=y', 'CONFIG_NR_CPUS=64', ''].join('\n');
  expect(configSettings(config, ['CONFIG_PREEMPT', 'CONFIG_PREEMPT_VOLUNTARY', 'CONFIG_RETPOLINE', 'CONFIG_OPTPROBES', 'CONFIG_NR_CPUS'])).toEqual([
    { name: 'CONFIG_PREEMPT', value: 'n' },
    { name: 'CONFIG_PREEMPT_VOLUNTARY', value: 'y' },
    { name: 'CONFIG_OPTPROBES', value: 'y' },
    { name: 'CONFIG_NR_CPUS', value: '64' },
  ]);
});
