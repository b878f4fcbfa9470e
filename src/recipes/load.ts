// Finding recipes: the user's folders (--recipes, KSERIES_RECIPES) first, then the built-in patch-templates/.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { KseriesError, RecipeError } from '../errors.js';
import { readManifest, type Manifest } from '../templates/manifest.js';
import { RECIPE_CODE } from './registry.js';
import type { RecipeCode } from './types.js';

export interface LoadedRecipe {
  manifest: Manifest;
  code: RecipeCode | undefined;
}

/** The kseries package root (holds patch-templates/); the same from src/ under vitest and from dist/. */
export const PACKAGE_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const BUILTIN_RECIPES = path.join(PACKAGE_ROOT, 'patch-templates');

export function recipeDirs(extra: readonly string[] = [], env: NodeJS.ProcessEnv = process.env): string[] {
  const fromEnv = (env.KSERIES_RECIPES ?? '').split(':').filter(Boolean);
  return [...extra, ...fromEnv, BUILTIN_RECIPES].map((d) => path.resolve(d));
}

export function loadRecipe(id: string, dirs: readonly string[]): LoadedRecipe {
  if (!/^[a-z0-9][a-z0-9._-]*$/.test(id)) {
    throw new RecipeError(`"${id}" is not a recipe id`, 'recipe ids are folder names: lower case, digits, - _ .');
  }
  for (const dir of dirs) {
    const folder = path.join(dir, id);
    if (!fs.existsSync(path.join(folder, 'manifest.json'))) continue;
    const manifest = readManifest(folder);
    const codeId = manifest.code ?? (folder.startsWith(BUILTIN_RECIPES) || id in RECIPE_CODE ? id : undefined);
    const code = codeId === undefined ? undefined : RECIPE_CODE[codeId];
    if (manifest.code !== undefined && code === undefined) {
      throw new RecipeError(`${folder}/manifest.json: code: no built-in recipe code "${manifest.code}"`, `available: ${Object.keys(RECIPE_CODE).join(', ')}`);
    }
    return { manifest, code };
  }
  throw new RecipeError(`unknown recipe "${id}"`, `known recipes: ${listRecipes(dirs).join(', ') || '(none)'}; see kseries recipes`);
}

/** Every recipe found, loaded; one that does not load (a bad manifest, a bad id) is kept aside with its error. */
export function loadAllRecipes(dirs: readonly string[]): { loaded: LoadedRecipe[]; broken: { id: string; error: KseriesError }[] } {
  const loaded: LoadedRecipe[] = [];
  const broken: { id: string; error: KseriesError }[] = [];
  for (const id of listRecipes(dirs)) {
    try {
      loaded.push(loadRecipe(id, dirs));
    } catch (e) {
      if (!(e instanceof KseriesError)) throw e;
      broken.push({ id, error: e });
    }
  }
  return { loaded, broken };
}

export function listRecipes(dirs: readonly string[]): string[] {
  const ids = new Set<string>();
  for (const dir of dirs) {
    if (!fs.existsSync(dir)) continue;
    for (const name of fs.readdirSync(dir)) if (fs.existsSync(path.join(dir, name, 'manifest.json'))) ids.add(name);
  }
  return [...ids].sort();
}
