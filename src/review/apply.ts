// Apply a received series with `git am`, one patch at a time, in kseries' own worktree on the base, and keep the
// result as kseries/review/<series>/v<N>. A patch that does not apply is diagnosed hunk by hunk; the ones after it
// are reported as not applied. The user's branch, index and files are never touched.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MailboxError } from '../errors.js';
import { formatAddress, type Message } from '../mail/mailbox.js';
import { encodeHeader, mailDate, writeMail } from '../mail/reply.js';
import { gitRaw, gitRunRaw, readManyAtCommit } from '../tools/git.js';
import { checkNoSymlinkOut, checkTreePath } from '../tree/paths.js';
import type { KernelTree } from '../tree/tree.js';
import { withLock, worktreeAt, writingWorktree } from '../tree/worktree.js';
import { guessBase } from './base-guess.js';
import { appliedInSubstance, diagnose, diffPart, pathsOf, substanceOf, type HunkFailure, type Substance } from './diagnose.js';
import type { IncomingPatch } from './intake.js';
import { addTrailers } from './trailers.js';
import { recount } from '../edits/apply.js';

export interface ApplyOutcome {
  index: number;
  applied: boolean;
  commit?: string;
  /** Why it did not apply, in one line. */
  reason?: string;
  /** It did not apply because the tree already has it. */
  already?: boolean;
  /** What git applied only once repaired, said as a warning: blank context lines a mail client stripped of their space. */
  damage?: string;
  failures: HunkFailure[];
}

/** Who commits what git am applies: kseries, so the reviewer's own identity is not needed. */
const COMMITTER = { GIT_COMMITTER_NAME: 'kseries review', GIT_COMMITTER_EMAIL: 'kseries@localhost' };

/** Refuse (exit 2) a patch whose paths leave the tree, point into .git, or lead through a symlink out of it. */
export function assertSafePaths(root: string, patch: IncomingPatch): void {
  for (const p of pathsOf(diffPart(patch.message.body))) {
    const what = `patch ${patch.index} ("${patch.subject.summary}")`;
    try {
      checkNoSymlinkOut(root, checkTreePath(p, what), what);
    } catch (e) {
      throw new MailboxError(e instanceof Error ? e.message : String(e), 'kseries applies only patches whose files are inside the kernel tree');
    }
  }
}

export async function applySeries(tree: KernelTree, base: string, patches: IncomingPatch[], branch: string): Promise<{ outcomes: ApplyOutcome[]; tip: string }> {
  return withLock(tree, async () => {
    const dir = await worktreeAt(tree, base);
    for (const p of patches) assertSafePaths(dir, p);
    const outcomes: ApplyOutcome[] = [];
    const touched = new Map<string, number[]>();
    const work = fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-am-'));
    try {
      await writingWorktree(tree, async () => {
        let stopped: string | undefined;
        /** Patches that did not apply, and the files each touches. */
        const failed: { index: number; files: string[] }[] = [];
        // The parts the mailbox holds, in order; a part it lacks is named once by intake, not here.
        for (const p of [...patches].sort((a, b) => a.index - b.index)) {
          const i = p.index;
          if (stopped) {
            outcomes.push({ index: i, applied: false, ...(await onItsOwn(dir, base, p, failed, stopped)), failures: [] });
            continue;
          }
          const file = path.join(work, `${String(i).padStart(4, '0')}.eml`);
          fs.writeFileSync(file, mailForAm(p));
          const sent = diffPart(p.message.body);
          // A mail client that strips trailing whitespace leaves empty context lines empty. git reads such a line as
          // an empty context line, and so does kseries, with the counts taken from the lines (git apply --recount);
          // it is said as a warning, applied or not.
          const repaired = blankContext(sent);
          const diff = repaired?.diff ?? sent;
          const damage = repaired ? `${repaired.lines} blank context line${repaired.lines === 1 ? '' : 's'} lost ${repaired.lines === 1 ? 'its' : 'their'} leading space on the way (a mail client); read as empty context lines, as git apply does` : undefined;
          // git apply --check first: on a large tree a git am that fails, and its --abort, cost seconds each (both
          // refresh the whole index), the check tens of milliseconds; a bot meets far more patches that do not apply.
          // A mail whose diff kseries does not find (no a/ b/ headers) goes to git am as it is.
          const check = async (d: string) => gitRunRaw(dir, ['apply', '--check'], { input: d });
          const checked = sent ? await check(sent) : undefined;
          const using = !checked || checked.code === 0 ? sent : repaired && (await check(repaired.diff)).code === 0 ? repaired.diff : undefined;
          if (using !== undefined && using !== sent) fs.writeFileSync(file, mailForAm(p, using));
          const am = using === undefined ? checked! : await gitRunRaw(dir, ['am', '-q', '--no-3way', file], { env: COMMITTER });
          if (using !== undefined && am.code !== 0) await gitRunRaw(dir, ['am', '--abort']);
          if (am.code === 0) {
            const commit = (await gitRaw(dir, ['rev-parse', 'HEAD'])).trim();
            outcomes.push({ index: i, applied: true, commit, ...(damage ? { damage } : {}), failures: [] });
            for (const f of pathsOf(diff)) touched.set(f, [...(touched.get(f) ?? []), i]);
            continue;
          }
          // Already in the tree: later patches may still apply, so go on.
          const already = await alreadyApplied(dir, base, diff);
          if (already) {
            outcomes.push({ index: i, applied: false, already: true, reason: already, failures: [] });
            continue;
          }
          const atBase = await readManyAtCommit(dir, base, pathsOf(diff));
          const gitSays = am.stderr.split('\n').find((l) => /^(error|fatal):/.test(l))?.trim() ?? `git am exited with ${am.code}`;
          const found = diagnose(diff, { now: (f) => readFile(dir, f), atBase: (f) => atBase.get(f), touchedBy: (f) => touched.get(f) ?? [] });
          // "Damaged" only when git cannot read the diff either; else git's own words.
          const gitReadsIt = found.some((f) => f.kind === 'mangled' && f.hunk === 0) && (await gitRunRaw(dir, ['apply', '--stat'], { input: diff })).code === 0;
          const failures = gitReadsIt ? [] : found;
          const reason = failures.length ? kindWords(failures[0]!.kind) : diff ? 'does not apply' : 'holds no diff';
          const guess = failures.some((f) => f.kind !== 'mangled') ? await guessBase(dir, diff) : undefined;
          const madeOn = guess ? `; its index lines name the files of ${guess.commit}${guess.matched < guess.of ? ` (${guess.matched} of ${guess.of} files)` : ''}` : '';
          outcomes.push({ index: i, applied: false, reason: `${reason}: ${failures[0]?.message ?? gitSays}${madeOn}`, ...(damage ? { damage } : {}), failures });
          stopped = `patch ${i} before it did not apply`;
          failed.push({ index: i, files: pathsOf(diff) });
        }
      });
    } finally {
      fs.rmSync(work, { recursive: true, force: true });
    }
    const tip = (await gitRaw(dir, ['rev-parse', 'HEAD'])).trim();
    await gitRaw(tree.root, ['branch', '-f', branch, tip]);
    return { outcomes, tip };
  });
}

/**
 * What a patch after a failed one would do: apply on what did apply (so it needs none of the failed ones), or need
 * the failed patches that touch its files, or fail on its own.
 */
async function onItsOwn(dir: string, base: string, p: IncomingPatch, failed: { index: number; files: string[] }[], stopped: string): Promise<{ reason: string; already?: true }> {
  const diff = diffPart(p.message.body);
  if (diff && (await gitRunRaw(dir, ['apply', '--check'], { input: diff })).code === 0) return { reason: `not applied: ${stopped}; it applies without it` };
  const already = await alreadyApplied(dir, base, diff);
  if (already) return { reason: already, already: true };
  const files = new Set(pathsOf(diff));
  const needs = failed.filter((f) => f.files.some((x) => files.has(x))).map((f) => f.index);
  return { reason: needs.length ? `not applied: needs patch ${needs.join(', ')}, which did not apply` : `not applied: ${stopped}, and it does not apply on its own either` };
}

/** Why the tree already has a patch that does not apply: its reverse applies (the commit named), or it has it in substance. */
async function alreadyApplied(dir: string, base: string, diff: string): Promise<string | undefined> {
  if (!diff) return undefined;
  if ((await gitRunRaw(dir, ['apply', '-R', '--check'], { input: diff })).code === 0) {
    const commit = await commitWithPatch(dir, base, diff);
    return `already applied: the tree has this change${commit ? ` (commit ${commit})` : ''}`;
  }
  const substance = substanceOf(diff, (f) => readFile(dir, f));
  return appliedInSubstance(substance) ? inSubstance(substance!) : undefined;
}

function inSubstance(s: Substance): string {
  const whole = s.addedThere === s.added && s.removedGone === s.removed;
  const runs = (n: number, of: number, what: string, state: string) =>
    of === 1 ? `the run of lines it ${what} is ${state}` : `${n === of ? `all ${of}` : `${n} of ${of}`} runs of lines it ${what} are ${state}`;
  const said = [s.added ? runs(s.addedThere, s.added, 'adds', 'in the tree') : '', s.removed ? runs(s.removedGone, s.removed, 'removes', 'gone') : ''].filter(Boolean);
  return `already applied in substance${whole ? '' : ', and changed since'}: ${said.join(', ')}; neither it nor its reverse applies, as the code around them changed`;
}

/** The commit before `base` (of the last 500 touching its files) whose patch-id is the diff's, as `git cherry` matches. */
async function commitWithPatch(dir: string, base: string, diff: string): Promise<string | undefined> {
  const id = (await gitRunRaw(dir, ['patch-id', '--stable'], { input: diff })).stdout.split(' ')[0];
  if (!id) return undefined;
  const log = await gitRunRaw(dir, ['log', '-p', '-n', '500', '--format=commit %H', base, '--', ...pathsOf(diff)]);
  const ids = (await gitRunRaw(dir, ['patch-id', '--stable'], { input: log.stdout })).stdout;
  const sha = ids.split('\n').map((l) => l.split(' ')).find(([p]) => p === id)?.[1];
  return sha ? `${sha.slice(0, 12)} ("${(await gitRaw(dir, ['log', '-1', '--format=%s', sha])).trim()}")` : undefined;
}

function readFile(dir: string, file: string): string | undefined {
  try {
    return fs.readFileSync(path.join(dir, file), 'utf8');
  } catch {
    return undefined;
  }
}

function kindWords(kind: HunkFailure['kind']): string {
  return kind === 'wrong-base' ? 'wrong base' : kind === 'conflict' ? 'conflict' : 'mangled mail';
}

/**
 * The mail git am gets: the decoded text as UTF-8 8bit (so trailers from replies can be added to the message),
 * author and date as sent, the subject as sent (git am strips the [PATCH] prefix).
 */
export function mailForAm(p: IncomingPatch, diff?: string): string {
  const m: Message = p.message;
  const body = diff === undefined ? m.body : m.body.replace(diffPart(m.body), diff);
  const headers = [
    `From: ${encodeHeader(formatAddress(m.from))}`,
    ...(m.date ? [`Date: ${mailDate(m.date)}`] : []),
    `Subject: ${encodeHeader(m.subject)}`,
    ...(m.messageId ? [`Message-ID: <${m.messageId}>`] : []),
  ];
  return writeMail(headers, addTrailers(body, p.trailers));
}

/**
 * The diff with its hunks' empty lines read as empty context lines and the counts taken from the lines, as git apply
 * --recount reads it; undefined when no hunk has an empty line (or the diff cannot be read so).
 */
function blankContext(diff: string): { diff: string; lines: number } | undefined {
  const lines = diff.split('\n');
  // An empty line after the last hunk line ends the diff; one before it is a context line that lost its space.
  const last = lines.reduce((at, x, i) => (/^[ +-]/.test(x) && !x.startsWith('-- ') && !x.startsWith('--- ') ? i : at), -1);
  let inHunk = false;
  let blank = 0;
  for (const [i, l] of lines.entries()) {
    if (l.startsWith('@@')) inHunk = true;
    else if (l.startsWith('diff ') || l.startsWith('--- ')) inHunk = false;
    else if (inHunk && l === '' && i < last) blank++;
  }
  if (!blank) return undefined;
  try {
    return { diff: recount(diff, 'the mail'), lines: blank };
  } catch {
    return undefined;
  }
}
