// Trailers given in replies (`Reviewed-by:` in a reply to a patch), collected onto the patch as `b4 am` does. Pure.

/** The trailers a reviewer gives in a reply and that belong on the commit. */
const FOLLOW_UP = /^(Reviewed-by|Acked-by|Tested-by|Reported-by|Suggested-by|Nacked-by|Closes|Link|Fixes): +\S.*$/i;

/** Trailer lines of a reply's own text: quoted lines (`>`) and anything after the signature (`-- `) are not its own. */
export function trailersOf(replyBody: string): string[] {
  const out: string[] = [];
  for (const line of replyBody.split('\n')) {
    if (line === '-- ') break;
    const t = line.trim();
    if (line.startsWith('>') || !FOLLOW_UP.test(t)) continue;
    if (/^(Reviewed|Acked|Tested|Nacked)-by:/i.test(t) && !/<[^>\s]+@[^>\s]+>/.test(t)) continue; // needs an address
    out.push(t.replace(/^([^:]+):\s+/, (_m, k: string) => `${canonicalKey(k)}: `));
  }
  return out;
}

function canonicalKey(k: string): string {
  return k.split('-').map((w, i) => (i === 0 ? w[0]!.toUpperCase() + w.slice(1).toLowerCase() : w.toLowerCase())).join('-');
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
