// The bracketed prefix of a patch mail's subject: `[RFC PATCH net-next v3 2/7] subsys: Summary`. Pure.

export interface PatchSubject {
  /** The subject after the brackets (and after any Re:), as `git mailinfo` cleans it. */
  summary: string;
  /** A reply (Re:, Aw:, Sv:), not a patch. */
  reply: boolean;
  /** Carries PATCH (or is numbered): a patch or a cover letter. */
  patch: boolean;
  version: number;
  /** The subject names its version (`v3`); else it is 1 or taken from the cover letter. */
  versioned: boolean;
  /** 0 for a cover letter; 1 for an unnumbered single patch. */
  index: number;
  total: number;
  /** The subject carries `i/n` or `i of n`; else the numbers are 1/1 by default. */
  numbered: boolean;
  rfc: boolean;
  resend: boolean;
  /** Other words in the brackets: the tree or list it aims at (net-next, bpf, 6.12.y). */
  prefixes: string[];
}

const REPLY = /^(?:re|aw|sv|fwd?)\s*:\s*/i;

export function parseSubject(subject: string): PatchSubject {
  let rest = subject.trim();
  let reply = false;
  for (let m; (m = REPLY.exec(rest)); ) {
    reply ||= !/^fwd?/i.test(m[0]);
    rest = rest.slice(m[0].length);
  }
  const words: string[] = [];
  for (let m; (m = /^\[([^\]]*)\]\s*/.exec(rest)); ) {
    // `PATCHv3` is `PATCH v3`; hg email numbers `2 of 5`.
    const group = m[1]!.replace(/\b(patch)(v\d+)\b/gi, '$1 $2').replace(/\b(\d+)\s+of\s+(\d+)\b/gi, '$1/$2');
    words.push(...group.split(/[\s,]+/).filter(Boolean));
    rest = rest.slice(m[0].length);
    for (let r; (r = /^(?:re|aw|sv)\s*:\s*/i.exec(rest)); ) (reply = true), (rest = rest.slice(r[0].length));
  }
  const out: PatchSubject = { summary: rest.replace(/^[:\s]+/, '').trim(), reply, patch: false, version: 1, versioned: false, index: 1, total: 1, numbered: false, rfc: false, resend: false, prefixes: [] };
  for (const w of words) {
    const n = /^(\d+)\/(\d+)$/.exec(w);
    const v = /^v(\d+)$/i.exec(w);
    if (n) [out.index, out.total, out.patch, out.numbered] = [Number(n[1]), Number(n[2]), true, true];
    else if (v) [out.version, out.versioned] = [Number(v[1]), true];
    else if (/^patch(set)?$/i.test(w)) out.patch = true;
    else if (/^rfc$/i.test(w)) out.rfc = true;
    else if (/^resend$/i.test(w)) out.resend = true;
    else out.prefixes.push(w);
  }
  return out;
}
