// Can a kprobe with only a post_handler on instruction I become a pre_handler on the instruction after it (N)?
// Only when the two always run together: I passes control to nothing but N, and nothing but I passes control to N.
// Pure: one parsed object in, a verdict with every reason per site out. When in doubt the verdict is unsafe.
import { ALTERNATIVE_CODE_SECTIONS, alternatives, dataReferencesToCode, exceptionEntries, jumpEntries, kprobeBlacklist, UNPROBED_SECTIONS, type Alternative } from '../object-code/kernel-sections.js';
import type { Instruction, ObjectCode, ObjSymbol, Relocation } from '../object-code/parse.js';
import { firstInstructionFrom, instructionIndexAt, operandRelocations, operandTarget, relocationTarget, type Target } from '../object-code/relocations.js';
import { baseFunction, functionAt, functionsBySection } from '../object-code/symbols.js';
import { directTarget, GROUP7_MNEMONICS, opcodeOf, ripTarget, show, transferOf, type Transfer } from '../object-code/x86.js';
import { TRANSFER_TEXT, type ReasonKind, type SiteVerdict } from './verdict.js';

/** Bytes of the JMP32 an optimized probe writes. */
const JMP32_SIZE = 5;

/** The suffix GCC gives the part of a function it moves out of line: .cold, or .cold.<N> (GCC 8). */
export const COLD_SUFFIX = /\.cold(\.\d+)?$/;

/** The section of init text (__init), which the kernel frees after boot. */
const INIT_TEXT = /^\.init\.text$/;

/** Instructions x86's can_boost() refuses, as far as the mnemonic tells: x87, fences, and system instructions. */
const NOT_BOOSTABLE = /^(f[a-z0-9]*|cpuid|rdtscp?|rdmsr|wrmsr|rdpmc|[lms]fence|clflush(opt)?|xsave\w*|xrstor\w*|fxsave\w*|fxrstor\w*|[ls]dmxcsr|rdrand|rdseed|cmpxchg(8|16)b|wbinvd|invd|invlpg|[ls](g|i|l)dt|bound|hlt|int\w*|ud[012]?)$/;

/** What reaches an address: `what` it is, and the instruction or entry (`by`) it belongs to, formatted on use. */
interface Reached {
  kind: ReasonKind;
  what: string;
  by?: Target;
}

interface Reason {
  kind: ReasonKind;
  text: string;
}

/** A code section with, per instruction, what it does with control and the relocation in its operand. */
interface CodeSection {
  name: string;
  insns: Instruction[];
  transfer: (Transfer | undefined)[];
  reloc: (Relocation | undefined)[];
}

/** What a function is as a whole: kprobes may refuse it, and its indirect jumps may be unresolved. */
interface FunctionFacts {
  refused?: string;
  /** An indirect jump of the function when no table of the object names code inside it. */
  unresolvedJump?: { insn: Instruction; text: string; count: number };
  /** Why objdump's boundaries in the function cannot be trusted. */
  undecoded?: string;
  /** What the x86 rule of the kprobe-post series refuses a whole function for. */
  anyIndirectJump: boolean;
  anyExTable: boolean;
  anyJumpLabel: boolean;
}

/** Everything of one object that a site's verdict needs, indexed once: then each site is a few lookups. */
/** Why the .cold fix refuses a site (ObjectAnalysis.coldRefusal). */
export type ColdRefusal = 'jump' | 'indirect' | 'unfound';

export class ObjectAnalysis {
  private readonly sections = new Map<string, CodeSection>();
  /** Per code section and address: what reaches it other than falling through from the instruction before. */
  private readonly reachedBy = new Map<string, Map<number, Reached[]>>();
  /** Per code section: instructions with an __ex_table entry (→ fixup), jump labels, sites kprobes refuse. */
  private readonly faults = new Map<string, Map<number, Target | undefined>>();
  private readonly jumpLabels = new Map<string, Set<number>>();
  private readonly unprobeable = new Map<string, Map<number, string>>();
  private readonly altSites = new Map<string, Alternative[]>();
  private readonly facts = new Map<ObjSymbol, FunctionFacts>();
  private readonly byName = new Map<string, ObjSymbol>();

  constructor(
    readonly object: string,
    private readonly code: ObjectCode,
  ) {
    for (const list of functionsBySection(code).values()) for (const f of list) if (!this.byName.has(f.name)) this.byName.set(f.name, f);
    for (const [name, insns] of code.instructions) {
      const reloc = operandRelocations(code, name);
      this.sections.set(name, { name, insns, reloc, transfer: insns.map((i, n) => transferOf(i, reloc[n]?.symbol)) });
    }
    const tabled = new Set<ObjSymbol>();
    const indirect = new Map<ObjSymbol, { insn: Instruction; text: string }[]>();
    for (const s of this.sections.values()) this.readCode(s, indirect);
    for (const ref of dataReferencesToCode(code, new Set(this.sections.keys()))) {
      const table = /^\.(rodata|data)/.test(ref.from);
      this.reach(ref.to, { kind: table ? 'table-target' : 'address-taken', what: `named by a relocation at ${ref.from}+0x${ref.offset.toString(16)}${table ? ' (a jump table, a computed-goto table or a pointer)' : ''}` });
      const fn = functionAt(code, ref.to.section, ref.to.offset);
      if (fn) tabled.add(fn);
    }
    for (const e of jumpEntries(code)) {
      add(this.jumpLabels, e.code.section, e.code.offset);
      if (e.target) this.reach(e.target, { kind: 'static-branch-target', what: 'the target of the jump label at', by: e.code });
    }
    for (const e of exceptionEntries(code)) {
      mapOf(this.faults, e.insn.section).set(e.insn.offset, e.fixup);
      if (e.fixup) this.reach(e.fixup, { kind: 'fixup-target', what: 'the exception fixup of', by: e.insn });
    }
    for (const a of alternatives(code)) {
      if (!this.altSites.has(a.site.section)) this.altSites.set(a.site.section, []);
      this.altSites.get(a.site.section)!.push(a);
    }
    for (const [section, what] of [['.static_call_sites', 'a static call site'], ['__bug_table', 'a BUG()/WARN() site']] as const) {
      for (const r of code.relocations.get(section) ?? []) {
        const t = relocationTarget(code, r);
        if (t && this.sections.has(t.section)) mapOf(this.unprobeable, t.section).set(t.offset, what);
      }
    }
    for (const s of code.symbols) {
      if (s.kind === 'd' || s.kind === 'f' || !this.sections.has(s.section) || s.name.startsWith('__pfx_') || s.name.startsWith('__cfi_')) continue;
      this.reach({ section: s.section, offset: s.value }, { kind: 'entry-point', what: `the address of the symbol ${s.name}` });
    }
    const blacklisted = new Set(kprobeBlacklist(code).map((t) => functionAt(code, t.section, t.offset)));
    const holders = (places: Iterable<[string, Iterable<number>]>) => {
      const out = new Set<ObjSymbol | undefined>();
      for (const [section, offsets] of places) for (const o of offsets) out.add(functionAt(code, section, o));
      return out;
    };
    const withExTable = holders([...this.faults].map(([s, m]) => [s, m.keys()]));
    const withJumpLabel = holders(this.jumpLabels);
    for (const fn of [...functionsBySection(code).values()].flat()) {
      const f: FunctionFacts = { anyIndirectJump: indirect.has(fn), anyExTable: withExTable.has(fn), anyJumpLabel: withJumpLabel.has(fn) };
      if (UNPROBED_SECTIONS.has(fn.section)) f.refused = `kprobes refuse probes in ${fn.section} (noinstr, entry or __kprobes code)`;
      else if (blacklisted.has(fn)) f.refused = `${fn.name} is on the kprobe blacklist (NOKPROBE_SYMBOL)`;
      const jumps = indirect.get(fn);
      if (jumps && !tabled.has(fn)) f.unresolvedJump = { ...jumps[0]!, count: jumps.length };
      this.facts.set(fn, f);
    }
    this.findUndecoded();
  }

  /**
   * objdump decodes an instruction it does not know as `(bad)` and goes on from the next byte, so the boundaries
   * after it may be wrong (binutils 2.40 does not know LKGS, f2 0f 00 /6, and reads the bytes after it as other
   * instructions). A branch target, fixup or table entry that names the middle of an instruction shows the same.
   */
  private findUndecoded(): void {
    const mark = (section: string, address: number, why: (fn: ObjSymbol) => string) => {
      const fn = functionAt(this.code, section, address);
      const f = fn && this.facts.get(fn);
      if (f && !f.undecoded) f.undecoded = `objdump's instruction boundaries in ${fn.name} cannot be trusted: ${why(fn)}`;
    };
    for (const s of this.sections.values()) {
      for (const i of s.insns) if (i.mnemonic === '(bad)' || i.operands === '(bad)') mark(s.name, i.address, (fn) => `it cannot decode the bytes at ${fn.name}+0x${(i.address - fn.value).toString(16)}`);
      const named = [...(this.reachedBy.get(s.name)?.keys() ?? []), ...(this.faults.get(s.name)?.keys() ?? []), ...(this.jumpLabels.get(s.name) ?? [])];
      for (const address of named) {
        const i = s.insns[instructionIndexAt(s.insns, address)];
        if (i && i.address !== address) mark(s.name, address, (fn) => `a branch, fixup or table names ${fn.name}+0x${(address - fn.value).toString(16)}, inside \`${show(i)}\``);
      }
    }
  }

  /** Every function symbol with code, in section and address order. */
  functions(): ObjSymbol[] {
    return [...functionsBySection(this.code).values()].flat().filter((f) => this.sections.has(f.section));
  }

  /** Every instruction of a function as a site. */
  allSites(symbol: string): SiteVerdict[] {
    const fn = this.byName.get(symbol);
    return fn ? this.sitesOf(fn) : [this.error(symbol, 0, `no function ${symbol} in ${this.object}`)];
  }

  /** Every instruction of one function symbol (of functions()) as a site. */
  sitesOf(fn: ObjSymbol): SiteVerdict[] {
    const s = this.sections.get(fn.section);
    if (!s) return [];
    const out: SiteVerdict[] = [];
    for (let n = firstInstructionFrom(s.insns, fn.value); n < s.insns.length && s.insns[n]!.address < fn.value + fn.size; n++) out.push(this.judge(fn, s, n));
    return out;
  }

  site(symbol: string, offset: number): SiteVerdict {
    const fn = this.byName.get(symbol);
    const s = fn && this.sections.get(fn.section);
    if (!fn || !s) return this.error(symbol, offset, `no function ${symbol} in ${this.object}`);
    if (offset < 0 || offset >= fn.size) return this.error(symbol, offset, `${symbol}+0x${offset.toString(16)} is past the end of ${symbol} (${fn.size} bytes)`);
    const at = fn.value + offset;
    const n = instructionIndexAt(s.insns, at);
    const insn = s.insns[n];
    if (!insn) return this.error(symbol, offset, `${symbol}+0x${offset.toString(16)} holds no instruction`);
    if (insn.address !== at) {
      return this.error(symbol, offset, `${symbol}+0x${offset.toString(16)} is not an instruction boundary: it is inside \`${show(insn)}\` at ${symbol}+0x${(insn.address - fn.value).toString(16)}`);
    }
    return this.judge(fn, s, n);
  }

  /** The verdict on the n-th instruction of section `s`, which belongs to `fn`. */
  private judge(fn: ObjSymbol, s: CodeSection, n: number): SiteVerdict {
    const insn = s.insns[n]!;
    const at = insn.address;
    const next = at + insn.length;
    const transfer = s.transfer[n];
    const r = s.reloc[n];
    const text = this.describe(s.name, insn, transfer, r);
    const facts = this.facts.get(fn)!;
    const reasons: Reason[] = [];
    if (facts.refused) reasons.push({ kind: 'not-probeable', text: facts.refused });
    if (facts.undecoded) reasons.push({ kind: 'undecoded', text: facts.undecoded });
    if (transfer) reasons.push({ kind: 'control-transfer', text: `the probed instruction \`${text}\` ${TRANSFER_TEXT[transfer]}` });
    if (this.jumpLabels.get(s.name)?.has(at)) reasons.push({ kind: 'jump-label', text: 'the probed instruction is a jump label: the kernel patches it between a NOP and a jmp' });
    const faults = this.faults.get(s.name);
    if (faults?.has(at)) {
      const fixup = faults.get(at);
      reasons.push({ kind: 'may-fault', text: `the probed instruction may fault: its __ex_table entry continues at ${fixup ? this.where(fixup) : 'a fixup'}, not at the next instruction` });
    }
    const alts = this.altSites.get(s.name);
    const altSite = alts && alternativeAt(alts, at);
    if (altSite) reasons.push({ kind: 'alternative', text: `the probed instruction lies in an alternative at ${this.where(altSite.site)} (${altSite.length || '?'} bytes), rewritten at boot` });
    if (next >= fn.value + fn.size) {
      reasons.push({ kind: 'no-next', text: `the instruction after it would be at ${fn.name}+0x${(next - fn.value).toString(16)}, past the end of ${fn.name}` });
      return this.verdict(fn, insn, text, null, reasons);
    }
    const altNext = alts && alternativeAt(alts, next);
    if (altNext && altNext !== altSite) reasons.push({ kind: 'alternative', text: `the next instruction lies in an alternative at ${this.where(altNext.site)} (${altNext.length || '?'} bytes), rewritten at boot` });
    for (const x of this.reachedBy.get(s.name)?.get(next) ?? []) reasons.push({ kind: x.kind, text: `the next instruction is ${x.what}${x.by ? ` ${this.where(x.by)}` : ''}` });
    const following = s.insns[n + 1];
    if (following && following.mnemonic.startsWith('endbr')) reasons.push({ kind: 'entry-point', text: 'the next instruction is an endbr64: an indirect jump or call may land on it' });
    if (facts.unresolvedJump) {
      const { insn: j, text: jump, count } = facts.unresolvedJump;
      reasons.push({ kind: 'indirect-jump', text: `${fn.name} has an indirect jump (\`${jump}\` at ${fn.name}+0x${(j.address - fn.value).toString(16)}${count > 1 ? ` and ${count - 1} more` : ''}) whose targets no table of the object names: any of its instructions may be one` });
    }
    const trap = following && s.transfer[n + 1] === 'trap' ? `\`${following.mnemonic}\`, which traps` : undefined;
    const refused = this.unprobeable.get(s.name)?.get(next) ?? (this.jumpLabels.get(s.name)?.has(next) ? 'a jump label' : trap);
    if (refused) reasons.push({ kind: 'next-not-probeable', text: `kprobes refuse a probe on the next instruction: it is ${refused}` });
    return this.verdict(fn, insn, text, next - fn.value, reasons);
  }

  /**
   * The instruction as objdump prints it, but a direct jump or call names its target as function+offset and a
   * relocated one names its symbol (objdump shows the unrelocated field, which points at the next instruction).
   */
  private describe(section: string, insn: Instruction, transfer: Transfer | undefined, r: Relocation | undefined): string {
    if (!transfer) return insn.operands ? `${insn.mnemonic} ${insn.operands}` : insn.mnemonic;
    const { mnemonic, operands } = opcodeOf(insn);
    if (transfer === 'jump' || transfer === 'cond-jump' || transfer === 'call') {
      const t = this.branchTarget(section, insn, r);
      if (t) return `${mnemonic} ${this.where(t)}`;
      if (r) return `${mnemonic} ${r.symbol}`;
    } else if (r && !operands.startsWith('*')) return `${mnemonic} ${r.symbol}`;
    return insn.operands ? `${insn.mnemonic} ${insn.operands}` : insn.mnemonic;
  }

  /** Where a direct jump or call lands: through its operand's relocation, or as objdump resolved it in `section`. */
  private branchTarget(section: string, insn: Instruction, r: Relocation | undefined): Target | undefined {
    if (r) return operandTarget(this.code, insn, r);
    const own = directTarget(insn);
    return own === undefined ? undefined : { section, offset: own };
  }

  /**
   * What the x86 rule of the kprobe-post series (arch_kprobe_next_insn(), can_optimize_next_insn() and the checks of
   * register_kprobe()) does with a post_handler probe on this site: it decodes only the function and its .cold part,
   * as the code runs after boot, and refuses a whole function that holds an indirect jump, a jump label or an
   * exception table entry; the next instruction needs room for a JMP32 before the function ends, no jump of its own
   * function into [next, next + 5], and boostable instructions where the JMP32 goes (approximated by mnemonic:
   * x87, fences, CPUID, MSR, TSC and other system instructions are not). A model of that C code for the census; the
   * verdicts of site() are what the object code proves.
   */
  x86Rule(fn: ObjSymbol, offset: number): 'move' | 'stay' {
    const s = this.sections.get(fn.section);
    if (!s) return 'stay';
    const n = instructionIndexAt(s.insns, fn.value + offset);
    const insn = s.insns[n];
    if (!insn || insn.address !== fn.value + offset) return 'stay';
    const f = this.facts.get(fn)!;
    if (f.refused || f.undecoded || f.anyIndirectJump || f.anyExTable || f.anyJumpLabel) return 'stay';
    if (s.transfer[n] || GROUP7_MNEMONICS.has(opcodeOf(insn).mnemonic)) return 'stay';
    const next = insn.address + insn.length;
    const end = fn.value + fn.size;
    const following = s.insns[n + 1];
    if (end - next < JMP32_SIZE || !following || following.mnemonic.startsWith('endbr') || s.transfer[n + 1] === 'trap') return 'stay';
    if (this.unprobeable.get(s.name)?.has(next) || this.jumpLabels.get(s.name)?.has(next)) return 'stay';
    for (let k = n + 1; k < s.insns.length && s.insns[k]!.address < next + JMP32_SIZE; k++) {
      if (s.transfer[k] || NOT_BOOSTABLE.test(opcodeOf(s.insns[k]!).mnemonic)) return 'stay';
    }
    // The function itself (under any of its names) or its .cold part jumps into [next, next + 5]: the rule decodes those.
    const own = (g: ObjSymbol | undefined) => !!g && ((g.section === fn.section && g.value === fn.value) || baseFunction(g.name) === baseFunction(fn.name));
    for (let at = next; at <= next + JMP32_SIZE; at++) {
      const reached = this.reachedBy.get(s.name)?.get(at) ?? [];
      if (reached.some((r) => r.kind === 'branch-target' && r.by && own(functionAt(this.code, r.by.section, r.by.offset)))) return 'stay';
    }
    return 'move';
  }

  /**
   * Whether the .cold fix (kprobe-cold) newly refuses to optimize a probe at `fn+offset`: can_optimize() accepts it
   * within its own symbol (a model: room for the JMP32 before the symbol ends, boostable instructions under it, no
   * jump of the symbol into it, no indirect jump or exception table entry in it), and the other part of its function
   * in this object (<fn>.cold[.N] for <fn>, <fn> for a .cold part) jumps into the JMP32's bytes or holds an indirect
   * jump or an exception table entry, which the fix decodes too. The fix fails closed: a .cold part whose function it
   * cannot find (none of that name here, or only one in init text, freed after boot) is refused as well.
   */
  coldRefuses(fn: ObjSymbol, offset: number): boolean {
    return this.coldRefusal(fn, offset) !== undefined;
  }

  /**
   * Why the .cold fix refuses `fn+offset` (coldRefuses): `jump`, the other part jumps strictly into the JMP32's bytes
   * (the crash the fix prevents); `indirect`, the other part holds an indirect jump or an exception table entry;
   * `unfound`, the fix fails closed (a .cold part whose function is not here, or only in init text).
   */
  coldRefusal(fn: ObjSymbol, offset: number): ColdRefusal | undefined {
    const cold = COLD_SUFFIX.test(fn.name);
    const others = this.otherParts(fn).filter((o) => !INIT_TEXT.test(o.section));
    const s = this.sections.get(fn.section);
    if ((!others.length && !cold) || !s) return undefined;
    const n = instructionIndexAt(s.insns, fn.value + offset);
    const at = fn.value + offset;
    if (s.insns[n]?.address !== at) return undefined;
    const f = this.facts.get(fn)!;
    if (f.refused || f.undecoded || f.anyIndirectJump || f.anyExTable || fn.value + fn.size - at < JMP32_SIZE) return undefined;
    for (let k = n; k < s.insns.length && s.insns[k]!.address < at + JMP32_SIZE; k++) {
      if (s.transfer[k] || NOT_BOOSTABLE.test(opcodeOf(s.insns[k]!).mnemonic)) return undefined;
    }
    const same = (a: ObjSymbol, b: ObjSymbol | undefined) => !!b && a.section === b.section && a.value === b.value;
    const into = (from: (g: ObjSymbol | undefined) => boolean) => {
      for (let t = at + 1; t < at + JMP32_SIZE; t++) {
        if ((this.reachedBy.get(s.name)?.get(t) ?? []).some((r) => r.kind === 'branch-target' && r.by && from(functionAt(this.code, r.by.section, r.by.offset)))) return true;
      }
      return false;
    };
    if (into((g) => same(fn, g))) return undefined;
    if (!others.length) return 'unfound';
    if (others.some((o) => this.facts.get(o)?.anyIndirectJump || this.facts.get(o)?.anyExTable)) return 'indirect';
    return into((g) => others.some((o) => same(o, g))) ? 'jump' : undefined;
  }

  /** The other parts of `fn`'s function in this object: <fn>.cold[.N] for <fn>, and <fn> for <fn>.cold[.N]. */
  private otherParts(fn: ObjSymbol): ObjSymbol[] {
    if (!this.parts) {
      this.parts = new Map();
      for (const g of this.functions()) {
        const base = g.name.replace(COLD_SUFFIX, '');
        this.parts.set(base, [...(this.parts.get(base) ?? []), g]);
      }
    }
    const cold = COLD_SUFFIX.test(fn.name);
    return (this.parts.get(fn.name.replace(COLD_SUFFIX, '')) ?? []).filter((g) => g !== fn && COLD_SUFFIX.test(g.name) !== cold);
  }

  private parts?: Map<string, ObjSymbol[]>;

  /** Branches, calls and taken addresses of one code section, and the indirect jumps of its functions. */
  private readCode(s: CodeSection, indirect: Map<ObjSymbol, { insn: Instruction; text: string }[]>): void {
    for (const [n, i] of s.insns.entries()) {
      const transfer = s.transfer[n];
      const r = s.reloc[n];
      if (transfer === 'jump' || transfer === 'cond-jump' || transfer === 'call') {
        const t = this.branchTarget(s.name, i, r);
        // An alternative's replacement (and static_cpu_has()'s slow path) jumps back into the code it patches.
        const patched = ALTERNATIVE_CODE_SECTIONS.has(s.name);
        if (t) this.reach(t, { kind: patched ? 'alternative' : 'branch-target', what: `the target of \`${opcodeOf(i).mnemonic}\`${patched ? ' in code alternatives patch in at boot,' : ''} at`, by: { section: s.name, offset: i.address } });
        continue;
      }
      if (transfer === 'indirect-jump') {
        const fn = functionAt(this.code, s.name, i.address);
        if (fn) {
          if (!indirect.has(fn)) indirect.set(fn, []);
          indirect.get(fn)!.push({ insn: i, text: this.describe(s.name, i, transfer, r) });
        }
      }
      if (transfer) continue;
      // An operand that holds a code address: %rip-relative (resolved by the assembler, or relocated), or absolute.
      let t: Target | undefined;
      if (r) t = i.operands.includes('(%rip)') ? operandTarget(this.code, i, r) : relocationTarget(this.code, r);
      else if (i.operands.includes('(%rip)')) {
        const own = ripTarget(i);
        if (own !== undefined) t = { section: s.name, offset: own };
      }
      if (t) this.reach(t, { kind: 'address-taken', what: `the address taken by \`${opcodeOf(i).mnemonic}\` at`, by: { section: s.name, offset: i.address } });
    }
  }

  private reach(t: Target, reason: Reached): void {
    if (!this.sections.has(t.section)) return;
    const at = mapOf(this.reachedBy, t.section);
    const list = at.get(t.offset);
    if (list) list.push(reason);
    else at.set(t.offset, [reason]);
  }

  /** `fn+0x1a` for a place in code, `section+0x1a` outside any function. */
  private where(t: Target): string {
    const fn = functionAt(this.code, t.section, t.offset);
    return fn ? `${fn.name}+0x${(t.offset - fn.value).toString(16)}` : `${t.section}+0x${t.offset.toString(16)}`;
  }

  private verdict(fn: ObjSymbol, insn: Instruction, text: string, next: number | null, reasons: Reason[]): SiteVerdict {
    const texts: string[] = [];
    const kinds: ReasonKind[] = [];
    for (const r of reasons) {
      if (texts.includes(r.text)) continue;
      texts.push(r.text);
      kinds.push(r.kind);
    }
    return { object: this.object, symbol: fn.name, offset: insn.address - fn.value, insn: text, next_offset: next, verdict: texts.length ? 'unsafe' : 'safe', reasons: texts, kinds };
  }

  private error(symbol: string, offset: number, why: string): SiteVerdict {
    return { object: this.object, symbol, offset, insn: '', next_offset: null, verdict: 'error', reasons: [why], kinds: [] };
  }
}

/** The alternative whose original instructions cover `address`. */
function alternativeAt(alts: Alternative[], address: number): Alternative | undefined {
  for (const a of alts) if (address >= a.site.offset && address < a.site.offset + Math.max(a.length, 1)) return a;
  return undefined;
}

function mapOf<V>(maps: Map<string, Map<number, V>>, section: string): Map<number, V> {
  let m = maps.get(section);
  if (!m) maps.set(section, (m = new Map()));
  return m;
}

function add(sets: Map<string, Set<number>>, section: string, offset: number): void {
  let s = sets.get(section);
  if (!s) sets.set(section, (s = new Set()));
  s.add(offset);
}

