// `kseries kprobe analyze`: may a post_handler kprobe on a site move to the next instruction? One object per run.
import fs from 'node:fs';
import path from 'node:path';
import { KernelBuild } from '../build/builder.js';
import { ToolFailedError, UsageError } from '../errors.js';
import { ObjectAnalysis } from '../kprobe/analyze.js';
import { parseSite, primaryReason, type SiteVerdict } from '../kprobe/verdict.js';
import { withLock, worktreeAt } from '../tree/worktree.js';
import { readObjectCode } from '../tools/binutils.js';
import { readAtCommit } from '../tools/git.js';
import { commitOf, openTree } from '../tree/tree.js';
import { printJson, type GlobalOptions, type Io } from './io.js';

export interface AnalyzeArgs {
  object: string;
  sites: string[];
  /** Functions whose every instruction is a site; an empty name means every function of the object. */
  all: string[];
  config: string;
}

/** Exit 0 when every site is safe, 1 when one is unsafe, 2 when a site names no instruction boundary of a function. */
export async function kprobeAnalyze(io: Io, g: GlobalOptions, a: AnalyzeArgs): Promise<number> {
  const requests = a.sites.map((s) => {
    const site = parseSite(s);
    if (!site) throw new UsageError(`--site ${s}: not SYMBOL+OFFSET`, 'e.g. --site update_curr+0x1a or --site schedule+26');
    return site;
  });
  if (requests.length === 0 && a.all.length === 0) throw new UsageError('name at least one --site SYMBOL+OFFSET or --all SYMBOL', 'e.g. kseries kprobe analyze --object kernel/sched/fair.o --all update_curr');
  const { file, label } = await locateObject(io, g, a);
  const analysis = await analyzeObject(file, label);
  const sites: SiteVerdict[] = requests.map((r) => analysis.site(r.symbol, r.offset));
  for (const fn of a.all) {
    if (fn === '') for (const f of analysis.functions()) sites.push(...analysis.sitesOf(f));
    else sites.push(...analysis.allSites(fn));
  }
  if (g.json) printJson(io, { sites });
  else printSites(io, sites);
  if (sites.some((s) => s.verdict === 'error')) return 2;
  return sites.some((s) => s.verdict === 'unsafe') ? 1 : 0;
}

/** Read and index one object: objdump's listing, symbols and relocations, and the bytes of `.altinstructions`. */
export async function analyzeObject(file: string, label: string): Promise<ObjectAnalysis> {
  return new ObjectAnalysis(label, await readObjectCode(file, { contents: ['.altinstructions'], rawBytes: false }));
}

/**
 * An object file given by path, or a tree-relative object (`mm/slub.o`) built from the tree's HEAD in kseries' build
 * directory for the config when it is missing or stale (a stamp beside it records HEAD and the object's mtime).
 */
async function locateObject(io: Io, g: GlobalOptions, a: AnalyzeArgs): Promise<{ file: string; label: string }> {
  const given = path.resolve(io.cwd, a.object);
  if (fs.existsSync(given) && fs.statSync(given).isFile()) return { file: given, label: a.object };
  const object = path.posix.normalize(a.object);
  if (!object.endsWith('.o') || path.isAbsolute(object) || object.startsWith('..')) {
    throw new UsageError(`--object ${a.object}: no such file`, 'give an object file, or a tree-relative object such as mm/slub.o to build it');
  }
  const tree = await openTree({ cwd: io.cwd, tree: g.tree, env: io.env });
  const head = (await commitOf(tree, 'HEAD'))!;
  const stem = object.replace(/\.o$/, '');
  const source = ['.c', '.S'].map((e) => stem + e);
  const present: string[] = [];
  for (const s of source) if ((await readAtCommit(tree.root, head, s)) !== undefined) present.push(s);
  if (present.length === 0) throw new UsageError(`--object ${a.object}: neither a file nor built from ${source.join(' or ')} of the tree`, 'give an object file, or a tree-relative object of a .c or .S file');
  // An object this command built from HEAD, untouched since (check builds other commits in the same directory) and
  // HEAD has not moved: read it as it is; make would only say so, in seconds.
  const stamp = (file: string) => `${head} ${fs.statSync(file).mtimeMs}`;
  const known = path.join(new KernelBuild(tree, tree.root, { config: a.config, distcc: false, env: io.env }).buildDir, object);
  if (fs.existsSync(known) && readStamp(`${known}.kseries-head`) === stamp(known)) return { file: known, label: object };
  return withLock(tree, async () => {
    const build = new KernelBuild(tree, await worktreeAt(tree, head), { config: a.config, distcc: false, env: io.env });
    const symbols = (await build.symbolsFor(object, (f) => readAtCommit(tree.root, head, f))) ?? [];
    const off = await build.configure(symbols, head);
    const why = symbols.map((s) => off.get(s)).find((r) => r !== undefined);
    if (why) throw new UsageError(`--object ${object}: ${a.config} cannot build it: ${why}`, 'give --config with a .config that enables it');
    io.err(`building ${object} (${a.config}, HEAD ${head.slice(0, 12)}) in ${build.buildDir}`);
    const r = await build.compile(object);
    if (!r.ok) throw new ToolFailedError(`${object} does not build: ${r.messages.find((m) => m.level === 'error')?.text ?? 'make failed'}`, `see make O=${build.buildDir} ${object}`);
    const file = path.join(build.buildDir, object);
    fs.writeFileSync(`${file}.kseries-head`, `${stamp(file)}\n`);
    return { file, label: object };
  });
}

function printSites(io: Io, sites: SiteVerdict[]): void {
  for (const s of sites) {
    const where = `${s.symbol}+0x${s.offset.toString(16)}`;
    io.out(`${s.verdict.padEnd(7)}${where.padEnd(35)} ${s.insn}`);
    for (const r of s.reasons) io.out(`         ${r}`);
  }
  const count = (v: string) => sites.filter((s) => s.verdict === v).length;
  const byReason = new Map<string, number>();
  for (const s of sites) {
    const k = primaryReason(s);
    if (k) byReason.set(k, (byReason.get(k) ?? 0) + 1);
  }
  const reasons = [...byReason].sort((x, y) => y[1] - x[1]).map(([k, n]) => `${k} ${n}`);
  io.out(`${sites.length} site${sites.length === 1 ? '' : 's'}: ${count('safe')} safe (the probe may move to the next instruction), ${count('unsafe')} unsafe${count('error') ? `, ${count('error')} errors` : ''}${reasons.length ? `; unsafe by first reason: ${reasons.join(', ')}` : ''}`);
}

function readStamp(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch {
    return undefined;
  }
}
