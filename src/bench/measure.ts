// Wall-clock measurement for `npm run bench`: kseries' figure beside its peer's, from the same run.
export interface BenchResult {
  name: string;
  ours: number;
  peerName: string;
  peer: number;
  /** The target as the issue states it, e.g. "≤ 1.2×"; none when the issue states none. */
  target?: string;
  /** Whether the target is met; only with a target. */
  ok?: boolean;
}

export async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; seconds: number }> {
  const start = process.hrtime.bigint();
  const value = await fn();
  return { value, seconds: Number(process.hrtime.bigint() - start) / 1e9 };
}

export function formatResult(r: BenchResult): string {
  const ratio = r.ours / r.peer;
  const s = (x: number) => x.toFixed(x < 1 ? 3 : 2);
  const verdict = r.target === undefined ? 'no target stated' : `target ${r.target}: ${r.ok ? 'met' : 'NOT met'}`;
  return `${r.name}: kseries ${s(r.ours)} s, ${r.peerName} ${s(r.peer)} s, ratio ${ratio.toFixed(2)}× (${verdict})`;
}
