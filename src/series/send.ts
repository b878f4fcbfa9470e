// `kseries send`: hand an emitted series to git send-email; a dry run unless asked to send.
import fs from 'node:fs';
import path from 'node:path';
import { SeriesError } from '../errors.js';
import { gitRun } from '../tools/git.js';
import { getHeader, splitMail } from '../mail/headers.js';

export interface SendOptions {
  /** out/<series>/v<N>/ */
  dir: string;
  cwd: string;
  send: boolean;
  smtpServer?: string;
  smtpPort?: number;
  /** none | ssl | tls */
  smtpEncryption?: string;
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
  return { sent: opts.send, files, output: res.stdout + res.stderr };
}
