// Writing a reply to a received mail: Re: subject, threading headers, recipients, quoting. Pure.
import { createHash } from 'node:crypto';
import { formatAddress, type Address, type Message } from './mailbox.js';

export interface ReplyOptions {
  from: Address;
  /** Addressed to the author only unless true: then the original To and Cc are copied. */
  replyAll: boolean;
  date: Date;
}

/** A complete RFC 2822 reply to `to` with `body` (UTF-8, 8bit), threaded under it. */
export function writeReply(to: Message, body: string, opts: ReplyOptions): string {
  const self = opts.from.address.toLowerCase();
  const author = to.from;
  const others = opts.replyAll ? [...to.to, ...to.cc].filter((a) => a.address.toLowerCase() !== author.address.toLowerCase() && a.address.toLowerCase() !== self) : [];
  const unique = [...new Map(others.map((a) => [a.address.toLowerCase(), a])).values()];
  const refs = [...to.references.filter((r) => r !== to.messageId), ...(to.messageId ? [to.messageId] : [])];
  const id = createHash('sha1').update(`${to.messageId ?? to.subject}\0${body}`).digest('hex').slice(0, 20);
  const headers = [
    `From: ${encodeHeader(formatAddress(opts.from))}`,
    `To: ${encodeHeader(formatAddress(author))}`,
    ...(unique.length ? [`Cc: ${unique.map((a) => encodeHeader(formatAddress(a))).join(',\n    ')}`] : []),
    `Subject: ${encodeHeader(/^re:/i.test(to.subject) ? to.subject : `Re: ${to.subject}`)}`,
    `Date: ${mailDate(opts.date)}`,
    `Message-ID: <kseries-review-${id}@kseries.invalid>`,
    // A mail without a Message-ID cannot be answered in its thread: no made-up In-Reply-To.
    ...(to.messageId ? [`In-Reply-To: <${to.messageId}>`] : []),
    ...(refs.length ? [`References: ${refs.map((r) => `<${r}>`).join('\n    ')}`] : []),
  ];
  return writeMail(headers, body.replace(/\n*$/, '\n'));
}

/** A plain-text mail: the headers given, then UTF-8 8bit MIME headers, a blank line and the body. */
export function writeMail(headers: string[], body: string): string {
  return `${[...headers, 'MIME-Version: 1.0', 'Content-Type: text/plain; charset=UTF-8', 'Content-Transfer-Encoding: 8bit'].join('\n')}\n\n${body}`;
}

/** A date as mail headers write it, in UTC: "Tue, 01 Dec 2026 08:00:00 +0000". */
export function mailDate(d: Date): string {
  return d.toUTCString().replace(/GMT$/, '+0000');
}

/** "On <date>, <name> wrote:" */
export function attribution(m: Message): string {
  const when = m.date ? mailDate(m.date) : 'an earlier date';
  return `On ${when}, ${m.from.name || m.from.address} wrote:`;
}

export function quote(lines: string[]): string[] {
  return lines.map((l) => (l === '' ? '>' : `> ${l}`));
}

/** RFC 2047 for a header value that is not plain ASCII. */
export function encodeHeader(value: string): string {
  return /^[\x20-\x7e]*$/.test(value) ? value : `=?UTF-8?B?${Buffer.from(value, 'utf8').toString('base64')}?=`;
}
