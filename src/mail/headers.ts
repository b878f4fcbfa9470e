// Editing the header block of one format-patch mail: read a header, set headers, fold address lists.

export interface Mail {
  headers: string;
  body: string;
}

export function splitMail(text: string): Mail {
  const end = text.indexOf('\n\n');
  if (end < 0) return { headers: text, body: '' };
  return { headers: text.slice(0, end), body: text.slice(end + 2) };
}

export function joinMail(mail: Mail): string {
  return `${mail.headers}\n\n${mail.body}`;
}

/** A header's value with folded continuation lines joined, or undefined. */
export function getHeader(headers: string, name: string): string | undefined {
  const lines = headers.split('\n');
  const i = lines.findIndex((l) => l.toLowerCase().startsWith(`${name.toLowerCase()}:`));
  if (i < 0) return undefined;
  let value = lines[i]!.slice(name.length + 1).trim();
  for (let k = i + 1; k < lines.length && /^[ \t]/.test(lines[k]!); k++) value += ` ${lines[k]!.trim()}`;
  return value;
}

/** Remove every occurrence of a header (with its continuation lines). */
export function dropHeader(headers: string, name: string): string {
  const out: string[] = [];
  let dropping = false;
  for (const line of headers.split('\n')) {
    if (/^[ \t]/.test(line) && dropping) continue;
    dropping = line.toLowerCase().startsWith(`${name.toLowerCase()}:`);
    if (!dropping) out.push(line);
  }
  return out.join('\n');
}

/** Replace or add headers at the end of the block; empty values are left out. */
export function setHeaders(headers: string, values: [string, string | string[]][]): string {
  let h = headers;
  for (const [name] of values) h = dropHeader(h, name);
  const lines = values
    .filter(([, v]) => (Array.isArray(v) ? v.length > 0 : v !== ''))
    .map(([name, v]) => (Array.isArray(v) ? `${name}: ${v.join(',\n    ')}` : `${name}: ${v}`));
  return [h, ...lines].join('\n');
}
