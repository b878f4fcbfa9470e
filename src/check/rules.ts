// Commit-message and series rules of Documentation/process/ that checkpatch does not check. Pure functions.

export type Severity = 'error' | 'warning' | 'note';

export interface Problem {
  /** Stable id of the rule. */
  kind: string;
  severity: Severity;
  message: string;
}

/** Whether a problem is a finding: a note only states a fact about what was received (another version, a resend). */
export function isFinding(p: Problem): boolean {
  return p.severity !== 'note';
}

export interface CommitMessage {
  subject: string;
  /** The message after the subject line. */
  body: string;
  author: { name: string; email: string };
}

export const SUBMITTING = 'submitting-patches.rst';
/** Columns of a subject (submitting-patches.rst: "no more than 70-75 characters"). */
export const SUMMARY_MAX = 75;
export const SERIES_MAX = 15;

/** Problems of one commit message. */
export function checkMessage(c: CommitMessage): Problem[] {
  const problems: Problem[] = [];
  const add = (kind: string, severity: Severity, message: string) => problems.push({ kind, severity, message });
  const m = /^([^:\s][^:]*(?::[^:\s][^:]*)*): (\S.*)$/.exec(c.subject);
  if (!m) add('subject-format', 'error', `subject "${c.subject}" is not "subsystem: Summary" (${SUBMITTING}, "The canonical patch format")`);
  else if (m[2]!.length > SUMMARY_MAX) {
    add('subject-length', 'warning', `summary is ${m[2]!.length} characters, more than ${SUMMARY_MAX} (${SUBMITTING}, "The canonical patch format")`);
  }
  const lines = c.body.split('\n');
  const trailerStart = trailerBlockStart(lines);
  const prose = lines.slice(0, trailerStart).join('\n').trim();
  const trailers = lines.slice(trailerStart).filter((l) => l.trim() !== '');
  if (!prose) add('body-empty', 'error', `the commit message has no body: say what the patch does and why (${SUBMITTING}, "Describe your changes")`);
  const own = `Signed-off-by: ${c.author.name} <${c.author.email}>`;
  // The author's, by address or by name: a name spelled otherwise (Ondřej, Ondrej) is checkpatch's own warning.
  const authors = (ls: string[]) => ls.filter((t) => /^Signed-off-by:/i.test(t.trim()) && sameSigner(t, c.author));
  if (!authors(trailers).length) {
    const elsewhere = authors(lines.slice(0, trailerStart))[0];
    if (elsewhere) add('signoff-misplaced', 'warning', `"${elsewhere.trim()}" is not in the trailer block that ends the message (text follows it), where git interpret-trailers and b4 look (${SUBMITTING}, "Sign your work - the Developer's Certificate of Origin")`);
    else add('author-signoff', 'error', `no "${own}" line from the author (${SUBMITTING}, "Sign your work - the Developer's Certificate of Origin")`);
  }
  for (const t of trailers.filter((l) => /^Fixes:/i.test(l))) {
    if (!/^Fixes: [0-9a-f]{12,40} \(".+"\)$/.test(t.trim())) {
      add('fixes-format', 'error', `"${t.trim()}" is not "Fixes: <12+ hex digits> (\\"subject\\")" (${SUBMITTING}, "Describe your changes")`);
    }
  }
  lines.forEach((l, i) => {
    if (!/stable@vger\.kernel\.org/i.test(l)) return;
    const isTrailer = i >= trailerStart && /^Cc:\s*<?stable@vger\.kernel\.org>?/i.test(l.trim());
    if (!isTrailer) {
      add('stable-cc', 'error', `stable@vger.kernel.org appears outside a "Cc: stable@vger.kernel.org" trailer (${SUBMITTING}, "Select the recipients for your patch")`);
    }
  });
  return problems;
}

/**
 * Problems of the series as a whole: its cover letter, repeated subjects (its length is a tree rule, tree-rules.ts). A cover letter is asked for
 * only of a series posted as mail (`mailed`): a range of commits has none. `parts` is how many patches were mailed
 * (a received series counts what it holds, whether or not each applied).
 */
export function checkSeries(subjects: string[], cover: { subject: string; body: string } | undefined, mailed: boolean, parts = subjects.length): Problem[] {
  const problems: Problem[] = [];
  if (mailed && parts > 1 && !cover) {
    problems.push({ kind: 'cover-missing', severity: 'warning', message: `a series of ${parts} patches customarily has a cover letter (5.Posting.rst, "Sending the patch")` });
  }
  if (cover && /\*\*\* (SUBJECT|BLURB) HERE \*\*\*|EDITME/.test(`${cover.subject}\n${cover.body}`)) {
    problems.push({ kind: 'cover-placeholder', severity: 'error', message: `the cover letter still holds placeholder text (5.Posting.rst, "Sending the patch")` });
  }
  const seen = new Map<string, number>();
  subjects.forEach((s, i) => {
    const first = seen.get(s);
    if (first !== undefined) problems.push({ kind: 'subject-repeated', severity: 'error', message: `patches ${first + 1} and ${i + 1} have the same subject "${s}" (${SUBMITTING}, "The canonical patch format")` });
    else seen.set(s, i);
  });
  return problems;
}

/** Whether a Signed-off-by line names the author: the same address, or the same name (case and spacing aside). */
function sameSigner(line: string, author: { name: string; email: string }): boolean {
  const m = /^Signed-off-by:\s*(.*?)\s*<([^>]+)>\s*$/i.exec(line.trim());
  if (!m) return false;
  const fold = (x: string) => x.replace(/\s+/g, ' ').trim().toLowerCase();
  return fold(m[2]!) === fold(author.email) || (fold(m[1]!) !== '' && fold(m[1]!) === fold(author.name));
}

/** Where the trailer block (the last paragraph of `Key: value` lines) starts; lines.length when there is none. */
function trailerBlockStart(lines: string[]): number {
  let end = lines.length;
  while (end > 0 && lines[end - 1]!.trim() === '') end--;
  let start = end;
  while (start > 0 && /^[A-Za-z][A-Za-z0-9-]*: \S/.test(lines[start - 1]!.trim())) start--;
  return start === end ? lines.length : start;
}

export interface Recipients {
  to: string[];
  cc: string[];
}

/**
 * Every maintainer and list get_maintainer.pl names should be among the recipients of a received mail. A person is
 * there under another address when a recipient has the same name, or the same address after `canonical` (the tree's
 * .mailmap): the tree's MAINTAINERS and the sender's differ in age. What is missing is the sender's to add: a warning.
 */
export function checkRecipients(expected: Recipients, got: Recipients, canonical: (address: string) => string = (a) => a): Problem[] {
  const all = [...got.to, ...got.cc];
  const have = new Set(all.flatMap((a) => [addressOf(a), canonical(addressOf(a))]));
  const names = new Set(all.map(nameOf).filter(Boolean));
  return [...expected.to, ...expected.cc]
    .filter((a) => !have.has(addressOf(a)) && !have.has(canonical(addressOf(a))) && !names.has(nameOf(a)))
    .map((a) => ({ kind: 'recipient-missing', severity: 'warning' as const, message: `${a} (from get_maintainer.pl) is not among the recipients, under this or another address (${SUBMITTING}, "Select the recipients for your patch")` }));
}

export function addressOf(a: string): string {
  return (/<([^>]+)>/.exec(a)?.[1] ?? a).trim().toLowerCase();
}

/** A recipient's display name, unquoted and folded ("" for a bare address or a list's). */
function nameOf(a: string): string {
  const name = /^(.*?)\s*<[^>]+>\s*$/.exec(a)?.[1] ?? '';
  return name.replace(/^"(.*)"$/, '$1').replace(/\s+/g, ' ').trim().toLowerCase();
}

/** Top-level names that never deliver mail (RFC 2606, RFC 6761): a placeholder, not a person. */
const RESERVED_TLDS = new Set(['example', 'invalid', 'test', 'localhost', 'local']);

/** Why an address is nobody's to write to ("a reserved domain (.example)", "a noreply address"), or undefined. */
export function placeholderAddress(email: string): string | undefined {
  const [local = '', domain = ''] = email.toLowerCase().split(/@(?=[^@]*$)/);
  if (!domain) return 'no domain';
  const tld = domain.split('.').pop()!;
  if (domain === 'localhost' || RESERVED_TLDS.has(tld)) return `a reserved domain (.${tld})`;
  if (/(^|[.+_-])no-?reply([.+_-]|$)/.test(local) || /(^|\.)no-?reply\./.test(domain)) return 'a noreply address';
  return undefined;
}

/**
 * Warnings for the addresses a patch is signed with that are not a real person's: the author's and every
 * Signed-off-by. A maintainer cannot answer them, and the DCO needs a real identity.
 */
export function checkIdentity(c: CommitMessage): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  const who = [{ role: 'author', email: c.author.email }, ...[...c.body.matchAll(/^Signed-off-by:.*<([^>]+)>\s*$/gim)].map((m) => ({ role: 'Signed-off-by', email: m[1]! }))];
  for (const w of who) {
    const why = placeholderAddress(w.email);
    if (!why || seen.has(`${w.role} ${w.email}`)) continue;
    seen.add(`${w.role} ${w.email}`);
    out.push(`the ${w.role} address ${w.email} is ${why}, not a person's (${SUBMITTING}, "Sign your work - the Developer's Certificate of Origin")`);
  }
  return out;
}
