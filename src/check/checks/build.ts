// The build check: each patch's touched objects compiled in order on the base (bisectability), and the W=1 warnings
// that are new against the step before, shown as the kernel test robot shows them.
import { KernelBuild } from '../../build/builder.js';
import { configLine } from '../../build/config-line.js';
import { HOST, I386, type Target } from '../../build/targets.js';
import { configOn, otherBuilds, skipped } from '../builds.js';
import { sidesOnI386 } from '../side-builds.js';
import type { KernelNeed } from '../../build/need.js';
import { signed, type ObjectSize } from '../../object-code/sizes.js';
import type { PatchCheck, PlanContext, Quoted } from '../plugins.js';

/** A compiler line `file:line:col: ...` quoted under the hunk of that line. */
function compilerQuote(level: 'errors' | 'warnings', list: string[]): Quoted[] {
  return list.map((t) => {
    const m = /^([^\s:][^:]*):(\d+):(?:\d+:)? /.exec(t);
    return { file: m?.[1], line: m ? Number(m[2]) : undefined, text: [`All ${level} (new ones prefixed by >>):`, '', `>> ${t}`] };
  });
}

export const buildCheck: PatchCheck<'build'> = {
  id: 'build',
  field: 'build',
  severities: ['error', 'warning'],
  columns: [
    { title: 'build', width: 9, cell: (p) => p.build.status },
    { title: 'warn', width: 6, cell: (p) => String(p.build.newWarnings.length) },
  ],
  needsApply: true,
  live: true,
  async run(r) {
    if (!r.opts.build) return r.commits.map(() => skipped('--no-build'));
    return (await r.built()).reports;
  },
  kernels: async (c) => (c.build ? objectBuilds(c) : []),
  failed: (p) => p.build.status === 'failed',
  findings: (p) => p.build.status === 'failed' || p.build.newWarnings.length > 0 || p.build.notBuilt.length > 0,
  details(p) {
    const b = p.build;
    const out: string[] = [];
    if (b.note) out.push(`  note: ${b.note}`);
    if (b.errors.length) out.push('  build errors:', ...b.errors.map((e) => `    ${e}`));
    if (b.newWarnings.length) out.push('  All warnings (new ones prefixed by >>):', ...b.newWarnings.map((w) => `  >> ${w}`));
    // Named where it is more than the one x86-64 build the report's last line names.
    for (const [o, on] of Object.entries(b.builtOn ?? {})) if (on.length > 1 || !on[0]!.startsWith('x86_64 ')) out.push(`  built: ${o}: ${on.join('; ')}`);
    for (const n of b.notBuilt) out.push(`  not build-tested: ${n.object}: ${n.reason}`);
    return out;
  },
  headline(p) {
    const b = p.build;
    const parts = [b.status === 'failed' ? 'build failed' : '', b.newWarnings.length ? `${b.newWarnings.length} new warning${b.newWarnings.length > 1 ? 's' : ''}` : '', b.notBuilt.length ? 'not build-tested' : ''];
    return parts.filter(Boolean).join(', ') || undefined;
  },
  quote: (p) => [
    ...compilerQuote('errors', p.build.errors),
    ...compilerQuote('warnings', p.build.newWarnings),
    ...p.build.notBuilt.map((n) => ({ text: [`not build-tested: ${n.object}: ${n.reason}`] })),
  ],
  b4(p, config) {
    const b = p.build;
    if (b.status === 'skipped' && b.objects.length === 0) return undefined;
    return {
      tool: 'kseries',
      status: b.status === 'failed' ? 'fail' : b.newWarnings.length ? 'warn' : 'pass',
      summary: `build (${config}, W=1): ${b.status}${b.newWarnings.length ? `, ${b.newWarnings.length} new warnings` : ''}`,
      details: [...b.errors, ...b.newWarnings.map((w) => `>> ${w}`)].join('\n'),
    };
  },
  patchStatement(p) {
    const b = p.build;
    if (b.status !== 'ok' || b.objects.length === 0) return undefined;
    const builds = [...new Set(Object.values(b.builtOn ?? {}).flat().filter((x) => !x.includes(': not built')))].map((x) => x.replace(/\bccache /g, ''));
    const warned = b.newWarnings.length ? `${b.newWarnings.length} new warning${b.newWarnings.length > 1 ? 's' : ''}` : 'no new warnings';
    const sizes = (b.sizes ?? []).map((z) => `${z.object}: ${costLine(z)}`);
    return [`Built on its own (${builds.join('; ') || b.objects.join(', ')}; W=1): ${warned}.`, ...(sizes.length ? [`In the x86_64 gcc build, ${sizes.join('; ')}.`] : [])].join(' ');
  },
  statement(r) {
    const built = r.patches.filter((p) => p.build.status === 'ok').length;
    if (!built) return undefined;
    const warnings = r.patches.reduce((n, p) => n + p.build.newWarnings.length, 0);
    // A configuration once, with every compiler that built it ("... with gcc + sparse and with clang").
    const byConfig = new Map<string, string[]>();
    const add = (config: string, compiler: string) => byConfig.set(config, [...(byConfig.get(config) ?? []), compiler.replace(/\bccache /g, '')]);
    add(r.configAsBuilt ? configLine(r.configAsBuilt) : `x86_64 ${r.config}`, r.compiler);
    for (const o of r.otherBuilds ?? []) add(configLine(o.config), o.compiler);
    const builds = [...byConfig].map(([config, compilers]) => `${config} with ${compilers.join(' and with ')}`).join(', ');
    const all = r.patches.flatMap((p) => p.build.sizes ?? []);
    const sizes = all.filter((z) => z.before.text || z.after.text);
    const empty = all.filter((z) => !z.before.text && !z.after.text).map((z) => z.object);
    const same = sizes.length > 0 && sizes.every((z) => z.before.total === z.after.total && z.before.text === z.after.text && !z.strings?.added.length && !z.strings?.removed.length);
    const code = sizes.length > 0 && sizes.every((z) => z.sameCode);
    const cost = !sizes.length ? '' : same ? `; each of the ${sizes.length} objects keeps its sizes${code ? ', its strings and its code bytes' : ' and its strings'} (x86_64 gcc)` : '; what each patch changes of its objects is below its ---';
    const none = empty.length ? `; ${empty.join(', ')} ha${empty.length === 1 ? 's' : 've'} no code in this configuration` : '';
    return `${built} of ${r.patches.length} patches built one by one (${builds}; W=1) with ${warnings === 0 ? 'no new warnings' : `${warnings} new warnings`}${cost}${none}`;
  },
};


/**
 * What a patch changed of an object, in words a maintainer asking "is it purely cosmetic?" reads: its code and data
 * bytes, and whether it holds the same strings ("text 5443 -> 5443 (+0), data 1212 -> 1212 (+0), the same strings").
 */
export function costLine(z: ObjectSize): string {
  // rtw88's debug.o without CONFIG_RTW88_DEBUGFS: built, and nothing in it (issue 45 builds what such #ifs hide).
  if (z.before.text === 0 && z.after.text === 0) return 'no code in this configuration, so the changed functions are not compiled';
  const part = (name: string, b: number, a: number) => `${name} ${b} -> ${a} (${signed(a - b)})`;
  const parts = [part('text', z.before.text, z.after.text), ...(z.before.jumpTable !== z.after.jumpTable ? [part('__jump_table', z.before.jumpTable, z.after.jumpTable)] : []), part('data', z.before.data, z.after.data)];
  if (z.sameCode) parts.push('the same code bytes');
  const s = z.strings;
  const few = (list: string[]) => list.slice(0, 3).map((x) => JSON.stringify(x)).join(', ') + (list.length > 3 ? ` and ${list.length - 3} more` : '');
  if (s) parts.push(s.added.length || s.removed.length ? [s.added.length ? `strings added: ${few(s.added)}` : '', s.removed.length ? `strings gone: ${few(s.removed)}` : ''].filter(Boolean).join(', ') : 'the same strings');
  return parts.join(', ');
}

/**
 * The builds of a range's objects: x86-64 with gcc and sparse, and the bots' others (otherBuilds); a machine that a
 * patch's path alone asks for (arch/riscv/) is known only once the patches are.
 */
function objectBuilds(c: PlanContext): KernelNeed[] {
  const need = (target: Target, sparse: boolean): KernelNeed => {
    const b = new KernelBuild(c.tree, c.tree.root, { config: configOn(target, c.config), target, sparse, sandbox: c.sandbox, distcc: false, env: c.env });
    return { dir: b.buildDir, kind: 'objects', name: `${b.baseName} objects${target.llvm ? ' (clang)' : ''}`, config: `${b.baseName} and the symbols each patch's objects need, ${b.compiler}`, why: `${c.series}: each patch's objects, built in order` };
  };
  const others = otherBuilds(c).targets;
  // The other side of a patch's #ifs is built on i386 (side-builds.ts) unless the machines asked for leave it out; its
  // folders are i386's, one per set of flipped symbols.
  const side = !c.noSides && sidesOnI386(c.arches) && !others.some((t) => t.arch === I386.arch);
  return [need(HOST, true), ...others.map((t) => need(t, false)), ...(side ? [{ ...need(I386, false), name: 'i386 defconfig objects (the other side)', why: `${c.series}: the objects again with the symbols their lines depend on flipped, where there are some` }] : [])];
}
