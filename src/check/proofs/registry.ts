// The provers `kseries check` runs. Recipes register theirs here (src/recipes/registry.ts does, for the built-in
// ones); check asks the registry and imports no recipe.
import type { Prover } from './types.js';

const PROVERS = new Map<string, Prover>();

/** Register a prover; registering the same id again keeps the first (recipes may share one). */
export function registerProver(p: Prover): void {
  if (!PROVERS.has(p.id)) PROVERS.set(p.id, p);
}

/** Every registered prover, by id. */
export function registeredProvers(): Prover[] {
  return [...PROVERS.values()].sort((a, b) => a.id.localeCompare(b.id));
}
