// Trailers given in replies (`Reviewed-by:` in a reply to a patch), collected onto the patch as `b4 am` does: only a
// reply's own lines, cleaned of what HTML mailers add, and only when the person named is the one who sent the reply.
import type { Address } from '../mail/mailbox.js';

/** The trailers a reviewer gives in a reply and that belong on the commit. */
const FOLLOW_UP = /^(Reviewed-by|Acked-by|Tested-by|Reported-by|Suggested-by|Nacked-by|Closes|Link|Fixes): +\S.*$/i;
/** Trailers that name a person, and so must come from that person. */
const PERSON = /^[A-Za-z-]+-by:/;

/** Trailer lines of a reply's own text: quoted lines (`>`) and anything after the signature (`-- `) are not its own. */
export function trailersOf(replyBody: string): string[] {
  const out: string[] = [];
  for (const line of replyBody.split('\n')) {
    if (line === '-- ') break;
    const t = withoutMailto(line.trim());
    if (line.startsWith('>') || !FOLLOW_UP.test(t)) continue;
    if (PERSON.test(t) && !/<[^>\s]+@[^>\s]+>/.test(t)) continue; // needs an address
    out.push(t.replace(/^([^:]+):\s+/, (_m, k: string) => `${canonicalKey(k)}: `));
  }
  return out;
}

/** `Name <a@b<mailto:a@b>>` (an HTML mailer's link) is `Name <a@b>`. */
function withoutMailto(line: string): string {
  return line.replace(/<mailto:[^>]*>/gi, '').replace(/\s+$/, '');
}

function canonicalKey(k: string): string {
  return k.split('-').map((w, i) => (i === 0 ? w[0]!.toUpperCase() + w.slice(1).toLowerCase() : w.toLowerCase())).join('-');
}

/**
 * Whether `sender` may give `trailer`: a trailer that names a person names the sender, by address (case, a
 * `+tag` and one extra domain label aside: foo+x@linux.intel.com is foo@intel.com) or by name. b4's rule.
 */
export function givenBy(trailer: string, sender: Address): boolean {
  if (!PERSON.test(trailer)) return true;
  const m = /^[^:]+:\s*(.*?)\s*<([^>\s]+@[^>\s]+)>/.exec(trailer);
  if (!m) return false;
  const [name, address] = [m[1]!.replace(/^"|"$/g, '').trim(), m[2]!];
  return sameAddress(address, sender.address) || (name !== '' && name.toLowerCase() === sender.name.trim().toLowerCase());
}

function sameAddress(a: string, b: string): boolean {
  const parts = (x: string) => {
    const [local, domain = ''] = x.toLowerCase().split('@');
    return { local: local!.replace(/\+.*$/, ''), domain };
  };
  const [x, y] = [parts(a), parts(b)];
  if (x.local !== y.local) return false;
  const [long, short] = x.domain.length >= y.domain.length ? [x.domain, y.domain] : [y.domain, x.domain];
  return long === short || (long.endsWith(`.${short}`) && !long.slice(0, -short.length - 1).includes('.'));
}

/**
 * The commit message (the mail body before its `---` line) with `trailers` added at the end of its trailer block,
 * each once. The rest of the body (diffstat, diff) is kept byte for byte.
 */
export function addTrailers(body: string, trailers: string[]): string {
  if (trailers.length === 0) return body;
  const cut = body.search(/^---$/m);
  const message = cut < 0 ? body : body.slice(0, cut);
  const tail = cut < 0 ? '' : body.slice(cut);
  const lines = message.replace(/\n+$/, '').split('\n');
  const have = new Set(lines.map((l) => l.trim().toLowerCase()));
  const fresh = trailers.filter((t) => !have.has(t.toLowerCase()));
  if (fresh.length === 0) return body;
  return `${[...lines, ...fresh].join('\n')}\n${tail}`;
}
