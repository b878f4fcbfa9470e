// Every sentence of a static-keys message follows a fact of that patch: one C file per case, differing from the
// base case in one fact (a hint kept or added, a __setup() or an initcall writer, a lock held or not, enable only or
// enable and disable, a test the compiler copies), planned and rendered as generate does; the sentence changes with it.
import { archesText, succeededCall } from '../../src/recipes/static-key/tree-wide/facts.js';
import { anyArch, archView } from '../../src/recipes/static-key/arch.js';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { loadRecipe, recipeDirs } from '../../src/recipes/load.js';
import { historyPrefix } from '../../src/subsystems/groups.js';
import { carriable, carriedOnRequest, decide, NO_ANSWERS, scanFacts, scanFile } from '../../src/recipes/static-key/scan.js';
import { convertFlag } from '../../src/recipes/static-key/convert.js';
import type { Route } from '../../src/subsystems/route.js';
import { planSeries, planSplit, type PlanInput } from '../../src/series/plan.js';
import type { TemplateVars } from '../../src/templates/render.js';

const TEST_UNHINTED = 'void hot(void)\n{\n\tif (flag)\n\t\tslow();\n}\n';
const TEST_HINTED = 'void hot(void)\n{\n\tif (unlikely(flag))\n\t\tslow();\n}\n';
const SETUP = 'static int __init flag_setup(char *s)\n{\n\tflag = true;\n\treturn 1;\n}\n__setup("flag", flag_setup);\n';
const INITCALL = 'static int __init flag_init(void)\n{\n\tflag = true;\n\treturn 0;\n}\nlate_initcall(flag_init);\n';
const INITCALL_LOCKED = 'static DEFINE_MUTEX(flag_mutex);\nstatic int __init flag_init(void)\n{\n\tmutex_lock(&flag_mutex);\n\tflag = true;\n\tmutex_unlock(&flag_mutex);\n\treturn 0;\n}\nlate_initcall(flag_init);\n';
const SETUP_BOTH = 'static int __init flag_setup(char *s)\n{\n\tif (*s == \'0\')\n\t\tflag = false;\n\telse\n\t\tflag = true;\n\treturn 1;\n}\n__setup("flag=", flag_setup);\n';

const source = (...parts: string[]) => `static bool flag __read_mostly;\n\n${parts.join('\n')}`;

/** The series static-keys plans for these files, as generate would with these services and draft figures. */
function plan(files: Record<string, string>, opts: PlanOpts = {}) {
  return planSeries(input(files, opts));
}

interface PlanOpts {
  measured?: TemplateVars | false;
  maintainers?: (f: string) => string[];
  subjectsOf?: (f: string) => Promise<string[]>;
  routeOf?: (f: string) => Promise<Route>;
  docsNaming?: (word: string) => Promise<string[]>;
  given?: Record<string, string>;
}

function input(files: Record<string, string>, opts: PlanOpts): PlanInput {
  return {
    recipe: loadRecipe('static-keys', recipeDirs(undefined, {})),
    given: { minRate: '0', ...opts.given },
    tree: { root: '/nonexistent', version: '6.12.0' },
    readBase: async (f: string) => files[f],
    services: {
      flagCandidates: async () => Object.entries(files).flatMap(([f, t]) => scanFile(f, t)),
      maintainersOf: async (f: string) => opts.maintainers?.(f) ?? ['M <m@kernel.org>'],
      subjectsOf: opts.subjectsOf,
      routeOf: opts.routeOf,
      docsNaming: opts.docsNaming,
    },
    measured: [opts.measured ?? false],
  };
}

/** The one patch's message for `text` as kernel/k.c, its paragraphs on one line each. */
async function message(text: string, measured: TemplateVars | false = false): Promise<string> {
  const p = await plan({ 'kernel/k.c': text }, { measured });
  expect(p.patches).toHaveLength(1);
  return p.patches[0]!.body.replace(/\n(?! )/g, ' ');
}

describe('hints', () => {
  test('a test without a hint: the message says it got one, not that hints are kept', async () => {
    const m = await message(source(TEST_UNHINTED, SETUP));
    expect(m).toContain('The tests had no likely()/unlikely() hint; each becomes static_branch_unlikely()');
    expect(m).not.toContain('keeps its likely()/unlikely() hint');
  });
  test('a test with unlikely(): the message says the hint is kept', async () => {
    const m = await message(source(TEST_HINTED, SETUP));
    expect(m).toContain('Each test keeps its likely()/unlikely() hint.');
    expect(m).not.toContain('had no likely()/unlikely() hint');
  });
  test('one of each: both counted', async () => {
    const m = await message(source(TEST_HINTED, TEST_UNHINTED.replace('hot', 'warm'), SETUP));
    expect(m).toContain('1 of the tests keep their likely()/unlikely() hint; the 1 without one become static_branch_unlikely()');
  });
});

describe('writers', () => {
  test('a __setup() handler: called from start_kernel() with interrupts off, before sched_init(), and why it may switch a key there', async () => {
    const m = await message(source(TEST_HINTED, SETUP));
    expect(m).toContain('flag_setup() is a __setup() handler: parse_args() calls it from start_kernel() after jump_label_init(), only when the command line gives its option, with interrupts still off and before sched_init(). static_branch_enable() may sleep elsewhere but is called this early in-tree too: the __setup() handler of schedstats=, setup_schedstats(), calls static_branch_enable() (kernel/sched/core.c). While system_state is SYSTEM_BOOTING, might_sleep() does not report that interrupts are off; only its RCU check runs');
    expect(m).not.toMatch(/checks nothing|text_poke_early/);
    expect(m).not.toMatch(/process context|initcall/);
  });
  test('an early_param() handler: the architectures that build the file are named, with where each parses early parameters after jump_label_init()', async () => {
    const arch = archView({ all: ['arm', 'x86'], jumpLabel: ['arm', 'x86'], earlyParamsAfterJumpLabel: ['x86'], earlyBefore: { arm: ['arch/arm/kernel/setup.c:1150'] }, earlyAfter: { x86: ['arch/x86/kernel/setup.c:950'] } });
    const file = 'arch/x86/kernel/k.c';
    const text = source(TEST_HINTED, 'static int __init flag_early(char *s)\n{\n\tflag = true;\n\treturn 0;\n}\nearly_param("flag", flag_early);\n');
    const base = input({ [file]: text }, {});
    const p = await planSeries({ ...base, services: { ...base.services, flagCandidates: async () => scanFile(file, text, arch) } as PlanInput['services'] });
    const m = p.patches[0]!.body.replace(/\n(?! )/g, ' ');
    expect(m).toContain('is a bool flag that is set only by the early_param() handler flag_early() and tested');
    expect(m).toContain('flag_early() is an early_param() handler: on x86, the only architecture that builds this file, parse_early_param() calls it after jump_label_init() (arch/x86/kernel/setup.c:950), only when the command line gives its option');
    expect(archesText([{ arch: 'arm64', where: 'arch/arm64/kernel/setup.c:300' }, { arch: 'x86', where: 'arch/x86/kernel/setup.c:950' }])).toEqual({ names: 'arm64 and x86, every architecture that builds this file', where: 'arch/arm64/kernel/setup.c:300; arch/x86/kernel/setup.c:950' });
  });

  test("a flag set only by a boot option: its key is a NOP while the command line gives no such option", async () => {
    const m = await message(source(TEST_HINTED, SETUP_BOTH));
    expect(m).toContain('one instruction that is a NOP while the command line gives no flag=,');
    expect(m).not.toContain('value of a running system,');
    const init = await message(source(TEST_HINTED, INITCALL));
    expect(init).toContain('one instruction that is a NOP once the initcall flag_init() has switched the key,');
  });
  test('an initcall: process context, where the call may sleep; no lock, so nothing said of one', async () => {
    const m = await message(source(TEST_HINTED, INITCALL));
    expect(m).toContain('flag_init() runs from an initcall on every boot: do_initcalls() calls it in the kernel_init thread, in process context with interrupts on, where static_branch_enable() may sleep.');
    expect(m).not.toContain('lock');
    expect(m).not.toMatch(/__setup|start_kernel/);
  });
  test('an initcall that returns early when a call fails sets the flag only when that call succeeds, and says so', async () => {
    const registering = 'static int __init flag_init(void)\n{\n\tint rc;\n\n\trc = register_family(&fam);\n\tif (rc)\n\t\treturn rc;\n\n\tflag = true;\n\treturn 0;\n}\nlate_initcall(flag_init);\n';
    const m = await message(source(TEST_HINTED, registering));
    // Said once, where the flag's value after boot is argued.
    expect(m).toContain('As that initcall changes it on every boot where register_family() succeeds,');
    expect(m.match(/register_family\(\)/g)).toHaveLength(1);
    expect(m).toContain('a NOP once the initcall flag_init() has switched the key,');
    expect(succeededCall('\n\tint err = 0;\n\terr = foo_init(x);\n\tif (err < 0) {\n\t\tpr_err("no");\n\t\treturn err;\n\t}\n')).toBe('foo_init()');
    expect(succeededCall('\n\trc = foo();\n\tif (rc)\n\t\tgoto out;\n')).toBe(false);
  });
  test('one writer of two flags (as cgroup.memory= sets nosocket and nobpf) is described once in their patch', async () => {
    const two = 'static bool one __read_mostly;\nstatic bool two __read_mostly;\n\nvoid hot(void)\n{\n\tif (unlikely(one))\n\t\tslow();\n\tif (unlikely(two))\n\t\tslower();\n}\n\nstatic int __init both_setup(char *s)\n{\n\tone = true;\n\ttwo = true;\n\treturn 1;\n}\n__setup("both", both_setup);\n';
    const m = await message(two);
    expect(m.match(/both_setup\(\) is a __setup\(\) handler/g)).toHaveLength(1);
    expect(m).toContain('Turn one into the static key one_key');
    expect(m).toContain('Turn two into the static key two_key');
  });
  test('a flag only boot-time code writes becomes an _RO key, and the message says why; a __ro_after_init one says nothing new', async () => {
    const m = await message(source(TEST_HINTED, INITCALL));
    expect(m).toContain('As only boot-time code writes it, before mark_readonly(), the key is defined with DEFINE_STATIC_KEY_FALSE_RO(): read-only after init.');
    const ro = await message(source(TEST_HINTED, INITCALL).replace('static bool flag __read_mostly;', 'static bool flag __ro_after_init;'));
    expect(ro).not.toContain('mark_readonly');
  });
  test('a flag the same option sets that stays a flag is named, with the scan\'s reason (cgroup_memory_nokmem)', async () => {
    const three = 'static bool one __read_mostly;\nstatic bool kept __read_mostly;\n\nvoid hot(void)\n{\n\tif (unlikely(one))\n\t\tslow();\n}\n\nbool kept_value(void)\n{\n\treturn kept;\n}\n\nstatic int __init both_setup(char *s)\n{\n\tone = true;\n\tkept = true;\n\treturn 1;\n}\n__setup("both", both_setup);\n';
    const m = await message(three);
    expect(m).toMatch(/ kept, which the __setup\(\) handler both_setup\(\) also sets, stays a flag: the scan marks it reject: never tested in a branch condition\./);
  });
  test('an initcall holding a mutex: the lock is named', async () => {
    const m = await message(source(TEST_HINTED, INITCALL_LOCKED));
    expect(m).toMatch(/It holds mutex_lock\(\) at kernel\/k\.c:\d+ when it stores the flag\./);
    expect(m).not.toContain('takes no lock');
  });
  test('enable only, or enable and disable: the calls named are the calls the patch adds', async () => {
    const only = await message(source(TEST_HINTED, SETUP));
    expect(only).toContain('switches it with static_branch_enable() where it stored the flag');
    expect(only).not.toContain('static_branch_disable');
    const both = await message(source(TEST_HINTED, SETUP_BOTH));
    expect(both).toContain('switches it with static_branch_disable() and static_branch_enable() where it stored the flag');
  });
});

describe('figures', () => {
  const measured = (tests: number, functions: string[]): TemplateVars => ({
    ok: true,
    config: 'x86_64 defconfig plus CONFIG_X, CONFIG_WERROR off',
    compiler: 'gcc 12',
    proofs: [{ claim: 'flag -> flag_key', object: 'kernel/k.o', ok: true, sites: ['hot(): cmpb+je 9 bytes -> nop 2 bytes'], summary: 's', errors: [], figures: { tests, labels: tests }, functions }],
    bySubject: { flag: { figures: { tests, labels: tests }, functions } },
    sizes: [{ object: 'kernel/k.o', rows: ['text          100 ->  96 (-4)', '__jump_table    0 ->  16 (+16)', 'data            1 ->  16 (+15)', 'in all        101 -> 128 (+27)'] }],
    sizeDelta: 27,
  });
  test('one test in the source and one in the object: nothing about copies', async () => {
    const m = await message(source(TEST_HINTED, SETUP), measured(1, ['hot()']));
    expect(m).toContain('tested in 1 branch of the source (hot()).');
    expect(m).not.toContain('The compiled code has');
  });
  test('a test the compiler copied into two functions: both counts, and the functions the figures name', async () => {
    const m = await message(source(TEST_HINTED, SETUP), measured(2, ['hot()', 'caller()']));
    expect(m).toContain('tested in 1 branch of the source (hot()). The compiled code has 2 tests of it, in hot(), caller(): the compiler copies inlined code.');
  });
  test('one test, inlined into another function: the message names the function the figures name', async () => {
    const m = await message(source(TEST_HINTED, SETUP), measured(1, ['caller()']));
    expect(m).toContain('tested in 1 branch of the source (hot()). In the compiled code the test sits in caller(), where the compiler inlined it.');
  });
  test('the config as built and the cost of each object, before and after', async () => {
    const body = (await plan({ 'kernel/k.c': source(TEST_HINTED, SETUP) }, { measured: measured(1, ['hot()']) })).patches[0]!.body;
    expect(body.replace(/\n(?! )/g, ' ')).toContain('(x86_64 defconfig plus CONFIG_X, CONFIG_WERROR off; gcc 12;');
    expect(body).toContain('  kernel/k.o:\n    text          100 ->  96 (-4)\n    __jump_table    0 ->  16 (+16)\n');
  });
});

describe('leftovers', () => {
  test('a comment that named the flag names the key, a string that names it is left, and the message says so', async () => {
    const text = source('/* Set by flag_setup(): flag means slow. */\n', TEST_HINTED.replace('slow();', 'pr_info("flag\\n");'), SETUP.replace('"flag"', '"slow"'));
    const p = await plan({ 'kernel/k.c': text });
    const diff = p.patches[0]!.changes.map((c) => c.after ?? '').join('');
    expect(diff).toContain('/* Set by flag_setup(): flag_key means slow. */');
    expect(diff).toContain('pr_info("flag\\n");');
    expect(p.patches[0]!.body.replace(/\n(?! )/g, ' ')).toContain('A comment that named flag names flag_key now.');
  });
});

test('a comment naming a flag that a boot option of the file is named after is left, and the message says why', async () => {
  const text = source('/* flag: ask for the slow path on the command line */\n', TEST_HINTED, SETUP);
  const p = await plan({ 'kernel/k.c': text });
  const after = p.patches[0]!.changes.map((c) => c.after ?? '').join('');
  expect(after).toContain('/* flag: ask for the slow path on the command line */');
  expect(p.patches[0]!.body.replace(/\n(?! )/g, ' ')).toContain('Comments that name flag are left as they are: the boot option "flag" has that name.');
});

test('documentation that names the flag: the message and generate say so; none, nothing said', async () => {
  const files = { 'kernel/k.c': source(TEST_HINTED, SETUP) };
  const named = await plan(files, { docsNaming: async (w) => (w === 'flag' ? ['Documentation/admin-guide/k.rst'] : []) });
  expect(named.patches[0]!.body.replace(/\n/g, ' ')).toContain("Documentation/admin-guide/k.rst still names flag; it is left as it is: the flag's meaning does not change.");
  expect(named.prepared!.notices).toEqual(['Documentation/admin-guide/k.rst still names flag: see whether it needs a word on flag_key']);
  const none = await plan(files, { docsNaming: async () => [] });
  expect(none.patches[0]!.body).not.toContain('still name');
  expect(none.prepared!.notices).toEqual([]);
});

test('a file no MAINTAINERS entry covers: the cover letter says so and asks who takes it', async () => {
  const files: Record<string, string> = { 'kernel/a.c': source(TEST_HINTED, SETUP), 'kernel/b.c': source(TEST_UNHINTED, INITCALL) };
  const p = await plan(files, { maintainers: (f) => (f === 'kernel/a.c' ? ['M <m@kernel.org>'] : []) });

  const cover = p.cover.body.replace(/\n/g, ' ');
  expect(cover).toContain('No MAINTAINERS entry covers kernel/b.c, so get_maintainer.pl names only the lists for that file: who should take its patch?');
  expect(cover).toContain('Found with kseries scan static-keys.');
  expect(cover).toContain('by __setup() handlers and initcalls.');
  expect(cover).not.toMatch(/judged|proofs? hold/);
});

describe('routing: one series per maintainer tree', () => {
  const routes: Record<string, Route> = {
    'kernel/time/clocksource.c': { tree: 'tip/tip timers/core', slug: 'tip-timers-core', entry: 'TIMEKEEPING, CLOCKSOURCE CORE', prefix: 'clocksource', lists: [] },
    'net/core/sock.c': { tree: 'netdev/net-next', slug: 'net-next', tag: 'net-next', entry: 'NETWORKING [SOCKETS]', prefix: 'sockets', lists: ['netdev@vger.kernel.org'] },
    'kernel/tracepoint.c': { tree: 'torvalds/linux', slug: 'linux', lists: ['linux-kernel@vger.kernel.org'] },
  };
  const files = Object.fromEntries(Object.keys(routes).map((f) => [f, source(TEST_HINTED, SETUP)]));
  const opts: PlanOpts = { routeOf: async (f) => routes[f]!, maintainers: (f) => (routes[f]!.entry ? ['M <m@kernel.org>'] : []), measured: false };

  test('each tree gets its own series, its own tag, the prefix of its MAINTAINERS entry; a file with no maintainer is named', async () => {
    const whole = await plan(files, opts);
    expect(whole.name).toBe('static-keys');
    expect(whole.prepared!.notices).toEqual(['no maintainer for kernel/tracepoint.c: only linux-kernel@vger.kernel.org']);
    const plans = await planSplit({ ...input(files, opts), prepared: whole.prepared! }, whole, () => false);
    expect(plans.map((p) => [p.name, p.subjectTag, p.patches.map((x) => x.subject)])).toEqual([
      ['static-keys-tip-timers-core', undefined, ['clocksource: Convert flag to a static key']],
      ['static-keys-linux', undefined, ['tracepoint: Convert flag to a static key']],
      ['static-keys-net-next', 'net-next', ['sockets: Convert flag to a static key']],
    ]);
    const [tip, rest, net] = plans.map((p) => p.cover.body.replace(/\n/g, ' '));
    expect(tip).toContain('The patches are for tip/tip timers/core, as MAINTAINERS says for that file; files of other trees get series of their own.');
    expect(tip).not.toContain('sock.c');
    expect(net).toContain('net/core/sock.c:');
    expect(net).not.toContain('clocksource');
    expect(rest).toContain('No MAINTAINERS entry covers kernel/tracepoint.c');
  });
});

describe('subject prefixes', () => {
  test.each([
    [['clocksource: Fix a race', 'clocksource: Use pr_info', 'time/clocksource: Old style'], 'clocksource'],
    [['net: ipv4: tcp: Fix x', 'Revert "tcp: y"', 'net: ipv4: tcp: Fix z', 'tcp: Other'], 'net: ipv4: tcp'],
    [['[PATCH] mm/memcontrol: Fix', 'mm: memcontrol: Add'], 'mm/memcontrol'],
    [['Merge branch x', 'no prefix at all'], undefined],
    [[], undefined],
  ])('%j -> %s', (subjects, prefix) => expect(historyPrefix(subjects)).toBe(prefix));

  test("a file's history decides its patch's prefix; without history the path does", async () => {
    const text = source(TEST_HINTED, SETUP);
    const subjects = async () => ['clocksource: Fix a race', 'clocksource: Use pr_info', 'time/clocksource: Old style'];

    expect((await plan({ 'kernel/time/clocksource.c': text }, { subjectsOf: subjects })).patches[0]!.subject).toBe('clocksource: Convert flag to a static key');
    expect((await plan({ 'kernel/time/clocksource.c': text })).patches[0]!.subject).toBe('time/clocksource: Convert flag to a static key');
    // mm writes "memcg: convert ...": the history's case of the first word is kept.
    const mm = async () => ['memcg: fix a leak', 'memcg: use folio', 'memcg: Remove a check', 'Revert "memcg: x"'];
    expect((await plan({ 'mm/memcontrol.c': text }, { subjectsOf: mm })).patches[0]!.subject).toBe('memcg: convert flag to a static key');
  });
});

describe('--toggles: runtime toggles converted with a setter beside the boot-time flags', () => {
  const fixture = (name: string) => fs.readFileSync(path.resolve(__dirname, `../../src/recipes/static-key/toggle/__fixtures__/${name}.input.c`), 'utf8');
  const files = { 'kernel/k.c': source(TEST_HINTED, SETUP), 'kernel/sysctl.c': fixture('sysctl-minmax') };
  const toggleFlag = JSON.parse(fs.readFileSync(path.resolve(__dirname, '../../src/recipes/static-key/toggle/__fixtures__/sysctl-minmax.json'), 'utf8')).flag as string;

  test('without --toggles only the boot-time flag; with it the toggle too, its message naming the interface it keeps', async () => {
    expect((await plan(files)).patches.map((p) => p.subject)).toEqual(['k: Convert flag to a static key']);
    const p = await plan(files, { given: { toggles: 'true' }, maintainers: () => ['M <m@kernel.org>'] });
    expect(p.patches.map((x) => x.subject)).toEqual(['kernel: Convert 2 flags to static keys']);
    const body = p.patches[0]!.body.replace(/\n(?! )/g, ' ');
    expect(body).toMatch(new RegExp(`${toggleFlag} in kernel/sysctl\\.c is an? (bool|int) flag written through the sysctl `));
    expect(body).toContain('The sysctl keeps its name, mode and limits');
    expect(body).toContain('flag in kernel/k.c is a bool flag that is set only by the __setup() handler flag_setup()');
    expect(p.cover.subject).toBe('Convert 2 flags to static keys');
    expect(p.cover.body.replace(/\n/g, ' ')).toContain('Each runtime toggle is written through a module parameter, a sysctl or a debugfs file');
    const after = p.patches[0]!.changes.find((c) => c.file === 'kernel/sysctl.c')!.after!;
    expect(after).toBe(fs.readFileSync(path.resolve(__dirname, '../../src/recipes/static-key/toggle/__fixtures__/sysctl-minmax.output.c'), 'utf8'));
  });

  test('--only names a toggle: refused without --toggles, with the hint to add it', async () => {
    await expect(plan(files, { given: { only: toggleFlag } })).rejects.toThrow(/the scan says manual/);
    await expect(plan(files, { given: { only: toggleFlag } })).rejects.toMatchObject({ hint: expect.stringMatching(/add --toggles/) });
    expect((await plan(files, { given: { only: toggleFlag, toggles: 'true' } })).patches).toHaveLength(1);
  });
});

describe('a manual flag read as a value: carried as an RFC', () => {
  const VALUE = 'bool flag_on(void)\n{\n\treturn flag;\n}\n';
  const files = { 'kernel/a.c': source(TEST_HINTED, SETUP), 'kernel/b.c': source(TEST_HINTED, SETUP, VALUE) };

  test('the auto flag gets its series, the value-read one an RFC series whose patch reads static_key_enabled() there and whose cover is the checklist', async () => {
    const whole = await plan(files);
    const plans = await planSplit({ ...input(files, {}), prepared: whole.prepared! }, whole, () => false);
    expect(plans.map((p) => [p.name, !!p.rfc, p.patches.length])).toEqual([
      ['static-keys', false, 1],
      ['static-keys-rfc', true, 1],
    ]);
    const rfc = plans[1]!;
    const b = rfc.patches[0]!.changes.find((c) => c.file === 'kernel/b.c')!;
    expect(b.after).toContain('\treturn static_key_enabled(&flag_key);\n');
    const body = rfc.patches[0]!.body.replace(/\n(?! )/g, ' ');
    expect(body).toContain('An RFC: the scan could not clear flag on its own (read as a value at line 18: `return flag;`). That read becomes static_key_enabled(&flag_key) (line 18), which is true exactly when the key is enabled, as the flag was.');
    expect(rfc.cover.body).toContain('    [x] static_key_enabled() for the value read at line 18: line 18 reads static_key_enabled(&flag_key)');
    expect(plans[0]!.cover.body).not.toContain('RFC');
  });
});

test('convertFlag with values: a returned value and a READ_ONCE() printk argument become static_key_enabled(); without it the flag is refused', () => {
  const text = `static bool f;\n${TEST_HINTED.replace(/flag/g, 'f')}bool on(void)\n{\n\treturn f;\n}\nvoid show(void)\n{\n\tpr_info("%d\\n", READ_ONCE(f));\n}\n${SETUP.replace(/flag/g, 'f')}`;
  const frag = { define: () => 'DEFINE_STATIC_KEY_FALSE(f_key);', read: () => 'static_branch_unlikely(&f_key)', write: () => 'static_branch_enable(&f_key)', include: () => '#include <linux/jump_label.h>', value: () => 'static_key_enabled(&f_key)' };
  const conv = convertFlag('k.c', text, 'f', 'f_key', frag, undefined, { values: true });
  expect(conv.text).toContain('\treturn static_key_enabled(&f_key);\n');
  expect(conv.text).toContain('pr_info("%d\\n", static_key_enabled(&f_key));');
  expect(conv.values.map((v) => v.line)).toEqual([9, 13]);
  expect(() => convertFlag('k.c', text, 'f', 'f_key', frag)).toThrow(/read outside a branch condition/);
});

describe('a manual flag carried as an RFC when named', () => {
  // A shared flag (the page_group_by_mobility_disabled shape): defined in mm/a.c, declared in a header, tested in
  // another header's inline function, written where kseries cannot place every caller, and printed as a value.
  const definer = [
    '#include <linux/mm.h>',
    '',
    'int grouping_off __read_mostly;',
    '',
    'void hot(void)',
    '{',
    '\tif (grouping_off)',
    '\t\tslow();',
    '}',
    '',
    'void rebuild(void)',
    '{',
    '\tif (few_pages())',
    '\t\tgrouping_off = 1;',
    '\telse',
    '\t\tgrouping_off = 0;',
    '\tpr_info("grouping %s\\n", grouping_off ? "off" : "on");',
    '}',
    '',
  ].join('\n');
  const header = '#ifndef _A_H\n#define _A_H\n#include <linux/types.h>\n\nextern int grouping_off;\n\n#endif\n';
  const inline = '#include <linux/a.h>\n\nstatic inline int migratetype(void)\n{\n\tif (unlikely(grouping_off))\n\t\treturn 0;\n\treturn 1;\n}\n';
  const other = 'static int grouping_off;\n\nvoid f(void)\n{\n\tif (grouping_off)\n\t\tg();\n}\n';
  const files: Record<string, string> = { 'mm/a.c': definer, 'include/linux/a.h': header, 'include/linux/b.h': inline, 'drivers/x.c': other, 'tools/y.c': inline };
  const answers = { ...NO_ANSWERS, shared: () => ({ header: 'include/linux/a.h', elsewhere: [] }) };

  function carried(given: Record<string, string>) {
    const base = input(files, { given });
    return planSeries({
      ...base,
      services: {
        ...base.services!,
        flagCandidates: async () => scanFacts('mm/a.c', definer).map((f) => decide(f, anyArch(), answers)),
        sourcesNaming: async (word: string) => Object.keys(files).filter((f) => new RegExp(`\\b${word}\\b`).test(files[f]!)),
      },
    });
  }

  test('the scan marks it manual; --only carries it: one patch converts the definition, the header and the other user', async () => {
    const [c] = scanFacts('mm/a.c', definer).map((f) => decide(f, anyArch(), answers));
    expect(c!.verdict).toBe('manual');
    expect(c!.shared).toEqual({ header: 'include/linux/a.h' });
    expect(carriable(c!)).toBe(false);
    expect(carriedOnRequest(c!)).toBe(true);
    const p = await carried({ only: 'grouping_off' });
    expect(p.patches).toHaveLength(1);
    const after = Object.fromEntries(p.patches[0]!.changes.map((ch) => [ch.file, ch.after]));
    // drivers/x.c has a grouping_off of its own; tools/ is no kernel code.
    expect(Object.keys(after).sort()).toEqual(['include/linux/a.h', 'include/linux/b.h', 'mm/a.c']);
    expect(after['mm/a.c']).toContain('\nDEFINE_STATIC_KEY_FALSE(grouping_off_key);\n');
    expect(after['mm/a.c']).toContain('static_key_enabled(&grouping_off_key) ? "off" : "on"');
    expect(after['include/linux/a.h']).toContain('\nDECLARE_STATIC_KEY_FALSE(grouping_off_key);\n');
    expect(after['include/linux/a.h']).toContain('#include <linux/jump_label.h>');
    expect(after['include/linux/b.h']).toContain('if (static_branch_unlikely(&grouping_off_key))');
    expect(after['include/linux/b.h']).not.toContain('jump_label.h');
    const body = p.patches[0]!.body.replace(/\n(?![ -])/g, ' ');
    expect(body).toContain('written by rebuild() (called where kseries could not place every caller) and tested in');
    expect(body).not.toContain('keeps its value once the system has booted');
    expect(body).toContain('include/linux/a.h declares it where it declared the flag; the test in migratetype() (include/linux/b.h) becomes a jump label too.');
    expect(body).toMatch(/Left to the reviewer: \n- a writer context kseries can establish: are static_branch_disable\(\)\s+and static_branch_enable\(\) right there\? written in rebuild\(\) \(mm\/a\.c\):[^]*\(lines 14, 16\)$/);
    // Each reason once: the writer's is in the question, not again in the RFC paragraph.
    expect(body.match(/written in rebuild\(\)/g)).toHaveLength(1);
  });

  test('without --only it is not proposed: the default takes auto flags and value-only ones', async () => {
    await expect(carried({})).rejects.toThrow(/no flag can be converted automatically/);
  });
});
