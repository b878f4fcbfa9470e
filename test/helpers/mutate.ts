// Seeded mutations of mail text for fuzz tests: lines dropped, doubled, cut, garbled, re-spaced, overlong.

/** A small deterministic PRNG (mulberry32), so a failing case can be replayed from its number. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PIECES = ['From x', '>From y', '@@ -1,2 +1,9 @@', 'diff --git a/../../etc/passwd b/x', '--- ', '+++ b/', 'Subject: [PATCH 9/2]', '=?UTF-8?B?////?=', '\r', '\t', '\x00', 'Content-Transfer-Encoding: base64', 'In-Reply-To: <p1@x>', 'Re: ', '-- ', '\xff\xfe'];

export function mutate(text: string, r: () => number): string {
  let lines = text.split('\n');
  const steps = 1 + Math.floor(r() * 6);
  for (let s = 0; s < steps; s++) {
    const i = Math.floor(r() * lines.length);
    switch (Math.floor(r() * 8)) {
      case 0: lines.splice(i, 1); break;
      case 1: lines.splice(i, 0, lines[Math.floor(r() * lines.length)] ?? ''); break;
      case 2: lines[i] = (lines[i] ?? '') + PIECES[Math.floor(r() * PIECES.length)]; break;
      case 3: lines.splice(i, 0, PIECES[Math.floor(r() * PIECES.length)]!); break;
      case 4: lines = lines.slice(0, i); break;
      case 5: {
        const l = lines[i] ?? '';
        const k = Math.floor(r() * (l.length + 1));
        lines[i] = l.slice(0, k) + String.fromCharCode(Math.floor(r() * 256)) + l.slice(k + 1);
        break;
      }
      case 6: lines[i] = (lines[i] ?? '').replace(/\t/g, '        ').replace(/^ /, ''); break;
      default: lines.splice(i, 0, 'x'.repeat(Math.floor(r() * 5000))); break;
    }
  }
  return lines.join('\n');
}

