import { listRecipes, loadRecipe, recipeDirs } from '../recipes/load.js';
import { printJson, type GlobalOptions, type Io } from './io.js';

export async function recipes(io: Io, g: GlobalOptions, id?: string): Promise<number> {
  const dirs = recipeDirs(g.recipes, io.env);
  const ids = id ? [id] : listRecipes(dirs);
  const loaded = ids.map((r) => loadRecipe(r, dirs).manifest);
  if (g.json) {
    printJson(io, { recipes: loaded.map((m) => ({ id: m.id, dir: m.dir, description: m.description, params: m.params })) });
    return 0;
  }
  for (const m of loaded) {
    io.out(`${m.id} — ${m.description}`);
    if (!id) continue;
    io.out(`  folder: ${m.dir}`);
    for (const [name, p] of Object.entries(m.params)) {
      const def = p.default === undefined ? 'required' : p.default === '' ? 'optional' : `default ${JSON.stringify(p.default)}`;
      io.out(`  --set ${name}=<${p.type}>  ${p.help} (${def})`);
    }
  }
  return 0;
}
