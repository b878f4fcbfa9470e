// Handlebars for C and e-mail: strict (a missing variable is an error), no HTML escaping, errors name file and line.
import fs from 'node:fs';
import Handlebars from 'handlebars';
import { TemplateError } from '../errors.js';

export type TemplateVars = Record<string, unknown>;
export type Render = (vars: TemplateVars) => string;

const engine = Handlebars.create();
engine.registerHelper('eq', (a: unknown, b: unknown) => a === b);
/** `(and a b ...)`, `(not a)`: as `{{#if}}` reads a value (an empty list is false). Handlebars passes its options last. */
const truthy = (v: unknown) => (Array.isArray(v) ? v.length > 0 : !!v);
engine.registerHelper('and', (...args: unknown[]) => args.slice(0, -1).every(truthy));
engine.registerHelper('not', (a: unknown) => !truthy(a));
engine.registerHelper('join', (list: unknown, sep: unknown) => (Array.isArray(list) ? list.join(String(sep)) : ''));
engine.registerHelper('wrap', function (this: unknown, options: Handlebars.HelperOptions) {
  const text = options.fn(this);
  // Keep the block's last line break, so a blank line after {{/wrap}} separates paragraphs.
  return wrapParagraphs(text.replace(/\n+$/, ''), 72) + (text.endsWith('\n') ? '\n' : '');
});
/** `(same a b)`: two lists hold the same items, in any order. */
engine.registerHelper('same', (a: unknown, b: unknown) => Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x) => b.includes(x)));
/** `{{pad count 8}}`: right-aligned in a column of that width (numbers in a table). */
engine.registerHelper('pad', (value: unknown, width: unknown) => String(value).padStart(Number(width)));
engine.registerHelper('plural', (n: unknown, word: unknown) => {
  const w = String(word);
  return `${String(n)} ${w}${n === 1 ? '' : /(s|x|ch|sh)$/.test(w) ? 'es' : 's'}`;
});

/** Compile template text; `name` (a file path or a manifest field) is used in error messages. */
export function compileTemplate(text: string, name: string): Render {
  let template: Handlebars.TemplateDelegate;
  try {
    template = engine.compile(text, { strict: true, noEscape: true });
    // Handlebars compiles lazily: force the parse now so syntax errors surface at load time.
    engine.precompile(text, { strict: true, noEscape: true });
  } catch (e) {
    const text = e instanceof Error ? e.message : String(e);
    const detail = /got 'EOF'/.test(text)
      ? 'a block is not closed before the end of the file ({{/...}} missing)'
      : (text.split('\n').filter(Boolean).pop() ?? text).trim();
    throw new TemplateError(`${name}:${errorLine(e) ?? 1}: template syntax error: ${detail}`, 'fix the Handlebars syntax');
  }
  const conditions = conditionVariables(engine.parse(text));
  return (vars) => {
    for (const { name: variable, line } of conditions) {
      if (!(variable in vars)) {
        throw new TemplateError(
          `${name}:${line}: unknown variable "${variable}"`,
          `known variables: ${Object.keys(vars).sort().join(', ')}`,
        );
      }
    }
    try {
      return template(vars);
    } catch (e) {
      const msg = firstLine(e);
      const missing = /"([^"]+)" not defined/.exec(msg)?.[1];
      const line = /- (\d+):\d+/.exec(msg)?.[1] ?? errorLine(e) ?? 1;
      if (missing) {
        throw new TemplateError(
          `${name}:${line}: unknown variable "${missing}"`,
          `known variables: ${Object.keys(vars).sort().join(', ')}`,
        );
      }
      throw new TemplateError(`${name}:${line}: ${msg}`, 'check the template against the variables the recipe provides');
    }
  };
}

export function loadTemplate(file: string, displayName = file): Render {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    throw new TemplateError(`${displayName}: template file is missing`, 'the manifest names a template that does not exist');
  }
  return compileTemplate(text, displayName);
}

/**
 * Strict mode checks plain `{{x}}` lookups but lets `{{#if x}}` read a missing `x` as false. Collect the top-level
 * variables that conditions read outside `each`/`with` blocks (where the context changes) so they are checked too.
 */
function conditionVariables(program: hbs.AST.Program): { name: string; line: number }[] {
  const found: { name: string; line: number }[] = [];
  const visit = (node: hbs.AST.Node): void => {
    if (node.type === 'Program') (node as hbs.AST.Program).body.forEach(visit);
    if (node.type !== 'BlockStatement') return;
    const block = node as hbs.AST.BlockStatement;
    const helper = (block.path as hbs.AST.PathExpression).original;
    if (helper === 'each' || helper === 'with') return;
    for (const param of block.params) {
      if (param.type !== 'PathExpression') continue;
      const path = param as hbs.AST.PathExpression;
      if (path.data || path.depth > 0 || path.parts.length === 0 || path.original.startsWith('this')) continue;
      found.push({ name: path.parts[0]!, line: block.loc.start.line });
    }
    visit(block.program);
    if (block.inverse) visit(block.inverse);
  };
  visit(program);
  return found;
}

function firstLine(e: unknown): string {
  return (e instanceof Error ? e.message : String(e)).split('\n')[0]!.trim();
}

function errorLine(e: unknown): number | undefined {
  const text = e instanceof Error ? e.message : String(e);
  const m = /on line (\d+)/.exec(text);
  if (m) return Number(m[1]);
  const loc = (e as { lineNumber?: number }).lineNumber;
  return typeof loc === 'number' ? loc : undefined;
}

/**
 * Re-flow prose paragraphs to `width` columns, as commit messages want. Lines that start with whitespace, `-`, `*`
 * or look like trailers are left as they are.
 */
export function wrapParagraphs(text: string, width: number): string {
  return text
    .split(/\n{2,}/)
    .map((para) => {
      // One "- item" line is wrapped with its continuation lines under the item's text.
      const bullet = /^- \S/.test(para) && !para.includes('\n');
      if (!bullet && (/^(\s|[-*]|[A-Za-z-]+: )/.test(para) || para.includes('\n ') || para.includes('\n\t'))) return para;
      const words = (bullet ? para.slice(2) : para).split(/\s+/).filter(Boolean);
      const out: string[] = [];
      const room = bullet ? width - 2 : width;
      let line = '';
      for (const w of words) {
        if (line && line.length + 1 + w.length > room) {
          out.push(line);
          line = w;
        } else line = line ? `${line} ${w}` : w;
      }
      if (line) out.push(line);
      return bullet ? out.map((l, i) => `${i === 0 ? '- ' : '  '}${l}`).join('\n') : out.join('\n');
    })
    .join('\n\n');
}
