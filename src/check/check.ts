// `kseries check`: every patch of a range, in order: build what it touches, new warnings, checkpatch, message rules,
// recipients. Builds run one patch after the other in kseries' worktree; checkpatch runs beside them.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { assertConfig, KernelBuild, type BuildOptions } from '../build/builder.js';
import { missingBuildPackages } from '../doctor.js';
import { MissingToolError } from '../errors.js';
import { configSymbolsFor, newWarnings, type CompilerMessage } from '../build/kbuild.js';
import { withLock, worktreeAt } from '../series/workspace.js';
import { getHeader, splitMail } from '../series/mail.js';
import { gitRaw, readAtCommit } from '../tools/git.js';
import { runCheckpatch, runGetMaintainer } from '../tools/kernel-scripts.js';
import { hasHistory, type KernelTree } from '../tree/tree.js';
import type { ObjectCode } from '../object-code/parse.js';
import { readObjectAsRun, readObjectCode } from '../tools/binutils.js';
import { registeredProvers } from './proofs/registry.js';
import type { ObjectAround, ObjectProof } from './proofs/types.js';
import { patchFailed, patchHasFindings, type BuildReport, type CheckReport, type PatchReport } from './report.js';
import { kunitEvidence } from './kunit.js';
import { checkMessage, checkRecipients, checkSeries, type Problem } from './rules.js';
import type { KunitSpec } from '../templates/manifest.js';

export interface CheckOptions extends BuildOptions {
  tree: KernelTree;
  base: string;
  tip: string;
  series?: { name: string; version: number };
  cover?: { subject: string; body: string };
  /** The emitted mail of each patch (index 1..n), whose To/Cc are checked against get_maintainer.pl. */
  mails?: Map<number, string>;
  build: boolean;
  /** Build every dependent of a changed header, not a sample. */
  full: boolean;
  strict: boolean;
  /** Progress: one call per patch and step. */
  onStep?: (index: number, step: 'build' | 'checkpatch' | 'rules', state: 'start' | 'done', detail?: string) => void;
  /** Run these KUnit tests on the base and on the tip (after the per-patch builds). */
  kunit?: KunitSpec;
  /** Progress of the steps that concern the whole range (KUnit). */
  log?: (line: string) => void;
}

/** Dependents of a changed header built by default. */
export const HEADER_SAMPLE = 3;

interface Commit {
  sha: string;
  subject: string;
  body: string;
  author: { name: string; email: string };
  files: { status: string; file: string }[];
}

export async function checkRange(opts: CheckOptions): Promise<CheckReport> {
  const { tree } = opts;
  if (opts.build) await assertCanBuild(opts);
  const commits = await readCommits(tree, opts.base, opts.tip);
  const step = opts.onStep ?? (() => {});
  const mails = await formatMails(tree, opts.base, opts.tip);

  const checkpatchAll = Promise.all(
    commits.map(async (_c, i) => {
      step(i + 1, 'checkpatch', 'start');
      const r = await runCheckpatch(tree.root, mails[i]!, { strict: opts.strict });
      step(i + 1, 'checkpatch', 'done', `${r.errors} errors, ${r.warnings} warnings, ${r.checks} checks`);
      return r;
    }),
  );
  const builds = opts.build
    ? buildAll(opts, commits, mails, step)
    : Promise.resolve({ reports: commits.map(() => skipped('--no-build')), proofs: commits.map(() => []), compiler: 'none' });
  const [checkpatch, { reports: build, proofs, compiler }] = await Promise.all([checkpatchAll, builds]);

  const useGit = opts.mails ? await hasHistory(tree) : false;
  const patches: PatchReport[] = [];
  for (const [i, c] of commits.entries()) {
    step(i + 1, 'rules', 'start');
    const problems: Problem[] = checkMessage(c);
    const mail = opts.mails?.get(i + 1);
    if (mail) {
      const headers = splitMail(mail).headers;
      const got = { to: splitAddresses(getHeader(headers, 'To')), cc: splitAddresses(getHeader(headers, 'Cc')) };
      problems.push(...checkRecipients(await maintainersOf(tree, mails[i]!, useGit), got));
    }
    step(i + 1, 'rules', 'done', `${problems.length} problems`);
    patches.push({ index: i + 1, commit: c.sha, subject: c.subject, applied: true, build: build[i]!, proofs: proofs[i]!, checkpatch: checkpatch[i]!, problems });
  }
  const seriesProblems = checkSeries(commits.map((c) => c.subject), commits.length > 1 ? opts.cover : undefined);
  const kunit = opts.kunit && opts.build ? await kunitEvidence(tree, opts, opts.kunit, { env: opts.env, log: opts.log }) : undefined;
  const kunitFailed = kunit !== undefined && !kunit.ok;
  const failed = patches.some(patchFailed) || seriesProblems.some((p) => p.severity === 'error') || kunitFailed;
  return {
    series: { name: opts.series?.name ?? null, version: opts.series?.version ?? null, base: opts.base, tip: opts.tip, patches: commits.length },
    config: opts.config,
    compiler,
    patches,
    problems: seriesProblems,
    ...(kunit ? { kunit } : {}),
    verdict: patches.some(patchHasFindings) || seriesProblems.length > 0 || kunitFailed ? 'findings' : 'clean',
    failed,
  };
}

async function assertCanBuild(opts: BuildOptions): Promise<void> {
  assertConfig(opts.config);
  const missing = await missingBuildPackages(opts.env);
  if (missing.length > 0) {
    throw new MissingToolError(`kernel builds need Debian packages that are missing: ${missing.join(' ')}`, `apt-get install -y ${missing.join(' ')}  (or kseries doctor --install; --no-build skips builds)`);
  }
}

interface BuiltRange {
  reports: BuildReport[];
  proofs: ObjectProof[][];
  compiler: string;
  compilerVersion?: string;
}

/** Only the builds and object-code proofs of a range (generate measures a series with this before writing its messages). */
export async function proveRange(opts: BuildOptions & { tree: KernelTree; base: string; tip: string }): Promise<BuiltRange> {
  await assertCanBuild(opts);
  const commits = await readCommits(opts.tree, opts.base, opts.tip);
  const mails = await formatMails(opts.tree, opts.base, opts.tip);
  const check: CheckOptions = { ...opts, build: true, full: false, strict: false };
  return buildAll(check, commits, mails, () => {});
}

/**
 * Build the base, then each patch in order, compiling the objects it touches (and a sample of header dependents).
 * Objects a recipe proves something about are read after every step, so each proof compares the patch's code with
 * the code of the step before it.
 */
async function buildAll(
  opts: CheckOptions,
  commits: Commit[],
  mails: string[],
  step: NonNullable<CheckOptions['onStep']>,
): Promise<BuiltRange> {
  const { tree } = opts;
  return withLock(tree, async () => {
    const source = await worktreeAt(tree, opts.base);
    const build = new KernelBuild(tree, source, opts);
    const plans = [];
    for (const c of commits) plans.push(await objectsOf(tree, c, opts.full, build));
    const objects = [...new Set(plans.flatMap((p) => p.objects))];
    const symbols = new Map<string, string[] | undefined>();
    for (const o of objects) symbols.set(o, await configSymbolsFor(o.replace(/\.o$/, '.c'), (f) => readAtCommit(tree.root, opts.tip, f)));
    const off = await build.configure([...new Set([...symbols.values()].flatMap((s) => s ?? []))], opts.tip);
    const reasonFor = (o: string) => (symbols.get(o) ?? []).map((s) => off.get(s)).find((r) => r !== undefined);

    // Each registered prover decides from a patch whether it has something to prove, and in which objects.
    const provers = registeredProvers();
    const wanted = mails.map((m) => provers.map((v) => ({ asRun: v.readsFinal === true, objects: v.objectsToProve(m) })));
    const toProve = wanted.map((w) => w.flatMap((x) => x.objects));
    const proved = new Set(toProve.flat());
    const asRun = new Set(wanted.flat().flatMap((x) => (x.asRun ? x.objects : [])));
    const code = new Map<string, ObjectCode>();
    const objectFile = (o: string) => path.join(build.buildDir, o);
    const objtool = path.join(build.buildDir, 'tools/objtool/objtool');

    const last = new Map<string, CompilerMessage[]>();
    const atBase = [];
    for (const o of objects) if (!reasonFor(o) && (await exists(tree, opts.base, o))) atBase.push(o);
    for (const r of await build.compileMany(atBase)) {
      last.set(r.object, r.messages);
      if (r.ok && proved.has(r.object)) code.set(r.object, await readObjectCode(objectFile(r.object)));
    }
    const reports: BuildReport[] = [];
    const proofs: ObjectProof[][] = [];
    for (const [i, c] of commits.entries()) {
      const plan = plans[i]!;
      proofs.push([]);
      if (plan.objects.length === 0) {
        reports.push(skipped('touches no C or assembly file'));
        continue;
      }
      step(i + 1, 'build', 'start', plan.objects.join(' '));
      await gitRaw(source, ['checkout', '-q', '--detach', c.sha]);
      const report: BuildReport = { status: 'ok', objects: [], errors: [], newWarnings: [], notBuilt: [], note: plan.note };
      for (const o of plan.objects) {
        const reason = reasonFor(o);
        if (reason) report.notBuilt.push({ object: o, reason });
        else report.objects.push(o);
      }
      const around = new Map<string, ObjectAround>(toProve[i]!.map((o) => [o, { before: code.get(o), notBuilt: reasonFor(o) ?? 'the build failed' }]));
      for (const r of await build.compileMany(report.objects)) {
        const o = r.object;
        if (!r.ok) {
          report.status = 'failed';
          const errors = r.messages.filter((m) => m.level === 'error').map((m) => m.text);
          report.errors.push(...(errors.length ? errors : [`${o}: make failed`]));
        }
        report.newWarnings.push(...newWarnings(last.get(o) ?? [], r.messages).map((w) => w.text));
        last.set(o, r.messages);
        if (!r.ok || !proved.has(o)) continue;
        const compiled = await readObjectCode(objectFile(o));
        if (around.has(o)) around.set(o, { before: code.get(o), compiled, final: asRun.has(o) ? await readObjectAsRun(objectFile(o), objtool) : undefined });
        code.set(o, compiled);
      }
      if (report.objects.length === 0 && report.status === 'ok') report.status = 'skipped';
      if (around.size > 0) proofs[i] = provers.flatMap((v) => v.prove(mails[i]!, around));
      step(i + 1, 'build', 'done', report.status);
      reports.push(report);
    }
    return { reports, proofs, compiler: build.compiler, compilerVersion: build.compilerVersion };
  });
}

/** The objects a commit's changes ask to build: its .c/.S files, and for each header a sample of its dependents. */
async function objectsOf(tree: KernelTree, c: Commit, full: boolean, build: KernelBuild): Promise<{ objects: string[]; note?: string }> {
  const objects = new Set<string>();
  const notes: string[] = [];
  for (const { status, file } of c.files) {
    if (status.startsWith('D')) continue;
    if (/\.[cS]$/.test(file)) objects.add(file.replace(/\.[cS]$/, '.o'));
    if (file.endsWith('.h')) {
      const dependents = [...new Set([...build.objectsDependingOn(file), ...(await headerIncluders(tree, c.sha, file))])];
      const chosen = full ? dependents : dependents.slice(0, HEADER_SAMPLE);
      chosen.forEach((d) => objects.add(d));
      if (chosen.length < dependents.length) notes.push(`${file}: built ${chosen.length} of ${dependents.length} dependents (--full builds all)`);
    }
  }
  return { objects: [...objects].sort(), note: notes.join('; ') || undefined };
}

/**
 * .c files that include a header directly: `<linux/x.h>` for include/ and arch/x86/include/, `"x.h"` beside it.
 * Other architectures' files are left out: this build is x86-64.
 */
async function headerIncluders(tree: KernelTree, commit: string, header: string): Promise<string[]> {
  const m = /^(?:arch\/x86\/)?include\/(?:uapi\/)?(.+)$/.exec(header);
  const pattern = m ? `#include <${m[1]}>` : `#include "${path.posix.basename(header)}"`;
  const where = m ? ['*.c'] : [`${path.posix.dirname(header)}/*.c`];
  const out = await gitRaw(tree.root, ['grep', '-l', '-F', pattern, commit, '--', ...where]).catch(() => '');
  return out
    .split('\n')
    .filter(Boolean)
    .map((l) => l.slice(commit.length + 1))
    .filter((f) => !f.startsWith('arch/') || f.startsWith('arch/x86/'))
    .map((f) => f.replace(/\.c$/, '.o'))
    .sort();
}

async function exists(tree: KernelTree, commit: string, object: string): Promise<boolean> {
  const base = object.replace(/\.o$/, '');
  return (await readAtCommit(tree.root, commit, `${base}.c`)) !== undefined || (await readAtCommit(tree.root, commit, `${base}.S`)) !== undefined;
}

function skipped(note: string): BuildReport {
  return { status: 'skipped', objects: [], errors: [], newWarnings: [], notBuilt: [], note };
}

async function readCommits(tree: KernelTree, base: string, tip: string): Promise<Commit[]> {
  const shas = (await gitRaw(tree.root, ['rev-list', '--reverse', `${base}..${tip}`])).trim().split('\n').filter(Boolean);
  const commits: Commit[] = [];
  for (const sha of shas) {
    const meta = await gitRaw(tree.root, ['log', '-1', '--format=%an%x00%ae%x00%B', sha]);
    const [name, email, message] = meta.split('\0');
    const [subject = '', ...rest] = (message ?? '').replace(/\n+$/, '').split('\n');
    const files = (await gitRaw(tree.root, ['diff-tree', '-r', '--no-commit-id', '--name-status', '--no-renames', sha]))
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((l) => {
        const [status = '', file = ''] = l.split('\t');
        return { status, file };
      });
    commits.push({ sha, subject, body: rest.join('\n').replace(/^\n+/, ''), author: { name: name!, email: email! }, files });
  }
  return commits;
}

/** Each commit as the mail git format-patch makes of it, for checkpatch and get_maintainer. */
async function formatMails(tree: KernelTree, base: string, tip: string): Promise<string[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-check-'));
  try {
    await gitRaw(tree.root, ['format-patch', '-q', '-o', dir, '--no-signature', `${base}..${tip}`]);
    return fs.readdirSync(dir).sort().map((f) => fs.readFileSync(path.join(dir, f), 'utf8'));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function maintainersOf(tree: KernelTree, mail: string, useGit: boolean) {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-gm-')), 'patch');
  try {
    fs.writeFileSync(file, mail);
    return await runGetMaintainer(tree.root, file, { useGit });
  } finally {
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  }
}

function splitAddresses(header: string | undefined): string[] {
  return (header ?? '').split(/,\s*/).map((a) => a.trim()).filter(Boolean);
}

