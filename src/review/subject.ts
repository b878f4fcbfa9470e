// The bracketed prefix of a patch mail's subject: `[RFC PATCH net-next v3 2/7] subsys: Summary`. Pure.

export interface PatchSubject {
  /** The subject after the brackets (and after any Re:). */
  summary: string;
  /** A reply (Re:, Aw:, Sv:), not a patch. */
  reply: boolean;
  /** Carries PATCH (or is numbered): a patch or a cover letter. */
  patch: boolean;
  version: number;
  /** 0 for a cover letter; 1 for an unnumbered single patch. */
  index: number;
  total: number;
  rfc: boolean;
  resend: boolean;
  /** Other words in the brackets: the tree or list it aims at (net-next, bpf, 6.12.y). */
  prefixes: string[];
}

export function parseSubject(subject: string): PatchSubject {
  let rest = subject.trim();
  let reply = false;
  for (let m; (m = /^(?:re|aw|sv|fwd?)\s*:\s*/i.exec(rest)); ) {
    reply ||= !/^fwd?/i.test(m[0]);
    rest = rest.slice(m[0].length);
  }
  const words: string[] = [];
  for (let m; (m = /^\[([^\]]*)\]\s*/.exec(rest)); ) {
    words.push(...m[1]!.split(/[\s,]+/).filter(Boolean));
    rest = rest.slice(m[0].length);
    for (let r; (r = /^(?:re|aw|sv)\s*:\s*/i.exec(rest)); ) (reply = true), (rest = rest.slice(r[0].length));
  }
  const out: PatchSubject = { summary: rest.trim(), reply, patch: false, version: 1, index: 1, total: 1, rfc: false, resend: false, prefixes: [] };
  for (const w of words) {
    const n = /^(\d+)\/(\d+)$/.exec(w);
    const v = /^v(\d+)$/i.exec(w);
    if (n) [out.index, out.total, out.patch] = [Number(n[1]), Number(n[2]), true];
    else if (v) out.version = Number(v[1]);
    else if (/^patch(set)?$/i.test(w)) out.patch = true;
    else if (/^rfc$/i.test(w)) out.rfc = true;
    else if (/^resend$/i.test(w)) out.resend = true;
    else out.prefixes.push(w);
  }
  return out;
}
