// kseries kprobe analyze on objects of the real 6.12 tree, built from the tree by the command itself (x86-64
// defconfig, gcc): every site it judges is an instruction boundary objdump -dr agrees with, every rule fires on real
// code, and the labelled sites of test/fixtures/kprobe/labels.json get their verdicts.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { KernelBuild } from '../../src/build/builder.js';
import type { SiteVerdict } from '../../src/kprobe/verdict.js';
import { parseRelocations, parseSymbols } from '../../src/object-code/parse.js';
import { readObjectCode } from '../../src/tools/binutils.js';
import { cli, userTree } from '../helpers/tree.js';

const OBJECTS = ['kernel/sched/fair.o', 'kernel/sched/core.o', 'kernel/bpf/core.o', 'mm/maccess.o', 'lib/strncpy_from_user.o', 'arch/x86/kernel/process_64.o'];

let buildDir: string;
const sites = new Map<string, SiteVerdict[]>();

beforeAll(async () => {
  const tree = await userTree();
  buildDir = new KernelBuild(tree, tree.root, { config: 'defconfig', distcc: false }).buildDir;
  for (const object of OBJECTS) {
    const r = await cli(['--tree', tree.root, 'kprobe', 'analyze', '--object', object, '--all', '', '--json']);
    expect(r.code, r.err).toBe(1);
    sites.set(object, (JSON.parse(r.out) as { sites: SiteVerdict[] }).sites);
  }
});

/** `name+offset` of every instruction objdump -dr prints inside a function symbol, sorted. */
function objdumpBoundaries(file: string): string[] {
  const symbols = execFileSync('objdump', ['-t', '-w', file], { encoding: 'utf8' });
  const functions = [...symbols.matchAll(/^([0-9a-f]+) .{6}F (\S+)\t([0-9a-f]+) (.+)$/gm)].map((m) => ({ value: parseInt(m[1]!, 16), section: m[2]!, size: parseInt(m[3]!, 16), name: m[4]! }));
  const listing = execFileSync('objdump', ['-dr', file], { encoding: 'utf8', maxBuffer: 512 * 1024 * 1024 });
  const starts = new Map<string, number[]>();
  let section = '';
  for (const line of listing.split('\n')) {
    const s = /^Disassembly of section (.+):$/.exec(line);
    if (s) starts.set((section = s[1]!), []);
    const i = /^ +([0-9a-f]+):\t[0-9a-f]{2}(?: [0-9a-f]{2})* *\t/.exec(line);
    if (i) starts.get(section)!.push(parseInt(i[1]!, 16));
  }
  return functions.flatMap((f) => (starts.get(f.section) ?? []).filter((a) => a >= f.value && a < f.value + f.size).map((a) => `${f.name}+${a - f.value}`)).sort();
}

describe('kprobe analyze on the real tree', () => {
  test('judges exactly the instruction boundaries objdump -dr prints, function by function', () => {
    for (const object of OBJECTS) {
      const expected = objdumpBoundaries(path.join(buildDir, object));
      const got = sites.get(object)!.map((s) => `${s.symbol}+${s.offset}`).sort();
      expect(got.length, object).toBe(expected.length);
      expect(got, object).toEqual(expected);
      console.log(`${object}: ${new Set(got.map((g) => g.replace(/\+\d+$/, ''))).size} functions, ${got.length} instruction boundaries, all as objdump -dr prints them`);
    }
  });

  test('the symbols and relocations read from the ELF file are the ones objdump -t -r lists', async () => {
    for (const object of OBJECTS) {
      const file = path.join(buildDir, object);
      const code = await readObjectCode(file);
      const tables = execFileSync('objdump', ['-t', '-r', '-w', file], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
      expect(code.symbols, object).toEqual(parseSymbols(tables));
      expect(code.relocations, object).toEqual(parseRelocations(tables));
    }
  });

  test('every rule fires on real code: branches, tables, jump labels, fixups, alternatives, indirect jumps', () => {
    const kinds = new Map<string, number>();
    for (const list of sites.values()) for (const s of list) for (const k of s.kinds) kinds.set(k, (kinds.get(k) ?? 0) + 1);
    console.log(`reason kinds over ${OBJECTS.length} objects: ${[...kinds].map(([k, n]) => `${k} ${n}`).join(', ')}`);
    for (const k of ['control-transfer', 'branch-target', 'table-target', 'static-branch-target', 'jump-label', 'may-fault', 'fixup-target', 'alternative', 'indirect-jump', 'entry-point']) {
      expect(kinds.get(k) ?? 0, k).toBeGreaterThan(0);
    }
    // The BPF interpreter's computed gotos: its table in .data.rel.ro.c_jump_table names the handlers.
    const bpf = sites.get('kernel/bpf/core.o')!.filter((s) => s.symbol === '___bpf_prog_run');
    expect(bpf.some((s) => s.reasons.some((r) => r.includes('.data.rel.ro.c_jump_table')))).toBe(true);
    expect(bpf.filter((s) => s.kinds.includes('indirect-jump'))).toEqual([]);
  });

  test('the labelled sites: verdicts read from the code by hand, with file:line evidence', () => {
    const labels = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, '../fixtures/kprobe/labels.json'), 'utf8')) as {
      object: string;
      site: string;
      insn: string;
      verdict: 'safe' | 'unsafe';
      evidence: string;
      why: string;
    }[];
    let match = 0;
    const misses: string[] = [];
    for (const l of labels) {
      const [symbol, off] = l.site.split('+');
      const s = sites.get(l.object)?.find((x) => x.symbol === symbol && x.offset === Number(off));
      expect(s, `${l.object} ${l.site}: no such site (a different compiler?)`).toBeDefined();
      expect(s!.insn, `${l.object} ${l.site}`).toBe(l.insn);
      if (s!.verdict === l.verdict) match++;
      else misses.push(`${l.object} ${l.site}: labelled ${l.verdict} (${l.evidence}: ${l.why}), analyzer says ${s!.verdict}: ${s!.reasons.join('; ')}`);
    }
    console.log(`labelled kprobe sites: ${match}/${labels.length} exact matches (${((100 * match) / labels.length).toFixed(1)}%)`);
    expect(misses).toEqual([]);
  });
});
