import { loadAllRecipes, loadRecipe, recipeDirs } from '../recipes/load.js';
import { printJson, type GlobalOptions, type Io } from './io.js';

/**
 * The recipes, or one recipe's parameters. A recipe that does not load is listed as broken with its error, and the
 * others still are (exit 0: the listing worked); naming a broken recipe is that recipe's error.
 */
export async function recipes(io: Io, g: GlobalOptions, id?: string): Promise<number> {
  const dirs = recipeDirs(g.recipes, io.env);
  const { loaded, broken } = id ? { loaded: [loadRecipe(id, dirs)], broken: [] } : loadAllRecipes(dirs);
  const manifests = loaded.map((r) => r.manifest);
  if (g.json) {
    printJson(io, {
      recipes: manifests.map((m) => ({ id: m.id, dir: m.dir, description: m.description, params: m.params })),
      broken: broken.map((b) => ({ id: b.id, error: b.error.message, hint: b.error.hint })),
    });
    return 0;
  }
  for (const m of manifests) {
    io.out(`${m.id} — ${m.description}`);
    if (!id) continue;
    io.out(`  folder: ${m.dir}`);
    for (const [name, p] of Object.entries(m.params)) {
      const def = p.default === undefined ? 'required' : p.default === '' ? 'optional' : `default ${JSON.stringify(p.default)}`;
      io.out(`  --set ${name}=<${p.type}>  ${p.help} (${def})`);
    }
  }
  for (const b of broken) io.err(`broken: ${b.id}: ${b.error.message}`);
  return 0;
}
