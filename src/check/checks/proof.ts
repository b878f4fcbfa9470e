// The object-code proofs: what the registered provers (recipes register theirs) establish in each patch's built
// objects, and the size of those objects before and after. Each prover states its own sentence for a cover letter.
import { sizeLine } from '../../object-code/sizes.js';
import type { PatchCheck } from '../plugins.js';
import { registeredProvers } from '../proofs/registry.js';

export const proofCheck: PatchCheck<'proofs'> = {
  id: 'proof',
  field: 'proofs',
  severities: ['error'],
  columns: [{ title: 'proof', width: 7, cell: (p) => (p.proofs.length === 0 ? '-' : p.proofs.every((x) => x.ok) ? 'ok' : 'FAIL') }],
  needsApply: true,
  live: false,
  async run(r) {
    if (!r.opts.build) return r.commits.map(() => []);
    return (await r.built()).proofs;
  },
  failed: (p) => p.proofs.some((x) => !x.ok),
  findings: (p) => p.proofs.some((x) => !x.ok),
  details(p) {
    const out: string[] = [];
    for (const x of p.proofs) out.push(`  proof ${x.ok ? 'ok' : 'FAILED'}: ${x.object}: ${x.claim}`, ...x.sites.map((s) => `    ${s}`), ...x.errors.map((e) => `    error: ${e}`));
    for (const z of p.build.sizes ?? []) out.push(`  size ${z.object}: ${sizeLine(z)}`);
    return out;
  },
  headline: (p) => (p.proofs.some((x) => !x.ok) ? 'object-code proof failed' : undefined),
  quote: (p) => p.proofs.filter((y) => !y.ok).map((x) => ({ text: [`object-code proof failed: ${x.object}: ${x.claim}`, ...x.errors.map((e) => `  ${e}`)] })),
  b4(p) {
    if (p.proofs.length === 0) return undefined;
    const failed = p.proofs.filter((x) => !x.ok);
    return {
      tool: 'kseries',
      status: failed.length ? 'fail' : 'pass',
      summary: `object-code proofs: ${p.proofs.length - failed.length} of ${p.proofs.length} hold`,
      details: failed.map((x) => `${x.object}: ${x.claim}: ${x.errors.join('; ')}`).join('\n'),
    };
  },
  statement(r) {
    const proofs = r.patches.flatMap((p) => p.proofs ?? []);
    const said = registeredProvers().map((v) => {
      const own = proofs.filter((x) => x.recipe === v.id);
      return own.length ? v.statement?.(own) : undefined;
    });
    return said.filter(Boolean).join('; ') || undefined;
  },
};
