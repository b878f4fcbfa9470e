// Reading mail as list archives and `git format-patch` write it: an mbox file (mboxo or mboxrd), a Maildir, a
// folder of .patch/.eml files, or stdin. Splitting is git's own (`git mailsplit`, what `git am` uses); each message
// is parsed by mailparser (folded headers, RFC 2047 subjects, quoted-printable and base64 bodies, charsets).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { simpleParser, type AddressObject, type Attachment } from 'mailparser';
import { MailboxError } from '../errors.js';
import { mailsplit } from '../tools/git.js';

export interface Address {
  name: string;
  address: string;
}

export interface Message {
  /** Without angle brackets; absent when the mail has none (a reply to it then cannot be threaded). */
  messageId?: string;
  inReplyTo?: string;
  references: string[];
  subject: string;
  from: Address;
  to: Address[];
  cc: Address[];
  date?: Date;
  /** The decoded text body. */
  body: string;
  /** The message as it came, for `git am`. */
  raw: string;
}

/** Every message of `input` (a path, or '-' for stdin text given as `stdin`), in mailbox order. */
export async function readMailbox(input: string, stdin?: () => string): Promise<Message[]> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-mail-'));
  try {
    const sources = input === '-' ? [stdinFile(work, stdin)] : sourcesOf(input);
    const raws: Buffer[] = [];
    for (const [i, src] of sources.entries()) {
      const out = fs.mkdtempSync(path.join(work, `split-${i}-`));
      const files = await mailsplit(src, out).catch(() => {
        throw new MailboxError(`${input}: not an mbox, Maildir or mail file git can split`, 'give an mbox (lore t.mbox), a Maildir, a folder of .patch files, or - for stdin');
      });
      for (const f of files) raws.push(fs.readFileSync(f));
    }
    if (raws.length === 0) throw new MailboxError(`${input}: holds no message`, 'give an mbox with the series\' patches');
    const messages: Message[] = [];
    for (const [i, raw] of raws.entries()) {
      const m = await parseMessage(raw).catch((e: unknown) => {
        throw new MailboxError(`${input}: message ${i + 1} cannot be parsed (${e instanceof Error ? e.message : String(e)})`, 'give the series as git format-patch or a list archive wrote it');
      });
      messages.push(m);
    }
    return messages;
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

function stdinFile(work: string, stdin?: () => string): string {
  const file = path.join(work, 'stdin.mbox');
  fs.writeFileSync(file, stdin ? stdin() : fs.readFileSync(0));
  return file;
}

/** A file, a Maildir (cur/ and new/), or a folder of mail files (.patch, .eml, .mbox, .mbx, .diff, or format-patch's NNNN- names) taken in name order. */
function sourcesOf(input: string): string[] {
  let st: fs.Stats;
  try {
    st = fs.statSync(input);
  } catch {
    throw new MailboxError(`${input}: no such file or folder`, 'give an mbox, a Maildir or a folder of .patch files');
  }
  if (!st.isDirectory()) return [input];
  if (fs.existsSync(path.join(input, 'cur')) || fs.existsSync(path.join(input, 'new'))) return [input];
  // format-patch's NNNN-subject names whatever their extension (trees keep them as .tsn, .5g, .cve).
  const files = fs.readdirSync(input).filter((f) => /\.(patch|eml|mbox|mbx|diff)$/.test(f) || /^\d{4}-./.test(f)).sort().map((f) => path.join(input, f));
  if (files.length === 0) throw new MailboxError(`${input}: a folder without .patch, .eml or .mbox files, and not a Maildir`, 'give the folder git format-patch wrote, or an mbox');
  return files;
}

/** One message. */
export async function parseMessage(raw: Buffer): Promise<Message> {
  const m = await simpleParser(raw, { skipHtmlToText: true, skipTextToHtml: true, skipTextLinks: true, skipImageLinks: true });
  const refs = m.references === undefined ? [] : Array.isArray(m.references) ? m.references : m.references.split(/\s+/);
  return {
    messageId: bare(m.messageId) || undefined,
    inReplyTo: bare(m.inReplyTo) || undefined,
    references: refs.map(bare).filter(Boolean),
    subject: (m.subject ?? '').replace(/\s+/g, ' ').trim(),
    from: addresses(m.from)[0] ?? { name: '', address: '' },
    to: addresses(m.to),
    cc: addresses(m.cc),
    date: m.date,
    body: [m.text ?? '', ...m.attachments.filter(isTextPart).map(textOf)].join('\n').replace(/\r\n/g, '\n'),
    raw: raw.toString('latin1'),
  };
}

/** A text part sent as an attachment (a patch from Thunderbird, `dd-2.patch`): git mailinfo reads it as body text. */
function isTextPart(a: Attachment): boolean {
  return /^text\/(plain|x-patch|x-diff)$/i.test(a.contentType);
}

function textOf(a: Attachment): string {
  const charset = (a.headers.get('content-type') as { params?: { charset?: string } } | undefined)?.params?.charset ?? 'utf-8';
  try {
    return new TextDecoder(charset).decode(a.content);
  } catch {
    return a.content.toString('latin1');
  }
}

function bare(id: string | undefined): string {
  return (id ?? '').trim().replace(/^<|>$/g, '').trim();
}

function addresses(a: AddressObject | AddressObject[] | undefined): Address[] {
  const list = a === undefined ? [] : Array.isArray(a) ? a : [a];
  return list.flatMap((o) => o.value).flatMap((v) => (v.group ? v.group : [v])).map((v) => ({ name: v.name ?? '', address: v.address ?? '' })).filter((v) => v.address);
}

export function formatAddress(a: Address): string {
  return a.name ? `${/[(),.:;<>@[\]"]/.test(a.name) ? JSON.stringify(a.name) : a.name} <${a.address}>` : a.address;
}
