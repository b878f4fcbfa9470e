import { expect, test } from 'vitest';
import { coveringEntries, pathChanges } from '../../src/mail/covered.js';
import { withCoveredPaths } from '../../src/tools/kernel-scripts.js';

const MAINTAINERS = [
  'KPROBES', 'M:\tA <a@x>', 'F:\tkernel/kprobes.c', 'F:\tsamples/kprobes', '',
  'X86 ARCHITECTURE', 'F:\tarch/x86/', 'F:\tDocumentation/arch/x86/*.rst', '',
  'THE REST', 'F:\t*', 'F:\t*/', '',
].join('\n');

test('a path is covered by the entries whose F: patterns match it as get_maintainer.pl matches them, THE REST left out', () => {
  expect(coveringEntries(MAINTAINERS, 'samples/kprobes/kprobe_post_example.c')).toEqual(['KPROBES']);
  expect(coveringEntries(MAINTAINERS, 'kernel/kprobes.c')).toEqual(['KPROBES']);
  expect(coveringEntries(MAINTAINERS, 'kernel/kprobes.cx')).toEqual([]);
  expect(coveringEntries(MAINTAINERS, 'arch/x86/kernel/kprobes/new.c')).toEqual(['X86 ARCHITECTURE']);
  expect(coveringEntries(MAINTAINERS, 'Documentation/arch/x86/boot.rst')).toEqual(['X86 ARCHITECTURE']);
  expect(coveringEntries(MAINTAINERS, 'Documentation/arch/x86/sub/boot.rst')).toEqual([]);
  expect(coveringEntries(MAINTAINERS, 'samples/other/x.c')).toEqual([]);
});

test('the files a mail adds, deletes or renames', () => {
  const mail = [
    'diff --git a/samples/kprobes/Makefile b/samples/kprobes/Makefile', 'index 1..2 100644',
    'diff --git a/samples/kprobes/new.c b/samples/kprobes/new.c', 'new file mode 100644',
    'diff --git a/lib/old.c b/lib/old.c', 'deleted file mode 100644',
    'diff --git a/a.c b/b.c', 'rename from a.c', 'rename to b.c', '',
  ].join('\n');
  expect(pathChanges(mail)).toEqual(['samples/kprobes/new.c', 'lib/old.c', 'a.c', 'b.c']);
});

test("checkpatch's FILE_PATH_CHANGES is the tree's when MAINTAINERS covers every new file, the patch's otherwise", () => {
  const finding = { level: 'warning' as const, type: 'FILE_PATH_CHANGES', file: undefined, line: 9, message: 'added, moved or deleted file(s), does MAINTAINERS need updating?' };
  const found = { errors: 0, warnings: 1, checks: 0, findings: [finding] };
  const mail = (file: string) => [`diff --git a/${file} b/${file}`, 'new file mode 100644', ''].join('\n');
  const covered = withCoveredPaths(found, mail('samples/kprobes/new.c'), MAINTAINERS);
  expect(covered.warnings).toBe(0);
  expect(covered.findings[0]!.fromTree).toBe('MAINTAINERS covers it already: samples/kprobes/new.c (KPROBES)');
  expect(withCoveredPaths(found, mail('samples/new/new.c'), MAINTAINERS).warnings).toBe(1);
});
