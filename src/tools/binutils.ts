// objdump, and objtool of a kernel build, on built objects. The parsing lives in src/object-code/.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { elfRelocations, elfSections, elfSymbols, sectionContents } from '../object-code/elf.js';
import { DisassemblyParser, type ObjectCode } from '../object-code/parse.js';
import { ToolFailedError } from '../errors.js';
import { run, runLines } from './run.js';

/**
 * Instructions, symbols and relocations of an object file: `objdump -d -w`, parsed while objdump writes it, and the
 * ELF file's own symbol table, relocations and the bytes of the sections named in `contents`. Without raw bytes
 * (`-z --no-show-raw-insn`: less to print and parse) an instruction's length is the distance to the next one.
 */
export async function readObjectCode(file: string, opts: { contents?: string[]; rawBytes?: boolean } = {}): Promise<ObjectCode> {
  const image = fs.readFileSync(file);
  const sections = elfSections(file, image);
  const raw = opts.rawBytes ?? true;
  const parser = new DisassemblyParser(new Map(sections.map((s) => [s.name, s.size])));
  const listing = raw ? ['-d', '-w', file] : ['-d', '-w', '-z', '--no-show-raw-insn', file];
  const code = await runLines('objdump', listing, { cwd: path.dirname(file) }, (l) => parser.line(l));
  if (code.code !== 0) throw new ToolFailedError(`objdump -d ${file} failed: ${code.stderr.trim().split('\n').pop()}`, 'is it an object file of this architecture?');
  const { symbols, byIndex } = elfSymbols(image, sections);
  return {
    symbols,
    relocations: elfRelocations(image, sections, byIndex),
    instructions: parser.finish(),
    contents: opts.contents?.length ? sectionContents(image, sections, opts.contents) : undefined,
    sections: sections.map((s) => ({ name: s.name, size: s.size, flags: s.flags })),
  };
}

/**
 * The object as it will run: a copy with objtool's jump-label pass applied (`objtool --hacks=jump_label`, the pass
 * kbuild runs at the vmlinux.o stage when IBT is on), which turns the `jmp` of each disabled jump label into a NOP.
 * Without an objtool in the build (no CONFIG_OBJTOOL), the compiler's code is what runs.
 */
export async function readObjectAsRun(file: string, objtool: string | undefined): Promise<ObjectCode> {
  if (!objtool || !fs.existsSync(objtool)) return readObjectCode(file);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-objtool-'));
  try {
    const copy = path.join(dir, path.basename(file));
    fs.copyFileSync(file, copy);
    await run(objtool, ['--hacks=jump_label', copy], { cwd: dir });
    return await readObjectCode(copy);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The member objects of a (thin) archive such as a kernel build's vmlinux.a, as paths relative to its folder. */
export async function archiveMembers(archive: string): Promise<string[]> {
  const dir = path.dirname(archive);
  const out = await run('ar', ['t', archive], { cwd: dir });
  return out.stdout
    .split('\n')
    .filter(Boolean)
    .map((m) => (path.isAbsolute(m) ? path.relative(dir, m) : m));
}

/**
 * The helpers of libgcc an object calls that the kernel never links (a 64-bit division on a 32-bit machine:
 * `__udivdi3`, `__divdi3`, `__umoddi3`, `__moddi3`), each with the source file and line of the call where the object
 * has debug information (`objdump -r`, then `addr2line` of each relocation's offset in its section).
 */
export async function libgccCalls(file: string): Promise<{ symbol: string; where?: string }[]> {
  const relocs = await run('objdump', ['-r', file], { cwd: path.dirname(file) });
  const out: { symbol: string; where?: string }[] = [];
  let section = '';
  for (const line of relocs.stdout.split('\n')) {
    const head = /^RELOCATION RECORDS FOR \[(.+)\]:/.exec(line);
    if (head) section = head[1]!.replace(/^\.rel(a)?(?=\.)/, '');
    const m = /^([0-9a-f]+)\s+\S+\s+(__u?divdi3|__u?moddi3)\b/.exec(line);
    if (!m || !section) continue;
    const where = await run('addr2line', ['-e', file, '-j', section, `0x${m[1]}`], { cwd: path.dirname(file) }).catch(() => undefined);
    const at = where?.stdout.trim().split('\n')[0];
    out.push({ symbol: m[2]!, ...(at && !at.startsWith('??') ? { where: at } : {}) });
  }
  return out;
}
