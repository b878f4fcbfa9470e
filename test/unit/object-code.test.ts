import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseObjectCode, parseRelocations } from '../../src/object-code/parse.js';
import { baseFunction } from '../../src/object-code/symbols.js';
import { flagTests } from '../../src/object-code/flag-tests.js';
import { conversionsIn, proveKey, staticKeyVerifier } from '../../src/recipes/static-key/verify.js';

const dir = path.join(import.meta.dirname, '../fixtures/object-code');
const read = (f: string) => fs.readFileSync(path.join(dir, f), 'utf8');
const before = parseObjectCode(read('before.tables.txt'), read('before.code.txt'));
const compiled = parseObjectCode(read('after.tables.txt'), read('after.code.txt'));
const final = parseObjectCode(read('after.tables.txt'), read('after.final.txt'));
const conv = { file: 'demo.c', flag: 'demo_flag', key: 'demo_flag_key', initiallyEnabled: false };
const boot = parseObjectCode(read('boot.tables.txt'), read('boot.code.txt'));

describe('objdump parsing', () => {
  it('reads symbols, signed addends and instructions', () => {
    expect(before.symbols.find((s) => s.name === 'demo_flag')).toEqual({ name: 'demo_flag', section: '.data..read_mostly', value: 4, size: 1, kind: 'O' });
    expect(parseRelocations(read('before.tables.txt')).get('.init.text')).toEqual([{ offset: 6, type: 'R_X86_64_PC32', symbol: '.data..read_mostly', addend: -1 }]);
    const hot = before.instructions.get('.text')!;
    expect(hot[1]).toMatchObject({ address: 4, length: 7, mnemonic: 'cmpb', function: 'demo_hot' });
  });

  it('names clones and split parts by their function', () => {
    expect(baseFunction('mem_cgroup_css_free.cold')).toBe('mem_cgroup_css_free');
    expect(baseFunction('memcg_offline_kmem.part.0')).toBe('memcg_offline_kmem');
    expect(baseFunction('f.constprop.0.isra.0')).toBe('f');
  });
});

describe('jump-label proof', () => {
  it('finds the tests of the flag: compare and conditional jump, not the store or the plain load', () => {
    const tests = flagTests(before, 'demo_flag');
    expect(tests).toEqual([{ function: 'demo_hot', section: '.text', address: 4, instructions: ['cmpb $0x0,0x0(%rip)', 'jne 16'], bytes: 9 }]);
  });

  it('proves a converted test: one 2-byte jump label naming the key, a NOP once objtool has run', () => {
    const p = proveKey('demo.o', conv, before, compiled, final);
    expect(p.errors).toEqual([]);
    expect(p.ok).toBe(true);
    expect(p.after).toEqual([{ function: 'demo_hot', address: 4, compiled: 'jmp 12', runs: 'xchg %ax,%ax', bytes: 2, nop: true, patchedAtBoot: false }]);
    expect(p.sites).toEqual(['demo_hot(): cmpb+jne 9 bytes -> nop 2 bytes', 'in all: 1 test, 2 insns/9 bytes -> 1 jump label, 1 insn/2 bytes']);
    expect(p.summary).toBe('1 test, 2 insns/9 bytes -> 1 jump label, 1 insn/2 bytes');
  });

  it('fails a site whose jmp objtool did not turn into a NOP', () => {
    const p = proveKey('demo.o', conv, before, compiled, compiled);
    expect(p.ok).toBe(false);
    expect(p.errors.join('\n')).toMatch(/`jmp 12` does not match the key's initial state/);
  });

  it('models a key an initcall switches on every boot: the jmp the compiler left becomes the NOP the kernel patches in', () => {
    // Branch bit 1 (static_branch_likely() on a key that starts disabled): a jmp until demo_late_init() enables the key.
    const p = proveKey('demo.o', conv, before, boot, boot);
    expect(p.errors).toEqual([]);
    expect(p.after[0]).toMatchObject({ compiled: 'jmp 12', nop: true, runs: 'nop (patched in at boot when demo_late_init() enables the key)' });
    // Without the initcall the same site keeps jumping: the branch hint disagrees with the key's state.
    const noInitcall = { ...boot, relocations: new Map([...boot.relocations].filter(([s]) => !s.startsWith('.initcall'))) };
    const q = proveKey('demo.o', conv, before, noInitcall, noInitcall);
    expect(q.errors).toEqual(["demo_hot at .text+0x4: runs as `jmp 12`, not as a NOP: the branch hint disagrees with the key's initial state"]);
  });

  it('fails without a __jump_table entry for the key, and when the flag is still there', () => {
    const noKey = proveKey('demo.o', { ...conv, key: 'other_key' }, before, compiled, final);
    expect(noKey.errors.join('\n')).toMatch(/has no symbol other_key/);
    const stillThere = proveKey('demo.o', conv, before, before, before);
    expect(stillThere.errors.join('\n')).toMatch(/demo_flag is still in demo.o/);
  });

  it('follows a test gcc moved into the callers of a split part, and fails a caller left without a label', () => {
    const split = (extra: string) =>
      parseObjectCode(
        read('after.tables.txt'),
        [
          'Disassembly of section .text:',
          '',
          '0000000000000000 <demo_caller>:',
          '   0:\tf3 0f 1e fa          \tendbr64',
          '   4:\t66 90                \txchg   %ax,%ax',
          '   6:\te8 15 00 00 00       \tcall   20 <demo_hot.part.0>',
          '   b:\tc3                   \tret',
          ...extra.split('\n').filter(Boolean),
          '',
          '0000000000000020 <demo_hot.part.0>:',
          '  20:\tc3                   \tret',
        ].join('\n'),
      );
    const moved = split('');
    expect(proveKey('demo.o', conv, before, moved, moved).errors).toEqual([]);
    const other = split(['', '0000000000000010 <demo_other>:', '  10:\te8 0b 00 00 00       \tcall   20 <demo_hot.part.0>', '  15:\tc3                   \tret'].join('\n'));
    expect(proveKey('demo.o', conv, before, other, other).errors).toEqual([
      'demo_hot() tested demo_flag before the patch; after it, neither demo_hot() nor its caller demo_other() holds a jump label of demo_flag_key',
    ]);
  });

  it('names a global function the compiler stopped inlining, though it had an out-of-line copy before (set_pageblock_migratetype())', () => {
    // demo_value() was a global function before (out of line) that demo_hot() did not call; after the patch demo_hot()
    // calls it for the jump label instead of testing the flag inline.
    const after = parseObjectCode(
      read('after.tables.txt'),
      [
        'Disassembly of section .text:',
        '',
        '0000000000000000 <demo_value>:',
        '   0:\tf3 0f 1e fa          \tendbr64',
        '   4:\t66 90                \txchg   %ax,%ax',
        '   6:\tc3                   \tret',
        '',
        '0000000000000010 <demo_hot>:',
        '  10:\te8 eb ff ff ff       \tcall   0 <demo_value>',
        '  15:\tc3                   \tret',
      ].join('\n'),
    );
    expect(before.symbols.some((x) => x.name === 'demo_value' && x.kind === 'F')).toBe(true);
    expect(proveKey('demo.o', conv, before, after, after).errors).toEqual([
      'demo_hot() tested demo_flag inline; after the patch it calls demo_value(), no longer inlined, for the jump label: its fast path grew a call',
    ]);
  });

  it('reads the conversions from a patch, and fails one whose object was not built', () => {
    const patch = [
      'diff --git a/mm/demo.c b/mm/demo.c',
      '--- a/mm/demo.c',
      '+++ b/mm/demo.c',
      '@@ -1,3 +1,3 @@',
      '-static bool demo_flag __read_mostly;',
      '+static DEFINE_STATIC_KEY_FALSE_RO(demo_flag_key);',
      ' ',
      'diff --git a/include/linux/demo.h b/include/linux/demo.h',
      '',
    ].join('\n');
    expect(conversionsIn(patch)).toEqual([{ file: 'mm/demo.c', flag: 'demo_flag', key: 'demo_flag_key', initiallyEnabled: false }]);
    expect(staticKeyVerifier.objectsToProve(patch)).toEqual(['mm/demo.o']);
    const [p] = staticKeyVerifier.prove(patch, new Map([['mm/demo.o', { notBuilt: 'CONFIG_DEMO needs X' }]]));
    expect(p).toMatchObject({ ok: false, errors: ['mm/demo.o was not built: CONFIG_DEMO needs X, so nothing proves the jump labels'] });
  });
});
