// The tree's answers to the static-key classifier: which files use a name (for the callers of global functions and
// the headers of shared flags), their texts, the architectures' facts, and the architectures Kconfig builds a file
// for. One git grep per round of names, for all of them at once. What the rounds found is kept as the tree's symbol
// index, per tree content (the commit, and the working tree's diff against it) and per version of the rules, in
// kseries' cache: which files use each name, where each global function is reached from, and the architectures; a
// later scan of the same content reads it instead of asking git grep again.
import fs from 'node:fs';
import path from 'node:path';
import { buildWays, type MakefileCache } from '../../../build/kbuild.js';
import { KconfigIndex, type Arches } from '../../../build/kconfig.js';
import { ToolFailedError } from '../../../errors.js';
import { CFile } from '../../../c-source/functions.js';
import { readArchFacts, archView, type ArchView } from '../arch.js';
import { toggleAt, type Toggle } from '../toggles.js';
import type { ArchFacts } from '../arch.js';
import { MAX_FILES, type CallerLookup, type Reach } from '../reach.js';
import { gitLines, gitRunRaw } from '../../../tools/git.js';
import { cacheDir } from '../../../tree/paths.js';
import { contentKey, rulesVersion, type TreeContent } from './content.js';
import { readBatch, type Source } from './files.js';

/** Names per git grep pattern: PCRE compiles one alternation of them (a trie keeps it small and fast). */
const NAMES_PER_PATTERN = 400;

/** File models kept built at once. */
const MODELS = 30;

/** Indexes kept in the cache (one per tree content scanned); the least recently written go first. */
const INDEXES = 12;

/** Files changed since an earlier index above which a new one is built from scratch rather than brought up to date. */
const REBASE_AT_MOST = 2000;

/** What the cache keeps for one tree content and one version of the rules. */
interface SymbolIndex {
  /** The content it describes: the commit, the rules' version, and the files that differed from it in the working tree. */
  head?: string;
  rules?: string;
  dirty?: string[];
  /** The .c and .h files that use each name looked up. */
  uses: Record<string, string[]>;
  /** The .c file that defines each name looked up as a global function ('' when none does). */
  defined?: Record<string, string>;
  /** Where each global function is reached from, per question (writes, reads), once fully known. */
  reached: Record<string, Record<string, Reach[]>>;
  /** The header that declares each shared flag `extern` ('' when none does). */
  headers?: Record<string, string>;
  /** What other files' sysctl tables and the like do with each shared flag (toggleAt() of their uses). */
  elsewhere?: Record<string, (Toggle & { where: string })[]>;
  arch?: { facts: ArchFacts; files: Record<string, Arches> };
}

export class TreeLookup implements CallerLookup {
  /** This scan's answers: the names it asked for (a name it has not asked for stays pending, whatever the index knows). */
  private readonly using = new Map<string, string[]>();
  private readonly texts = new Map<string, string>();
  private readonly models = new Map<string, CFile>();

  private constructor(
    private readonly source: Source,
    private readonly indexFile: string,
    /** What earlier scans of the same content found, and this one adds. */
    private index: SymbolIndex,
  ) {}

  /**
   * The index of `content` (the working tree's diff against HEAD is part of it: tracked files, as the scan reads them).
   * Where none was kept, the newest one of the same rules is brought up to date when few files changed since it.
   */
  static async open(source: Source, content: TreeContent, env: NodeJS.ProcessEnv = process.env): Promise<TreeLookup> {
    const dir = path.join(cacheDir(env), 'scan');
    const file = path.join(dir, `${contentKey(content)}.json`);
    const describe = { head: content.head, rules: rulesVersion(), dirty: [...content.dirty].sort() };
    const kept = readIndex(file);
    if (kept) return new TreeLookup(source, file, kept);
    const lookup = new TreeLookup(source, file, { ...describe, uses: {}, reached: {} });
    const newest = indexesNewestFirst(dir)[0];
    const earlier = newest ? readIndex(newest) : undefined;
    if (earlier?.head && earlier.rules === describe.rules) {
      const changed = await changedSince(source.root, earlier, content);
      if (changed && changed.size <= REBASE_AT_MOST) await lookup.rebase({ ...earlier, ...describe }, changed);
    }
    return lookup;
  }

  /**
   * Take over `earlier`, an index of a content that differs from this one in the files `changed`: what they use and
   * declare is read again from their texts, as the tree-wide greps would have found it; the expansions, which any
   * file may change, are dropped; the architectures only when a Kconfig, Makefile or arch/ file changed.
   */
  private async rebase(earlier: SymbolIndex, changed: Set<string>): Promise<void> {
    const texts = new Map<string, string>();
    const sources = [...changed].filter((f) => /\.[ch]$/.test(f));
    for (let i = 0; i < sources.length; i += 200) for (const [f, t] of await readBatch(this.source, sources.slice(i, i + 200))) texts.set(f, t);
    const words = new Map([...texts].map(([f, t]) => [f, new Set(t.match(WORD_USE))]));
    const defined = (earlier.defined ??= {});
    for (const [name, files] of Object.entries(earlier.uses)) {
      const now = files.filter((f) => !changed.has(f));
      for (const [f, w] of words) if (w.has(name)) now.push(f);
      earlier.uses[name] = now.sort();
    }
    for (const name of Object.keys(defined)) {
      if (changed.has(defined[name]!)) defined[name] = '';
      const line = new RegExp(definitionPattern(name), 'm');
      for (const [f, w] of words) if (f.endsWith('.c') && w.has(name) && line.test(texts.get(f)!)) defined[name] = f;
    }
    earlier.reached = {};
    if ([...changed].some((f) => f.startsWith('arch/') || /(^|\/)(Kconfig[^/]*|Makefile|Kbuild)$/.test(f))) delete earlier.arch;
    const headers = (earlier.headers ??= {});
    const elsewhere = (earlier.elsewhere ??= {});
    for (const v of Object.keys(headers)) if (changed.has(headers[v]!)) headers[v] = '';
    for (const [v, list] of Object.entries(elsewhere)) elsewhere[v] = list.filter((e) => !changed.has(e.where.slice(0, e.where.lastIndexOf(':'))));
    const variables = Object.keys(headers).sort();
    const alternation = variables.length ? trie(variables) : undefined;
    this.index = earlier;
    if (!alternation) return;
    const extern = new RegExp(externPattern(alternation));
    const data = new RegExp(dataPattern(alternation));
    const hits: Hit[] = [];
    for (const [file, text] of [...texts].sort(([a], [b]) => (a < b ? -1 : 1))) {
      text.split('\n').forEach((line, i) => {
        if (file.endsWith('.h')) {
          const m = extern.exec(line);
          if (m) this.declares(file, m[0]);
        } else {
          const m = data.exec(line);
          if (m) hits.push({ file, line: i + 1, name: /(\w+)$/.exec(m[0])![1]! });
        }
      });
    }
    await this.storedElsewhere(hits);
  }

  /** Where finished expansions of one question are kept (and found again by a later scan). */
  reached(question: string): Map<string, Reach[]> {
    return new Map(Object.entries((this.index.reached[question] ??= {})));
  }

  /** Keep what this scan found: the files of each name, the expansions, the architectures. */
  save(reached: Record<string, Map<string, Reach[]>>): void {
    for (const [q, m] of Object.entries(reached)) this.index.reached[q] = Object.fromEntries(m);
    fs.mkdirSync(path.dirname(this.indexFile), { recursive: true });
    const tmp = `${this.indexFile}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, JSON.stringify(this.index));
    fs.renameSync(tmp, this.indexFile);
    for (const f of indexesNewestFirst(path.dirname(this.indexFile)).slice(INDEXES)) fs.rmSync(f, { force: true });
  }

  filesUsing(name: string): readonly string[] | undefined {
    return this.using.get(name);
  }

  definerOf(name: string): string | null | undefined {
    const file = this.index.defined?.[name];
    // At a commit a definer is known only once its text is read (lookUpDefiners() reads it).
    if (file === undefined || (file && this.source.commit && !this.texts.has(file))) return undefined;
    return file || null;
  }

  /**
   * The .c files that define these global functions: a line that starts with the return type and the name, or (the
   * type on the line before) with the name and a parameter list that does not end in `;`. One git grep for all.
   */
  private async lookUpDefiners(names: string[]): Promise<void> {
    const defined = (this.index.defined ??= {});
    const asked = names.filter((n) => /^[A-Za-z_]\w*$/.test(n));
    const wanted = asked.filter((n) => !(n in defined)).sort();
    for (const n of wanted) defined[n] = '';
    const patterns: string[] = [];
    for (let i = 0; i < wanted.length; i += NAMES_PER_PATTERN) patterns.push(definitionPattern(trie(wanted.slice(i, i + NAMES_PER_PATTERN))));
    if (patterns.length) {
      await this.grep(patterns, '*.c', (file, _line, match) => {
        const name = /(\w+)\s*\($/.exec(match)?.[1];
        if (name && defined[name] === '') defined[name] = file;
      });
    }
    // At a commit the definers' texts are read now (a working tree's when the walk needs them), known ones included.
    const files = [...new Set(asked.map((n) => defined[n]!))].filter((f) => f && !this.texts.has(f));
    if (this.source.commit) for (const [f, t] of await readBatch(this.source, files)) this.texts.set(f, t);
  }

  file(path: string): CFile | undefined {
    let model = this.models.get(path);
    if (!model) {
      const text = this.texts.get(path) ?? this.readNow(path);
      if (text === undefined) return undefined;
      model = new CFile(path, text);
      // A few hundred models at most stay built (the oldest goes first); the rest is rebuilt on need.
      if (this.models.size >= MODELS) this.models.delete(this.models.keys().next().value!);
      this.models.set(path, model);
    }
    return model;
  }

  /**
   * A working tree's file, read when the walk first needs it (an expansion an earlier scan finished needs none); at a
   * commit the users' files were read in batches by lookUp().
   */
  private readNow(path: string): string | undefined {
    if (this.source.commit) return undefined;
    try {
      // Not kept: the model holds it while it is built, and reading again costs less than keeping thousands.
      return fs.readFileSync(`${this.source.root}/${path}`, 'utf8');
    } catch {
      return undefined;
    }
  }

  /** The text of a file of the source (read once). */
  async text(path: string): Promise<string | undefined> {
    if (!this.texts.has(path)) for (const [f, t] of await readBatch(this.source, [path])) this.texts.set(f, t);
    return this.texts.get(path);
  }

  /**
   * Look up every name not looked up yet: the .c and .h files where it stands as a word (not after `.` or `->`), in
   * one git grep, and read those files.
   */
  async lookUp(names: Iterable<string>): Promise<void> {
    const all = [...new Set(names)];
    await this.lookUpDefiners(all.filter((n) => n.endsWith('()')).map((n) => n.slice(0, -2)));
    const known = this.index.uses;
    const asked = all.filter((n) => /^[A-Za-z_]\w*$/.test(n) && !this.using.has(n));
    for (const n of asked) if (known[n]) this.using.set(n, known[n]);
    const wanted = asked.filter((n) => !known[n]).sort();
    await this.readUsers(asked);
    if (wanted.length === 0) return;
    for (const n of wanted) this.using.set(n, []);
    const patterns: string[] = [];
    for (let i = 0; i < wanted.length; i += NAMES_PER_PATTERN) patterns.push(`(?<![.>\\w])(?:${trie(wanted.slice(i, i + NAMES_PER_PATTERN))})(?!\\w)`);
    const { root, commit } = this.source;
    const files = new Set<string>();
    const r = await gitLines(root, ['grep', '-o', '-I', '--full-name', '-P', ...patterns.flatMap((p) => ['-e', p]), ...(commit ? [commit] : []), '--', '*.c', '*.h'], (line) => {
      const rest = commit ? line.slice(commit.length + 1) : line;
      const colon = rest.lastIndexOf(':');
      if (colon < 0) return;
      const file = rest.slice(0, colon);
      const list = this.using.get(rest.slice(colon + 1));
      if (!list) return;
      if (list[list.length - 1] !== file) list.push(file);
      files.add(file);
    });
    if (r.code > 1) throw new ToolFailedError(`git grep failed: ${r.stderr.trim().split('\n').pop()}`, `run git grep -P in ${root} to see why`);
    for (const n of wanted) known[n] = this.using.get(n)!;
    await this.readUsers(wanted);
  }

  /**
   * For shared flags: the headers that declare them `extern`, and the sysctl entries of other files that store them
   * (`.data = &flag`): two git greps for all of them.
   */
  async lookUpShared(variables: Iterable<string>): Promise<void> {
    const headers = (this.index.headers ??= {});
    const elsewhere = (this.index.elsewhere ??= {});
    const wanted = [...new Set(variables)].filter((v) => /^[A-Za-z_]\w*$/.test(v) && !(v in headers)).sort();
    if (wanted.length === 0) return;
    for (const v of wanted) {
      headers[v] = '';
      elsewhere[v] = [];
    }
    const alternations: string[] = [];
    for (let i = 0; i < wanted.length; i += NAMES_PER_PATTERN) alternations.push(trie(wanted.slice(i, i + NAMES_PER_PATTERN)));
    await this.grep(alternations.map(externPattern), '*.h', (file, _line, match) => this.declares(file, match));
    const hits: Hit[] = [];
    await this.grep(alternations.map(dataPattern), '*.c', (file, line, match) => hits.push({ file, line, name: /(\w+)$/.exec(match)![1]! }));
    await this.storedElsewhere(hits);
  }

  /** An `extern` declaration in a header: the first header found for a shared flag is its header. */
  private declares(file: string, match: string): void {
    const headers = this.index.headers!;
    const name = /(\w+)\s*(?:\[[^\]]*\]\s*)?$/.exec(match.replace(/(?:\s+(?:__read_mostly|__ro_after_init|__initdata|__weak|__maybe_unused|__percpu|__cacheline_aligned\w*))*\s*;$/, ''))?.[1];
    if (name && headers[name] === '') headers[name] = file;
  }

  /** `.data = &flag` in other files: what their sysctl entries (and the like) do with each flag. */
  private async storedElsewhere(hits: Hit[]): Promise<void> {
    const elsewhere = this.index.elsewhere!;
    for (const h of hits) {
      const text = await this.text(h.file);
      if (text === undefined) continue;
      const model = new CFile(h.file, text);
      const start = model.lines.lineStart(h.line);
      const at = model.masked.indexOf(`&`, model.masked.indexOf('.data', start));
      const use = at < 0 ? -1 : model.masked.indexOf(h.name, at);
      const toggle = use < 0 ? undefined : toggleAt(model, use);
      if (toggle) elsewhere[h.name]!.push({ ...toggle, where: `${h.file}:${h.line}` });
    }
  }

  /** `git grep -n -o -P` of the patterns in files matching `glob`: each match with its file and line. */
  private async grep(patterns: string[], glob: string, onMatch: (file: string, line: number, match: string) => void): Promise<void> {
    const { root, commit } = this.source;
    const r = await gitLines(root, ['grep', '-n', '-o', '-I', '--full-name', '-P', ...patterns.flatMap((p) => ['-e', p]), ...(commit ? [commit] : []), '--', glob], (out) => {
      const m = /^([^:]+):(\d+):(.*)$/.exec(commit ? out.slice(commit.length + 1) : out);
      if (m) onMatch(m[1]!, Number(m[2]), m[3]!);
    });
    if (r.code > 1) throw new ToolFailedError(`git grep failed: ${r.stderr.trim().split('\n').pop()}`, `run git grep -P in ${root} to see why`);
  }

  /** What lookUpShared() found for a shared flag. */
  sharedOf(variable: string): { header?: string; elsewhere: (Toggle & { where: string })[] } {
    return { header: this.index.headers?.[variable] || undefined, elsewhere: this.index.elsewhere?.[variable] ?? [] };
  }

  /**
   * At a commit, read the files that use these names, if not read yet (not for a name used in more files than callers
   * are followed in); a working tree's files are read as the walk needs them.
   */
  private async readUsers(names: string[]): Promise<void> {
    if (!this.source.commit) return;
    const followed = names.map((n) => this.using.get(n) ?? []).filter((files) => files.length <= MAX_FILES + 1);
    const missing = [...new Set(followed.flat())].filter((f) => !this.texts.has(f));
    for (let i = 0; i < missing.length; i += 200) for (const [f, t] of await readBatch(this.source, missing.slice(i, i + 200))) this.texts.set(f, t);
  }

  /** The architectures' facts and, for `files`, the architectures their Kconfig symbols build them for. */
  async archView(files: string[]): Promise<ArchView> {
    const kept = this.index.arch;
    const wanted = [...new Set(files)].filter((f) => !f.startsWith('arch/'));
    if (kept && wanted.every((f) => f in kept.files)) return archView(kept.facts, (f) => kept.files[f]);
    const arches = (await this.list(/^arch\/[^/]+\/Kconfig$/)).map((f) => f.split('/')[1]!);
    const kconfigs = new Map<string, string>();
    for (const a of arches) kconfigs.set(a, (await this.text(`arch/${a}/Kconfig`)) ?? '');
    const calls = new Map<string, string>();
    for (const f of await this.grepFiles('parse_early_param', 'arch/**/*.c')) calls.set(f, (await this.text(f)) ?? '');
    const facts = readArchFacts(kconfigs, calls);
    const byFile = new Map<string, Arches>();
    const outsideArch = wanted;
    if (outsideArch.length > 0) {
      const kconfig = await this.kconfigIndex();
      const read = (f: string) => this.text(f);
      const makefiles: MakefileCache = new Map();
      for (const f of outsideArch) {
        const ways = await buildWays(f, read, makefiles);
        byFile.set(f, ways ? kconfig.archesOfWays(ways) : 'any');
      }
    }
    this.index.arch = { facts, files: Object.fromEntries(byFile) };
    return archView(facts, (f) => byFile.get(f));
  }

  private async kconfigIndex(): Promise<KconfigIndex> {
    const paths = await this.list(/(^|\/)Kconfig[^/]*$/);
    const texts = new Map<string, string>();
    for (let i = 0; i < paths.length; i += 500) for (const [f, t] of await readBatch(this.source, paths.slice(i, i + 500))) texts.set(f, t);
    return new KconfigIndex(texts);
  }

  /** Tracked paths (at the commit, or in the index) that match `re`: ls-tree knows no pathspec globs, so filtered here. */
  private async list(re: RegExp): Promise<string[]> {
    const { root, commit } = this.source;
    const r = await gitRunRaw(root, commit ? ['ls-tree', '-r', '--name-only', commit] : ['ls-files']);
    return r.stdout.split('\n').filter((f) => f && re.test(f));
  }

  private async grepFiles(word: string, glob: string): Promise<string[]> {
    const { root, commit } = this.source;
    const r = await gitRunRaw(root, ['grep', '-l', '-w', '--full-name', word, ...(commit ? [commit] : []), '--', `:(glob)${glob}`]);
    return r.stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => (commit ? l.slice(commit.length + 1) : l));
  }
}

/** An index's file name: the content key. */
const INDEX_FILE = /^[0-9a-f]{16}\.json$/;

/** A name standing as a word, not after `.` or `->`: what lookUp()'s git grep finds. */
const WORD_USE = /(?<![.>\w])[A-Za-z_]\w*/g;

/** A line that defines one of the global functions of the alternation `names` (its match ends with the name and `(`). */
function definitionPattern(names: string): string {
  return `^(?:(?!(?:static|extern|return|typedef|else|case|goto)\\b)[A-Za-z_][\\w \\t*]*?[ \\t*])?(?:${names})\\s*\\((?=[^;]*$)`;
}

/** A `.data = &name` match of storedElsewhere(). */
interface Hit {
  file: string;
  line: number;
  name: string;
}

/** `extern ... name[...] __attr;` in a header, for the names of an alternation (a line of text, as git grep reads it). */
function externPattern(alternation: string): string {
  return `\\bextern\\b[^;(]*\\b(?:${alternation})\\b\\s*(?:\\[[^\\]]*\\]\\s*)?(?:__\\w+\\s*)*;`;
}

/** `.data = &name`, for the names of an alternation. */
function dataPattern(alternation: string): string {
  return `\\.data\\s*=\\s*&\\s*(?:${alternation})\\b`;
}

function readIndex(file: string): SymbolIndex | undefined {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as SymbolIndex;
  } catch {
    return undefined;
  }
}

/** The index files kept in `dir`, the most recently written first. */
function indexesNewestFirst(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  const mtime = (file: string) => fs.statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? 0;
  const files = fs.readdirSync(dir).filter((f) => INDEX_FILE.test(f)).map((f) => path.join(dir, f));
  return files.map((f) => ({ f, t: mtime(f) })).sort((a, b) => b.t - a.t).map((x) => x.f);
}

/** The files whose text differs between the content `earlier` describes and `content` (undefined: git cannot say). */
async function changedSince(root: string, earlier: SymbolIndex, content: TreeContent): Promise<Set<string> | undefined> {
  const changed = new Set([...(earlier.dirty ?? []), ...content.dirty]);
  if (earlier.head === content.head) return changed;
  const r = await gitRunRaw(root, ['diff', '--name-only', '-z', '--no-renames', earlier.head!, content.head]);
  if (r.code !== 0) return undefined;
  for (const f of r.stdout.split('\0')) if (f) changed.add(f);
  return changed;
}

/** One alternation that matches exactly `words`, as a trie (`foo_(?:bar|baz)`), which PCRE matches far faster than a flat list. */
export function trie(words: string[]): string {
  type Node = Map<string, Node>;
  const rootNode: Node = new Map();
  for (const w of words) {
    let n = rootNode;
    for (const c of w) {
      if (!n.has(c)) n.set(c, new Map());
      n = n.get(c)!;
    }
    n.set('', new Map());
  }
  const emit = (n: Node): string => {
    const alts: string[] = [];
    let end = false;
    for (const [c, child] of [...n].sort(([a], [b]) => (a < b ? -1 : 1))) {
      if (c === '') end = true;
      else alts.push(c + emit(child));
    }
    if (alts.length === 0) return '';
    const body = alts.length === 1 && !end ? alts[0]! : `(?:${alts.join('|')})`;
    return end ? (alts.length === 1 ? `(?:${alts[0]})?` : `${body}?`) : body;
  };
  return emit(rootNode);
}
