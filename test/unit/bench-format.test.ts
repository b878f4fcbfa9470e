import { expect, test } from 'vitest';
import { formatResult } from '../../src/bench/measure.js';

test('a bench line says met or NOT met only against a target, and never met without one', () => {
  const base = { name: 'x', ours: 3, peerName: 'peer', peer: 2 };
  expect(formatResult({ ...base, target: '≤ 1.5×', ok: true })).toBe('x: kseries 3.00 s, peer 2.00 s, ratio 1.50× (target ≤ 1.5×: met)');
  expect(formatResult({ ...base, target: '≤ 1.2×', ok: false })).toMatch(/\(target ≤ 1\.2×: NOT met\)$/);
  expect(formatResult(base)).toMatch(/ratio 1\.50× \(no target stated\)$/);
});
