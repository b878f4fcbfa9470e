// objdump, and objtool of a kernel build, on built objects. The parsing lives in src/object-code/.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { elfSections, sectionContents } from '../object-code/elf.js';
import { DisassemblyParser, parseRelocations, parseSymbols, type ObjectCode } from '../object-code/parse.js';
import { ToolFailedError } from '../errors.js';
import { run, runLines } from './run.js';

/**
 * Symbols, relocations and instructions of an object file (`objdump -t -r -w` beside `objdump -d -w`, whose listing
 * is parsed while it is written), and the bytes of the sections named in `contents` (read from the ELF file).
 */
export async function readObjectCode(file: string, opts: { contents?: string[]; rawBytes?: boolean } = {}): Promise<ObjectCode> {
  const cwd = path.dirname(file);
  const raw = opts.rawBytes ?? true;
  // Without raw bytes an instruction's length is the distance to the next one: -z lists zero bytes as instructions
  // too, and the section's size (from the ELF file) ends the last one.
  const image = raw && !opts.contents?.length ? undefined : fs.readFileSync(file);
  const sections = image && elfSections(file, image);
  const parser = new DisassemblyParser(sections && new Map(sections.map((s) => [s.name, s.size])));
  const listing = raw ? ['-d', '-w', file] : ['-d', '-w', '-z', '--no-show-raw-insn', file];
  const [tables, code] = await Promise.all([run('objdump', ['-t', '-r', '-w', file], { cwd }), runLines('objdump', listing, { cwd }, (l) => parser.line(l))]);
  if (code.code !== 0) throw new ToolFailedError(`objdump -d ${file} failed: ${code.stderr.trim().split('\n').pop()}`, 'is it an object file of this architecture?');
  const contents = image && sections && opts.contents?.length ? sectionContents(image, sections, opts.contents) : undefined;
  return { symbols: parseSymbols(tables.stdout), relocations: parseRelocations(tables.stdout), instructions: parser.finish(), contents };
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
