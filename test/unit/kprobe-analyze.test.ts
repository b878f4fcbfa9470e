// The kprobe analyzer rule by rule, on small objects assembled and compiled from test/fixtures/kprobe/ by the real
// gcc, as and objdump: each rule has a site where it fires and a contrast where it does not.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { analyzeObject } from '../../src/commands/kprobe.js';
import type { ObjectAnalysis } from '../../src/kprobe/analyze.js';
import { parseSite, type ReasonKind } from '../../src/kprobe/verdict.js';
import { cli, expectOneLineError } from '../helpers/cli.js';

const fixtures = path.join(import.meta.dirname, '../fixtures/kprobe');
const out = fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-kprobe-'));
const objects: Record<string, ObjectAnalysis> = {};
const file = (name: string) => path.join(out, `${name}.o`);

beforeAll(async () => {
  for (const name of ['transfers', 'targets', 'kernel-tables']) execFileSync('gcc', ['-c', '-o', file(name), path.join(fixtures, `${name}.S`)]);
  // As the kernel compiles (no PIC, kernel code model), but with jump tables and hot/cold splitting on.
  execFileSync('gcc', ['-c', '-O2', '-fno-pic', '-mcmodel=kernel', '-mno-red-zone', '-fjump-tables', '-freorder-blocks-and-partition', '-o', file('compiled'), path.join(fixtures, 'compiled.c')]);
  // Two copies of one static function linked into one object, as a module holds them; one has the .cold part.
  execFileSync('gcc', ['-c', '-DTWIN_COLD', '-o', file('twin-a'), path.join(fixtures, 'twin.S')]);
  execFileSync('gcc', ['-c', '-o', file('twin-b'), path.join(fixtures, 'twin.S')]);
  execFileSync('ld', ['-r', '-o', file('twins'), file('twin-b'), file('twin-a')]);
  for (const name of ['transfers', 'targets', 'kernel-tables', 'compiled', 'twins']) objects[name] = await analyzeObject(file(name), `${name}.o`);
});

/** [object, site, verdict, kinds]: every reason kind of the site, exactly. */
const CASES: [string, string, 'safe' | 'unsafe' | 'error', ReasonKind[]][] = [
  // The probed instruction: anything but falling through to the next one.
  ['transfers', 'p_mov+1', 'safe', []],
  ['transfers', 'p_lock_add+1', 'safe', []],
  ['transfers', 'p_rep_movsb+1', 'safe', []],
  ['transfers', 'p_jmp+1', 'unsafe', ['control-transfer']],
  ['transfers', 'p_jmp_short+1', 'unsafe', ['control-transfer']],
  ['transfers', 'p_je+1', 'unsafe', ['control-transfer']],
  ['transfers', 'p_loop+1', 'unsafe', ['control-transfer']],
  ['transfers', 'p_jrcxz+1', 'unsafe', ['control-transfer']],
  ['transfers', 'p_xbegin+1', 'unsafe', ['control-transfer']],
  ['transfers', 'p_call+1', 'unsafe', ['control-transfer']],
  ['transfers', 'p_call_extern+1', 'unsafe', ['control-transfer']],
  ['transfers', 'p_ret+1', 'unsafe', ['control-transfer']],
  ['transfers', 'p_return_thunk+1', 'unsafe', ['control-transfer']],
  ['transfers', 'p_call_indirect+1', 'unsafe', ['control-transfer']],
  ['transfers', 'p_call_thunk+1', 'unsafe', ['control-transfer']],
  ['transfers', 'p_jmp_indirect+1', 'unsafe', ['control-transfer', 'indirect-jump']],
  ['transfers', 'p_jmp_notrack+1', 'unsafe', ['control-transfer', 'indirect-jump']],
  ['transfers', 'p_jmp_thunk+1', 'unsafe', ['control-transfer', 'indirect-jump']],
  ['transfers', 'p_int3+1', 'unsafe', ['control-transfer']],
  ['transfers', 'p_int+1', 'unsafe', ['control-transfer']],
  ['transfers', 'p_ud2+1', 'unsafe', ['control-transfer']],
  ['transfers', 'p_hlt+1', 'unsafe', ['control-transfer']],
  ['transfers', 'p_syscall+1', 'unsafe', ['control-transfer']],
  ['transfers', 'p_sysret+1', 'unsafe', ['control-transfer']],
  ['transfers', 'p_iret+1', 'unsafe', ['control-transfer']],
  ['transfers', 'p_lret+1', 'unsafe', ['control-transfer']],
  ['transfers', 'p_vmcall+1', 'unsafe', ['control-transfer']],
  // An unresolved indirect jump makes every instruction of its function a possible target.
  ['transfers', 'p_jmp_indirect+0', 'unsafe', ['indirect-jump']],
  ['targets', 't_untabled+0', 'unsafe', ['indirect-jump']],
  // The next instruction reached other than from the probed one.
  ['targets', 't_loop+0', 'unsafe', ['branch-target']],
  ['targets', 't_loop_contrast+0', 'safe', []],
  ['targets', 't_from_other+0', 'unsafe', ['branch-target']],
  ['targets', 't_cold+0', 'unsafe', ['branch-target']],
  ['targets', 't_cold+3', 'safe', []],
  ['targets', 't_table+0', 'unsafe', ['table-target']],
  ['targets', 't_table+3', 'safe', []],
  ['targets', 't_goto+0', 'unsafe', ['table-target']],
  ['targets', 't_lea+0', 'unsafe', ['address-taken']],
  ['targets', 't_abs+0', 'unsafe', ['address-taken']],
  ['targets', 't_pointer+0', 'unsafe', ['table-target']],
  ['targets', 't_symbol+0', 'unsafe', ['entry-point']],
  ['targets', 't_endbr+0', 'unsafe', ['entry-point']],
  ['targets', 't_no_next+1', 'unsafe', ['no-next']],
  ['targets', 't_bad+4', 'unsafe', ['undecoded']],
  ['targets', 't_mid+0', 'unsafe', ['undecoded']],
  // The kernel's tables.
  ['kernel-tables', 'k_label_site+0', 'unsafe', ['jump-label']],
  ['kernel-tables', 'k_label_site+2', 'safe', []],
  ['kernel-tables', 'k_label_target+2', 'unsafe', ['static-branch-target']],
  ['kernel-tables', 'k_label_next+0', 'unsafe', ['next-not-probeable']],
  ['kernel-tables', 'k_fault+0', 'unsafe', ['may-fault']],
  ['kernel-tables', 'k_fault+3', 'unsafe', ['fixup-target']],
  ['kernel-tables', 'k_fixup+0', 'unsafe', ['fixup-target']],
  ['kernel-tables', 'k_alt_site+0', 'unsafe', ['alternative']],
  ['kernel-tables', 'k_alt_site+4', 'safe', []],
  ['kernel-tables', 'k_alt_next+0', 'unsafe', ['alternative']],
  ['kernel-tables', 'k_alt_jump+0', 'unsafe', ['alternative']],
  ['kernel-tables', 'k_static_call+0', 'unsafe', ['next-not-probeable']],
  ['kernel-tables', 'k_bug+0', 'unsafe', ['next-not-probeable']],
  ['transfers', 'p_int3+0', 'unsafe', ['next-not-probeable']],
  ['transfers', 'p_mov+0', 'safe', []],
  ['kernel-tables', 'k_nokprobe+0', 'unsafe', ['not-probeable']],
  ['kernel-tables', 'k_noinstr+0', 'unsafe', ['not-probeable']],
  ['kernel-tables', 'k_plain+0', 'safe', []],
  // Sites that name no instruction boundary of a function are errors, not verdicts.
  ['transfers', 'p_lock_add+2', 'error', []],
  ['transfers', 'p_mov+100', 'error', []],
  ['transfers', 'no_such_function+0', 'error', []],
];

describe('kprobe analyze: one rule per case', () => {
  it.each(CASES)('%s %s is %s %j', (object, spec, verdict, kinds) => {
    const { symbol, offset } = parseSite(spec)!;
    const v = objects[object]!.site(symbol, offset);
    expect({ verdict: v.verdict, kinds: v.kinds }, v.reasons.join('\n')).toEqual({ verdict, kinds });
    expect(v.reasons.length).toBe(verdict === 'error' ? 1 : kinds.length);
  });

  it("the .cold fix's model: a probe whose JMP32 its .cold part jumps into is newly refused; the others are not", () => {
    const t = objects.targets!;
    const fn = (name: string) => t.functions().find((f) => f.name === name)!;
    // t_cold: mov (0), add (3: the .cold part jumps back here), test (7), jnz t_cold.cold (10), ret.
    expect([0, 3, 7].map((o) => t.coldRefuses(fn('t_cold'), o))).toEqual([true, false, false]);
    expect(t.coldRefusal(fn('t_cold'), 0)).toBe('jump');
    // In the .cold part the JMP32 would cover its own jmp; a function without a .cold part is never refused so.
    expect(t.coldRefuses(fn('t_cold.cold'), 0)).toBe(false);
    expect(t.coldRefuses(fn('t_loop'), 0)).toBe(false);
  });

  it("the .cold fix's model fails closed where the kernel cannot find a .cold part's function", () => {
    const t = objects.targets!;
    const fn = (name: string) => t.functions().find((f) => f.name === name)!;
    // Never jumps back: the function of its name, which jumps to +3, inside the JMP32 on the first mov; not on the add.
    expect([0, 3].map((o) => t.coldRefuses(fn('t_oneway.cold'), o))).toEqual([true, false]);
    // No function of its name; its only function in init text, freed after boot: refused wherever it would be optimized.
    expect([0, 3].map((o) => t.coldRefuses(fn('t_orphan.cold'), o))).toEqual([true, true]);
    expect(t.coldRefuses(fn('t_init.cold'), 0)).toBe(true);
    // The census tells the crash sites (a part jumps into the JMP32) from the refusals that fail closed.
    expect([t.coldRefusal(fn('t_oneway.cold'), 0), t.coldRefusal(fn('t_orphan.cold'), 0), t.coldRefusal(fn('t_init.cold'), 0)]).toEqual(['jump', 'unfound', 'unfound']);
    // The function of a .cold part is refused only for what the part does, never for the part being hard to find.
    expect(t.coldRefuses(fn('t_oneway'), 0)).toBe(false);
  });

  it("the .cold fix's model with two functions of one name in a module: only the copy the .cold part jumps into is refused", () => {
    const t = objects.twins!;
    const twins = t.functions().filter((f) => f.name === 't_twin');
    expect(twins).toHaveLength(2);
    // twin-b is linked first: the copy with the .cold part is the second of the name.
    expect(twins.map((f) => t.coldRefusal(f, 0))).toEqual([undefined, 'jump']);
    expect(t.coldRefusal(t.functions().find((f) => f.name === 't_twin.cold')!, 0)).toBeUndefined();
  });

  it('says why in words: the instruction, the branch and where it comes from', () => {
    const t = objects.targets!;
    expect(t.site('t_loop', 0).reasons).toEqual(['the next instruction is the target of `jne` at t_loop+0xb']);
    expect(t.site('t_cold', 0).reasons).toEqual(['the next instruction is the target of `jmp` at t_cold.cold+0x2']);
    expect(t.site('t_from_other', 0).next_offset).toBe(3);
    expect(objects.transfers!.site('p_return_thunk', 1)).toMatchObject({ insn: 'jmp __x86_return_thunk', reasons: ['the probed instruction `jmp __x86_return_thunk` is a return'] });
    expect(objects.transfers!.site('p_lock_add', 2).reasons[0]).toMatch(/not an instruction boundary: it is inside `lock addl \$0x1,\(%rdi\)` at p_lock_add\+0x1/);
    expect(objects['kernel-tables']!.site('k_fault', 0).reasons).toEqual(['the probed instruction may fault: its __ex_table entry continues at k_fault+0x7, not at the next instruction']);
  });

  it('reads what gcc lays out itself: a jump table, a computed-goto table, a .cold part', () => {
    const c = objects.compiled!;
    const sw = c.allSites('c_switch');
    expect(sw.some((s) => s.kinds.includes('table-target') && s.reasons.some((r) => r.includes('.rodata')))).toBe(true);
    // The table resolves the switch's indirect jump: no site is unsafe for want of its targets.
    expect(sw.filter((s) => s.kinds.includes('indirect-jump'))).toEqual([]);
    const goto = c.allSites('c_goto');
    expect(goto.some((s) => s.reasons.some((r) => r.includes('.data.rel.ro.c_jump_table')))).toBe(true);
    expect(goto.filter((s) => s.kinds.includes('indirect-jump'))).toEqual([]);
    // gcc split the unlikely path into c_cold.cold, which jumps back into c_cold.
    expect(c.functions().map((f) => f.name)).toContain('c_cold.cold');
    expect(c.allSites('c_cold').some((s) => s.reasons.some((r) => /target of `jmp` at c_cold\.cold\+0x/.test(r)))).toBe(true);
    // Somewhere between the branches, an instruction may still move.
    expect(sw.some((s) => s.verdict === 'safe')).toBe(true);
  });

  it('parses SYMBOL+OFFSET in decimal and hex, and refuses anything else', () => {
    expect(parseSite('update_curr+0x1a')).toEqual({ symbol: 'update_curr', offset: 26 });
    expect(parseSite('memcg_offline_kmem.part.0+26')).toEqual({ symbol: 'memcg_offline_kmem.part.0', offset: 26 });
    expect(parseSite('schedule')).toEqual({ symbol: 'schedule', offset: 0 });
    for (const bad of ['', '+0x1', 'f+', 'f+0xg', 'f-4', 'f+1+2']) expect(parseSite(bad)).toBeUndefined();
  });
});

describe('kseries kprobe analyze (CLI)', () => {
  it('prints the JSON contract and exits 0 when every site is safe, 1 when one is unsafe', async () => {
    const safe = await cli(['kprobe', 'analyze', '--object', file('transfers'), '--site', 'p_mov+1', '--json']);
    expect(safe.code).toBe(0);
    expect(JSON.parse(safe.out)).toEqual({
      sites: [{ object: file('transfers'), symbol: 'p_mov', offset: 1, insn: 'mov %rdi,%rax', next_offset: 4, verdict: 'safe', reasons: [], kinds: [] }],
    });
    const unsafe = await cli(['kprobe', 'analyze', '--object', file('transfers'), '--site', 'p_mov+1', '--site', 'p_jmp+0x1']);
    expect(unsafe.code).toBe(1);
    expect(unsafe.out).toMatch(/^unsafe p_jmp\+0x1 +jmp p_jmp\+0x0\n +the probed instruction `jmp p_jmp\+0x0` is a jump$/m);
    expect(unsafe.out).toMatch(/2 sites: 1 safe .*, 1 unsafe; unsafe by first reason: control-transfer 1$/);
  });

  it('--all takes every instruction of a function, or of every function with an empty name', async () => {
    const one = JSON.parse((await cli(['kprobe', 'analyze', '--object', file('targets'), '--all', 't_loop', '--json'])).out);
    expect(one.sites.map((s: { offset: number }) => s.offset)).toEqual([0, 3, 7, 11, 13]);
    const every = JSON.parse((await cli(['kprobe', 'analyze', '--object', file('targets'), '--all', '', '--json'])).out);
    expect(new Set(every.sites.map((s: { symbol: string }) => s.symbol))).toContain('t_cold.cold');
  });

  it('refuses bad input with one line and exit 2', async () => {
    for (const args of [
      ['--object', file('transfers'), '--site', 'p_mov+'],
      ['--object', file('transfers')],
      ['--object', path.join(out, 'missing.o'), '--site', 'f+0'],
      ['--object', file('transfers'), '--site', 'p_lock_add+2'],
    ]) {
      const r = await cli(['kprobe', 'analyze', ...args]);
      expect(r.code, r.err).toBe(2);
      expect(r.err).not.toMatch(/\n\s+at /);
    }
  });
});

describe('kprobe census of a folder of objects and modules', () => {
  it('reads plain and compressed objects alike and tells the .cold crash sites from the refusals that fail closed', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-census-'));
    try {
      fs.mkdirSync(path.join(dir, 'net'));
      fs.copyFileSync(file('targets'), path.join(dir, 'targets.ko'));
      // As a distribution ships modules (Debian 6.12: .ko.xz; gzip here, which every Debian has).
      fs.writeFileSync(path.join(dir, 'net', 'compiled.ko.gz'), execFileSync('gzip', ['-c', file('compiled')]));
      fs.writeFileSync(path.join(dir, 'compiled.mod.o'), '');
      const r = await cli(['kprobe', 'census', dir, '--json']);
      expect(r.code, r.err).toBe(0);
      const { census } = JSON.parse(r.out) as { census: { objects: number; coldParts: number; coldRefusedBy: Record<string, number>; coldExample: string } };
      expect(census.objects).toBe(2);
      expect(census.coldParts).toBeGreaterThanOrEqual(4);
      // t_cold and t_oneway.cold are jumped into; t_orphan.cold and t_init.cold fail closed.
      expect(census.coldRefusedBy.jump).toBeGreaterThanOrEqual(2);
      expect(census.coldRefusedBy.unfound).toBeGreaterThanOrEqual(2);
      expect(census.coldExample).toMatch(/^targets\.ko: t_\w+(\.cold)?\+0x[0-9a-f]+ `/);
      const text = await cli(['kprobe', 'census', dir]);
      expect(text.out).toMatch(/the \.cold fix newly refuses \d+ \(\d+ a \.cold part jumps into, .*\d+ in a \.cold part whose function it cannot find \(fails closed\)\); the first jumped into: targets\.ko: /);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a folder that is not there, or holds no object, is one line and exit 2', async () => {
    expectOneLineError(await cli(['kprobe', 'census', path.join(out, 'none')]), /none: no such folder/);
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-census-'));
    expectOneLineError(await cli(['kprobe', 'census', empty]), /no \.o, \.ko or compressed \.ko files in it/);
    expectOneLineError(await cli(['kprobe', 'census']), /kprobe census needs a folder/);
    fs.rmSync(empty, { recursive: true });
  });
});
