// Which MAINTAINERS entry covers a path, read from the file as get_maintainer.pl matches its F: patterns (a pattern
// ending in / or naming a directory covers what is under it; * and ? do not cross a /). Pure: the file's text in.
import { patternCovers, THE_REST } from '../subsystems/maintainers.js';

/** The entries (other than THE REST) whose F: patterns cover `file`, in MAINTAINERS order. */
export function coveringEntries(maintainers: string, file: string): string[] {
  const found: string[] = [];
  let entry: string | undefined;
  for (const line of maintainers.split('\n')) {
    const field = /^([A-Z]):\s*(.*)$/.exec(line);
    if (!field) {
      entry = line.trim() || undefined;
      continue;
    }
    if (field[1] !== 'F' || !entry || entry === THE_REST || found.includes(entry)) continue;
    if (patternCovers(field[2]!.trim(), file)) found.push(entry);
  }
  return found;
}

/** The files a patch mail adds, deletes or renames (its `diff --git` headers). */
export function pathChanges(mail: string): string[] {
  const files: string[] = [];
  let current: string | undefined;
  for (const line of mail.split('\n')) {
    const diff = /^diff --git a\/(\S+) b\/(\S+)$/.exec(line);
    if (diff) current = diff[2];
    else if (current && /^(new|deleted) file mode /.test(line)) files.push(current);
    else if (/^rename (from|to) /.test(line)) files.push(line.replace(/^rename (from|to) /, ''));
  }
  return [...new Set(files)];
}
