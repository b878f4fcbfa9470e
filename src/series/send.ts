// `kseries send`: hand an emitted series to git send-email; a dry run unless asked to send.
import fs from 'node:fs';
import path from 'node:path';
import { placeholderAddress } from '../check/rules.js';
import { LOCAL_BASE_HINT, localBase } from './base.js';
import { SeriesError, UsageError } from '../errors.js';
import { gitRun } from '../tools/git.js';
import { getHeader, splitMail } from '../mail/headers.js';
import { POSTED, postedPart, type PostedMatch } from '../mail/posted.js';

export interface SendOptions {
  /** out/<series>/v<N>/ */
  dir: string;
  cwd: string;
  send: boolean;
  /** Send even from an address that is no person's (a reserved domain, noreply). */
  force?: boolean;
  smtpServer?: string;
  smtpPort?: number;
  /** none | ssl | tls */
  smtpEncryption?: string;
  /** The time to pace parts by (tests). */
  now?: Date;
}

export interface SendResult {
  sent: boolean;
  files: string[];
  output: string;
}

export async function sendSeries(opts: SendOptions): Promise<SendResult> {
  if (!fs.existsSync(opts.dir)) throw new SeriesError(`${opts.dir} does not exist`, 'run `kseries emit` first');
  const files = fs
    .readdirSync(opts.dir)
    .filter((f) => /^\d{4}-.*\.patch$/.test(f))
    .sort()
    .map((f) => path.join(opts.dir, f));
  if (files.length === 0) throw new SeriesError(`${opts.dir} holds no patches`, 'run `kseries emit` first');
  const first = splitMail(fs.readFileSync(files[0]!, 'utf8')).headers;
  const from = getHeader(first, 'From') ?? '';
  if (opts.send && !opts.force) {
    // First what no other fix mends: the maintainers have these patches already.
    refusePosted(opts.dir);
    refusePlaceholders(files);
    await refuseLocalBase(files, opts.cwd);
    refuseEarlyPart(opts.dir, files, opts.now ?? new Date());
  }
  const args = [
    'send-email',
    '--confirm=never',
    '--no-thread',
    '--suppress-cc=body',
    '--no-format-patch',
    '--8bit-encoding=UTF-8',
    `--from=${from}`,
  ];
  if (!opts.send) args.push('--dry-run');
  if (opts.smtpServer) args.push(`--smtp-server=${opts.smtpServer}`);
  if (opts.smtpPort) args.push(`--smtp-server-port=${opts.smtpPort}`);
  if (opts.smtpEncryption) args.push(`--smtp-encryption=${opts.smtpEncryption}`);
  args.push(...files);
  const res = await gitRun(opts.cwd, args, { env: { GIT_TERMINAL_PROMPT: '0' } });
  if (opts.send) fs.writeFileSync(path.join(opts.dir, SENT), `${JSON.stringify({ sentAt: (opts.now ?? new Date()).toISOString() })}\n`);
  return { sent: opts.send, files, output: res.stdout + res.stderr };
}

/** The file send leaves beside a series it sent: when, so that the next part of a cut series can wait for it. */
const SENT = 'sent.json';

/** When `send --send` sent the series emitted to `dir` (ISO time), or undefined if it has not. */
export function sentAt(dir: string): string | undefined {
  const file = path.join(dir, SENT);
  return fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as { sentAt: string }).sentAt : undefined;
}

/** How long the next part of a series waits after the one before it (maintainer-netdev.rst: no repost within 24h). */
const PART_PACE_MS = 24 * 60 * 60 * 1000;

/**
 * Part k of a tree's series cut to its limit ("... (part 2 of 4)" in the cover, out/<name>-2/) goes out only after
 * part k-1 was sent, and a day after it: the tree reviews a series at a time.
 */
export function refuseEarlyPart(dir: string, files: string[], now: Date): void {
  const cover = files.find((f) => path.basename(f).startsWith('0000-'));
  const part = cover && /\(part (\d+) of (\d+)\)/.exec(getHeader(splitMail(fs.readFileSync(cover, 'utf8')).headers, 'Subject') ?? '');
  const k = part ? Number(part[1]) : 1;
  if (k <= 1) return;
  const seriesDir = path.dirname(dir);
  const previous = path.join(path.dirname(seriesDir), path.basename(seriesDir).replace(/-(\d+)$/, `-${k - 1}`));
  const sent = fs.existsSync(previous) ? fs.readdirSync(previous).flatMap((v) => sentAt(path.join(previous, v)) ?? []) : [];
  const last = Math.max(0, ...sent.map((at) => Date.parse(at)));
  const name = path.basename(previous);
  if (!last) throw new UsageError(`this is part ${k} of ${part![2]}: part ${k - 1} (${name}) has not been sent`, `send ${name} first, and this one once it is applied; or send with --force`);
  if (now.getTime() - last < PART_PACE_MS) {
    const hours = Math.ceil((PART_PACE_MS - (now.getTime() - last)) / 3_600_000);
    throw new UsageError(`this is part ${k} of ${part![2]}: part ${k - 1} (${name}) went out less than a day ago`, `wait about ${hours} h (Documentation/process/maintainer-netdev.rst: "don't repost your patches within one 24h period"), or send with --force`);
  }
}

/** A series emit found posted already on the lists (--inbox: posted.json) is refused: its maintainers have it. */
function refusePosted(dir: string): void {
  const file = path.join(dir, POSTED);
  if (!fs.existsSync(file)) return;
  const { matches } = JSON.parse(fs.readFileSync(file, 'utf8')) as { matches: PostedMatch[] };
  const m = matches[0];
  if (!m) return;
  const applied = m.applied ? `, applied (${m.applied.by}, <${m.applied.messageId}>)` : '';
  throw new UsageError(`${postedPart(m)} was posted already: "${m.subject}" by ${m.from}${m.date ? ` on ${m.date}` : ''}, <${m.messageId}>${applied}${matches.length > 1 ? `; ${matches.length - 1} more in ${POSTED}` : ''}`, 'leave it out and generate again, or send with --force');
}

/** A series whose base-commit no remote holds is refused: nobody could apply it. */
async function refuseLocalBase(files: string[], treeRoot: string): Promise<void> {
  for (const file of files) {
    const base = /^base-commit: ([0-9a-f]{40})$/m.exec(fs.readFileSync(file, 'utf8'))?.[1];
    const why = base && (await localBase(treeRoot, base));
    if (why) throw new UsageError(`${path.basename(file)}: ${why}`, `${LOCAL_BASE_HINT}; or send with --force`);
  }
}

/** Real mail from an address nobody reads, or signed off by one, is refused: the list could not answer it. */
function refusePlaceholders(files: string[]): void {
  for (const file of files) {
    const mail = fs.readFileSync(file, 'utf8');
    const { headers, body } = splitMail(mail);
    const addresses = [getHeader(headers, 'From') ?? '', ...[...body.matchAll(/^Signed-off-by:.*$/gm)].map((m) => m[0])];
    for (const a of addresses) {
      const email = /<([^>]+)>/.exec(a)?.[1] ?? a.trim();
      const why = email && placeholderAddress(email);
      if (why) {
        throw new UsageError(`${path.basename(file)}: ${email} is ${why}, not a person's: the list could not answer it`, 'set your real address (git config user.email, or generate --from) and generate and emit again, or send with --force');
      }
    }
  }
}
