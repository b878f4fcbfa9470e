// Series written as mail for review tests: each patch's diff made (jsdiff) against the real tree's file as the patches
// before it left it, wrapped the way git format-patch wraps it, threaded under a cover letter.
import { createTwoFilesPatch } from 'diff';
import { execFileSync } from 'node:child_process';

export interface Edit {
  file: string;
  /** Text to replace (its first occurrence; it must occur in the file). */
  from: string;
  to: string;
  /** Make the diff against this text instead of the file as the patches before left it (a patch from another base). */
  base?: string;
}

export interface PatchSpec {
  subject: string;
  body: string;
  edits: Edit[];
  /** Defaults to the series author. */
  author?: string;
  /** Change the mail after it is written (mangling, extra headers). */
  mangle?: (mail: string) => string;
}

export interface SeriesSpec {
  /** The tree whose files the diffs are made against (read with git show REV:file). */
  root: string;
  rev: string;
  version?: number;
  prefix?: string;
  cover?: { subject: string; body: string };
  author?: string;
  /** Put a base-commit: line (the tree's rev) in the cover letter (or the only patch). */
  baseCommit?: string | false;
  patches: PatchSpec[];
  /** Message-ID domain, so two series do not collide. */
  id?: string;
  /** To: of every mail (default linux-kernel@vger.kernel.org). */
  to?: string[];
}

export const AUTHOR = 'Ada Tester <ada@example.org>';

export function seriesMbox(s: SeriesSpec): string {
  const files = new Map<string, string>();
  const read = (f: string) => {
    if (!files.has(f)) files.set(f, execFileSync('git', ['show', `${s.rev}:${f}`], { cwd: s.root, encoding: 'utf8', maxBuffer: 64 << 20 }));
    return files.get(f)!;
  };
  const n = s.patches.length;
  const v = s.version && s.version > 1 ? ` v${s.version}` : '';
  const prefix = s.prefix ?? 'PATCH';
  const id = (i: number) => `20261201.${i}.${s.id ?? 'kseries-test'}@example.org`;
  const number = (i: number) => (n > 1 || s.cover ? ` ${i}/${n}` : '');
  const base = s.baseCommit === false ? '' : `\nbase-commit: ${s.baseCommit ?? execFileSync('git', ['rev-parse', s.rev], { cwd: s.root, encoding: 'utf8' }).trim()}\n`;
  const mails: string[] = [];
  const author = (p?: PatchSpec) => p?.author ?? s.author ?? AUTHOR;
  const to = s.to ?? ['linux-kernel@vger.kernel.org'];
  if (s.cover) {
    mails.push(mail(author(), `[${prefix}${v}${number(0)}] ${s.cover.subject}`, id(0), undefined, `${s.cover.body}\n\n${'-'.repeat(3)}\n${base}-- \n2.39.5\n`, 0, to));
  }
  s.patches.forEach((p, k) => {
    const i = k + 1;
    let diff = '';
    for (const e of p.edits) {
      const before = e.base ?? read(e.file);
      if (!before.includes(e.from)) throw new Error(`test series: ${e.file} has no ${JSON.stringify(e.from)}`);
      const after = before.replace(e.from, e.to);
      if (e.base === undefined) files.set(e.file, after);
      const d = createTwoFilesPatch(`a/${e.file}`, `b/${e.file}`, before, after, undefined, undefined, { context: 3 });
      diff += `diff --git a/${e.file} b/${e.file}\n${d.split('\n').slice(1).join('\n')}`;
    }
    const tail = !s.cover && i === n ? base : '';
    const text = mail(author(p), `[${prefix}${v}${number(i)}] ${p.subject}`, id(i), s.cover ? id(0) : i > 1 ? id(1) : undefined, `${p.body}\n---\n${diff}${tail}-- \n2.39.5\n`, i, to);
    mails.push(p.mangle ? p.mangle(text) : text);
  });
  return mails.join('\n');
}

function mail(from: string, subject: string, msgid: string, parent: string | undefined, body: string, i: number, to = ['linux-kernel@vger.kernel.org']): string {
  const date = new Date(Date.UTC(2026, 11, 1, 8, 0, i)).toUTCString().replace('GMT', '+0000');
  return [
    'From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001',
    `From: ${from}`,
    `Date: ${date}`,
    `Subject: ${subject}`,
    `Message-Id: <${msgid}>`,
    ...(parent ? [`In-Reply-To: <${parent}>`, `References: <${parent}>`] : []),
    `To: ${to.join(', ')}`,
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=UTF-8',
    'Content-Transfer-Encoding: 8bit',
    '',
    body,
  ].join('\n');
}

/** A reply in the thread, e.g. giving a Reviewed-by. */
export function replyMail(to: { subject: string; msgid: string }, from: string, body: string, n = 1): string {
  return mail(from, `Re: ${to.subject}`, `reply.${n}.${to.msgid}`, to.msgid, body, 50 + n);
}
