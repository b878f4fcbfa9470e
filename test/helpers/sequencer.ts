// Files of the unit and tree tiers run in vitest's own order; the kernel tier's in KERNEL_TIER_ORDER (kernels.ts).
import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { KERNEL_TIER_ORDER } from './kernels.js';

export default class TierSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (f: TestSpecification) => {
      const i = KERNEL_TIER_ORDER.indexOf(path.basename(f.moduleId, '.test.ts'));
      return f.project.name === 'kernel' && i >= 0 ? i : KERNEL_TIER_ORDER.length;
    };
    return sorted.map((f, i) => ({ f, i })).sort((a, b) => (a.f.project.name === 'kernel' && b.f.project.name === 'kernel' ? rank(a.f) - rank(b.f) : 0) || a.i - b.i).map((x) => x.f);
  }
}
