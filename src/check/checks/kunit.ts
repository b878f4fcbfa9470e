// KUnit on the base and on the series, when the recipe or --kunit asks for it: a series check.
import { censusLines } from '../../kprobe/census.js';
import { buildKunitKernel, KUNIT_KERNEL, kunitKernelDir } from '../../boot/kunit.js';
import { kunitEvidence, type KunitReport } from '../kunit.js';
import type { SeriesCheck } from '../plugins.js';
import { keptNote } from '../report.js';

declare module '../plugins.js' {
  interface SeriesResults {
    /** KUnit on the base and on the series, when the recipe or --kunit asks for it. */
    kunit?: KunitReport;
  }
}

export const kunitCheck: SeriesCheck<'kunit'> = {
  id: 'kunit',
  field: 'kunit',
  wanted: async (r) => r.opts.kunit !== undefined && r.opts.build,
  kernels: async (c) =>
    c.kunit && c.build
      ? [
          {
            dir: kunitKernelDir(c.kunit.config, c.env),
            kind: 'kernel',
            name: 'KUnit kernel',
            config: `${KUNIT_KERNEL}: ${c.kunit.config.join(' ')}`,
            why: `${c.series}: KUnit on the base and the series${c.kunit.without ? ', and the series without its fix' : ''}`,
            make: (commit) => buildKunitKernel(c.tree, commit, c.kunit!.config, { env: c.env }),
          },
        ]
      : [],
  run: (r) => kunitEvidence(r.opts.tree, r.opts, r.opts.kunit!, { env: r.opts.env, log: r.opts.log, progress: r.opts.progress, fresh: r.opts.fresh }),
  format: formatKunit,
  headline: (k) => (k.ok ? 'KUnit passed' : `KUnit failed (${k.problems.length} problem${k.problems.length === 1 ? '' : 's'})`),
  /** "KUnit kprobes_test (kunit.py's x86_64 config + kunitconfig under QEMU, TCG) passes 7 of 7 tests on the base and 9 of 9 with the series" */
  statement(k) {
    const suites = [...new Set(k.series.tests.map((t) => t.suite))].join(', ');
    const w = k.without;
    const without = w?.run ? `; without "${w.subject}", ${w.failed.join(', ') || 'no test'} fail${w.failed.length === 1 ? 's' : ''}` : '';
    return `KUnit ${suites} (${k.kernel} under QEMU, ${k.accel.toUpperCase()}) passes ${k.base.passed} of ${k.base.tests.length} tests on the base and ${k.series.passed} of ${k.series.tests.length} with the series${without}`;
  },
};

/** KUnit on the base and the series, the accelerator and why, and the census of the series' test kernel. */
function formatKunit(k: KunitReport): string[] {
  const run = (what: string, x: KunitReport['base']) =>
    `  ${what} ${x.commit.slice(0, 12)}: ${x.status === 'build-failed' ? 'the test kernel does not build' : `${x.passed}/${x.tests.length} passed${x.failed ? `, ${x.failed} failed` : ''}${x.skipped ? `, ${x.skipped} skipped` : ''}`} (build ${x.buildSeconds} s${x.compiler ? ` with ${x.compiler}` : ''}, run ${x.runSeconds} s)`;
  const settings = k.series.settings?.length ? `; ${k.series.settings.map((x) => `${x.name}=${x.value}`).join(', ')}` : '';
  const out = [`KUnit ${k.ok ? 'ok' : 'FAILED'} (${k.kernel} under QEMU with ${k.accel.toUpperCase()}: ${k.accelWhy}${settings})${keptNote(k.keptFrom)}:`, run('base', k.base), run('series', k.series)];
  if (k.without?.run) out.push(`${run(`series without "${k.without.subject}"`, k.without.run)}: ${k.without.failed.length ? `${k.without.failed.join(', ')} fail${k.without.failed.length === 1 ? 's' : ''}, as the fix says` : 'no test fails'}`);
  if (k.added.length) out.push(`  added by the series: ${k.added.join(', ')}`);
  if (k.base.leftOut?.length) out.push(`  left out of the base's kunitconfig, no Kconfig of the base defines them: ${k.base.leftOut.join(' ')}`);
  for (const p of k.problems) out.push(`  error: ${p}`);
  for (const l of [...(k.base.log ?? []), ...(k.series.log ?? []), ...(k.without?.run?.log ?? [])].slice(-10)) out.push(`    | ${l}`);
  if (k.census) out.push(...censusLines(k.census, "the series' test kernel").map((l) => `  ${l}`));
  return out;
}
