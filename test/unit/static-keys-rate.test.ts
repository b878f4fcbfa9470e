// generate static-keys with runtime evidence: which flags it proposes (on a hot path, or measured rate >= --min-rate; the
// hottest first),
// what every message says about the rate, and what it says when nothing was measured. Two small C files, a fake tree.
import { describe, expect, test } from 'vitest';
import { loadRecipe, recipeDirs } from '../../src/recipes/load.js';
import type { FlagHits, RuntimeEvidence } from '../../src/recipes/types.js';
import { planSeries } from '../../src/series/plan.js';
import { scanFile } from '../../src/recipes/static-key/scan.js';

const flagFile = (name: string) =>
  `static bool ${name} __read_mostly;\n\nvoid hot_${name}(void)\n{\n\tif (unlikely(${name}))\n\t\tslow();\n}\n\nstatic int __init ${name}_setup(char *s)\n{\n\t${name} = true;\n\treturn 1;\n}\n__setup("${name}", ${name}_setup);\n`;

const FILES: Record<string, string> = {
  'kernel/a.c': flagFile('cold_flag'),
  'mm/b.c': flagFile('hot_flag'),
  'net/c.c': flagFile('warm_flag'),
};

const RATES: Record<string, FlagHits | { notMeasured: string }> = {
  cold_flag: { perSecond: 3, boot: 40, path: 'rare', perEvent: { event: 'system call', events: 'system calls', hotAt: 0.01, per: 0.001 } },
  hot_flag: { perSecond: 52000, boot: 900, path: 'hot', perEvent: { event: 'page allocation', events: 'page allocations', hotAt: 0.01, per: 2.5 } },
  warm_flag: { perSecond: 480.5, boot: null, path: 'hot', perEvent: { event: 'packet sent', events: 'packets sent', hotAt: 0.01, per: 0.02 } },
};

const runtime: RuntimeEvidence = { config: 'minimal', workload: 'default', accel: 'tcg', of: (_file, v) => RATES[v] };

/** `rt` null: nothing was measured. */
function plan(given: Record<string, string>, rt: RuntimeEvidence | null = runtime) {
  return planSeries({
    recipe: loadRecipe('static-keys', recipeDirs(undefined, {})),
    given,
    tree: { root: '/nonexistent', version: '6.12.0' },
    readBase: async (f) => FILES[f],
    services: {
      flagCandidates: async () => Object.entries(FILES).flatMap(([f, t]) => scanFile(f, t)),
      maintainersOf: async (f) => [`Maintainer ${f.split('/')[0]} <m-${f.split('/')[0]}@kernel.org>`],
      runtime: rt ?? undefined,
    },
  });
}

describe('selection by measured rate', () => {
  test('by default only flags on a hot path, and the cover letter lists them hottest first', async () => {
    const p = await plan({});
    expect(p.patches.map((x) => x.subject)).toEqual(['mm: b: Convert hot_flag to a static key', 'net: c: Convert warm_flag to a static key']);
    const cover = p.cover.body;
    expect(cover.indexOf('hot_flag')).toBeLessThan(cover.indexOf('warm_flag'));
    expect(cover).toContain('2.5 per page allocation, 52000 per second, 900 at boot');
    expect(cover).toContain('1 per 50 packets sent, 480.5 per second');
    expect(cover.replace(/\n/g, ' ')).toContain('booted under QEMU/TCG: a kprobe event on every test instruction');
    expect(p.patches[0]!.body.replace(/\n/g, ' ')).toContain('Measured in an x86-64 minimal kernel under QEMU/TCG, a kprobe event on each test: its tests ran 2.5 per page allocation (52000 times per second of the default workload) and 900 times during boot.');
  });

  test('--min-rate and top choose fewer or more', async () => {
    expect((await plan({ minRate: '1000' })).patches).toHaveLength(1);
    expect((await plan({ minRate: '0' })).patches).toHaveLength(3);
    expect((await plan({ minRate: '0', top: '2' })).patches.map((x) => x.subject)).toEqual(['mm: b: Convert hot_flag to a static key', 'net: c: Convert warm_flag to a static key']);
  });

  test('--min-rate 0 sets no threshold: a flag that was not measured comes last, its message saying why', async () => {
    const rt: RuntimeEvidence = { ...runtime, of: (_f, v) => (v === 'cold_flag' ? { notMeasured: 'kernel/a.o not built in minimal' } : RATES[v]) };
    const p = await plan({ minRate: '0' }, rt);
    expect(p.patches.map((x) => x.subject)).toEqual(['a: Convert cold_flag to a static key', 'mm: b: Convert hot_flag to a static key', 'net: c: Convert warm_flag to a static key']);
    const cover = p.cover.body;
    expect(cover.indexOf('warm_flag')).toBeLessThan(cover.indexOf('cold_flag'));
    expect(p.patches[0]!.body.replace(/\n/g, ' ')).toContain('kernel/a.o not built in minimal.');
  });

  test('no flag reaches the rate, or none is on a hot path: one error naming the hottest candidates with their verdicts', async () => {
    await expect(plan({ minRate: '100000' })).rejects.toThrow(/no auto flag is tested 100000 times per second in the default workload \(3 of 3 measured\); the hottest candidates: hot_flag \(auto; hot path, 2.5 per page allocation, 52000\/s\); warm_flag /);
    const cold: RuntimeEvidence = { ...runtime, of: (_f, v) => (v === 'cold_flag' ? RATES[v] : { perSecond: 4.5, boot: 2, path: 'setup' }) };
    await expect(plan({}, cold)).rejects.toThrow(/no auto flag is on a hot path of the default workload \(3 of 3 measured\); the hottest candidates: cold_flag \(auto; rare path, 1 per 1000 system calls, 3\/s\); hot_flag \(auto; setup\/teardown path, 4.5\/s\)/);
  });

  test('--only takes a cold flag too, and its message says how cold', async () => {
    const p = await plan({ only: 'cold_flag' });
    expect(p.patches[0]!.body.replace(/\n/g, ' ')).toContain('its tests ran 1 per 1000 system calls (3 times per second of the default workload) and 40 times during boot.');
  });

  test('nothing measured: the messages say so, and without --only a rate cannot be met', async () => {
    const p = await plan({ only: 'hot_flag' }, null);
    expect(p.patches[0]!.body.replace(/\n/g, ' ')).toContain('Its tests were not measured in a running kernel.');
    expect(p.cover.body.replace(/\n/g, ' ')).toContain('The tests were not measured in a running kernel.');
    expect(p.cover.body).toContain('not measured');
    await expect(plan({}, null)).rejects.toThrow(/nothing was measured/);
    expect((await plan({ minRate: '0' }, null)).patches).toHaveLength(3);
  });

  test('a flag whose object was not built says why it was not measured', async () => {
    const rt: RuntimeEvidence = { ...runtime, of: () => ({ notMeasured: 'mm/b.o not built in minimal' }) };
    const p = await plan({ only: 'hot_flag' }, rt);
    expect(p.patches[0]!.body.replace(/\n/g, ' ')).toContain('Its tests were not measured in a running kernel (an x86-64 minimal kernel under QEMU/TCG, a kprobe event on each test): mm/b.o not built in minimal.');
  });
});
