// objdump, and objtool of a kernel build, on built objects. The parsing lives in src/object-code/.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseObjectCode, type ObjectCode } from '../object-code/parse.js';
import { run } from './run.js';

/** Symbols, relocations and instructions of an object file. */
export async function readObjectCode(file: string): Promise<ObjectCode> {
  const cwd = path.dirname(file);
  const [tables, code] = await Promise.all([run('objdump', ['-t', '-r', '-w', file], { cwd }), run('objdump', ['-d', '-w', file], { cwd })]);
  return parseObjectCode(tables.stdout, code.stdout);
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
