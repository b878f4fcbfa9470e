// DESIGN's layers, pinned: each imports only the ones below it, and git is started from one module only.
import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';

const SRC = path.resolve(__dirname, '../../src');

function sources(): { file: string; text: string }[] {
  const out: { file: string; text: string }[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (p.endsWith('.ts')) out.push({ file: path.relative(SRC, p), text: fs.readFileSync(p, 'utf8') });
    }
  };
  walk(SRC);
  return out;
}

/** The top-level folders of src/ that a file imports (static and dynamic imports). */
function layersImported(file: string, text: string): string[] {
  const specs = [...text.matchAll(/(?:from|import\()\s*'(\.[^']+)'/g)].map((m) => m[1]!);
  return specs.map((s) => path.relative(SRC, path.resolve(path.dirname(path.join(SRC, file)), s)).split(path.sep)[0]!);
}

const FORBIDDEN: Record<string, string[]> = {
  'c-source': ['tree', 'tools', 'mail', 'check', 'series', 'review', 'commands', 'cli', 'recipes', 'build', 'boot', 'measure', 'object-code', 'kprobe'],
  tree: ['check', 'series', 'review', 'commands', 'cli', 'mail', 'recipes'],
  tools: ['check', 'series', 'review', 'commands', 'cli', 'recipes'],
  mail: ['check', 'series', 'review', 'commands', 'cli', 'recipes', 'build'],
  check: ['series', 'review', 'commands', 'cli', 'recipes'],
  series: ['review', 'commands', 'cli'],
  review: ['series', 'commands', 'cli'],
  'object-code': ['check', 'series', 'review', 'commands', 'cli', 'recipes'],
  boot: ['check', 'series', 'review', 'commands', 'cli', 'recipes', 'measure'],
  measure: ['check', 'series', 'review', 'commands', 'cli'],
  // The build plan reads what checks and measure declare; it runs nothing of a series or a review.
  plan: ['series', 'review', 'commands', 'cli'],
  // Subsystem knowledge is data and pure decisions: it runs nothing and reads the tree only through what it is given.
  subsystems: ['tree', 'tools', 'check', 'series', 'review', 'commands', 'cli', 'recipes', 'build', 'boot', 'measure', 'mail'],
};

test('no layer imports a layer above it (check imports no series, series and review not each other)', () => {
  const wrong: string[] = [];
  for (const { file, text } of sources()) {
    const layer = file.split(path.sep)[0]!;
    for (const to of layersImported(file, text)) if (FORBIDDEN[layer]?.includes(to)) wrong.push(`${file} imports ${to}/`);
  }
  expect(wrong).toEqual([]);
});

test('git is started from src/tools/git.ts only', () => {
  const wrong = sources()
    .filter(({ file, text }) => file !== path.join('tools', 'git.ts') && /\brun\w*\(\s*'git'|(from |import\()'simple-git'/.test(text))
    .map((s) => s.file);
  expect(wrong).toEqual([]);
});
