// The machines a patch's objects are built for, as the bots build them: x86-64 with the host's gcc first; the
// architecture an `arch/<a>/` path names, with Debian's cross compiler for it; i386 (the host's gcc, -m32) for code
// x86-64 cannot build (`!64BIT`, ISA); and for a driver whose Kconfig dependencies name other machines only
// (ARCH_IXP4XX, ARCH_K3), the first of those a cross compiler here builds for.
import { onPath } from '../tools/which.js';

export interface Target {
  /** Kbuild's ARCH: x86_64, i386, arm64, riscv, ... */
  arch: string;
  /** CROSS_COMPILE: the cross compiler's prefix ("aarch64-linux-gnu-"); none for the host's gcc. */
  prefix?: string;
  /** Built with clang and the LLVM tools (`LLVM=1`) instead of gcc and binutils. */
  llvm?: boolean;
  /** The make target of its defconfig, where the architecture's own default does not fit its compiler. */
  defconfig?: string;
}

export const HOST: Target = { arch: 'x86_64' };
export const I386: Target = { arch: 'i386' };
/** The compilers of a check that names none: gcc, and clang as NIPA and 0-day add it (where installed). */
export const DEFAULT_COMPILERS = ['gcc', 'clang'];

/** x86-64 with clang, the second compiler NIPA and 0-day build with. */
export const CLANG: Target = { arch: 'x86_64', llvm: true };

/** A cross compiler Debian packages, by the folder of arch/ it builds (SRCARCH). */
interface Cross {
  srcarch: string;
  arch: string;
  prefix: string;
  package: string;
  defconfig?: string;
}

/** In the order a driver of several machines is built for: the bots' most common first. */
const CROSS: Cross[] = [
  { srcarch: 'arm64', arch: 'arm64', prefix: 'aarch64-linux-gnu-', package: 'gcc-aarch64-linux-gnu' },
  { srcarch: 'arm', arch: 'arm', prefix: 'arm-linux-gnueabihf-', package: 'gcc-arm-linux-gnueabihf' },
  { srcarch: 'riscv', arch: 'riscv', prefix: 'riscv64-linux-gnu-', package: 'gcc-riscv64-linux-gnu' },
  // Big-endian, as PS3 needs (CPU_BIG_ENDIAN); powerpc's `make defconfig` on an x86 host is ppc64le_defconfig.
  { srcarch: 'powerpc', arch: 'powerpc', prefix: 'powerpc64-linux-gnu-', package: 'gcc-powerpc64-linux-gnu', defconfig: 'ppc64_defconfig' },
  { srcarch: 's390', arch: 's390', prefix: 's390x-linux-gnu-', package: 'gcc-s390x-linux-gnu' },
  { srcarch: 'mips', arch: 'mips', prefix: 'mips-linux-gnu-', package: 'gcc-mips-linux-gnu' },
  { srcarch: 'sparc', arch: 'sparc64', prefix: 'sparc64-linux-gnu-', package: 'gcc-sparc64-linux-gnu' },
  { srcarch: 'm68k', arch: 'm68k', prefix: 'm68k-linux-gnu-', package: 'gcc-m68k-linux-gnu' },
  { srcarch: 'alpha', arch: 'alpha', prefix: 'alpha-linux-gnu-', package: 'gcc-alpha-linux-gnu' },
  { srcarch: 'sh', arch: 'sh', prefix: 'sh4-linux-gnu-', package: 'gcc-sh4-linux-gnu' },
  { srcarch: 'parisc', arch: 'parisc', prefix: 'hppa-linux-gnu-', package: 'gcc-hppa-linux-gnu' },
];

/** The Debian packages of every cross compiler kseries knows, for doctor and CI. */
export const CROSS_PACKAGES = CROSS.map((c) => c.package);

/** The architecture folder a path lies in ("riscv" of arch/riscv/kernel/setup.c), if any. */
export function archOfPath(file: string): string | undefined {
  return /^arch\/([^/]+)\//.exec(file)?.[1];
}

/** A target for the architecture folder `srcarch`, or why there is none here (no compiler, or none kseries knows). */
export function targetFor(srcarch: string, env: NodeJS.ProcessEnv = process.env): Target | { missing: string } {
  if (srcarch === 'x86') return HOST;
  const c = CROSS.find((x) => x.srcarch === srcarch);
  if (!c) return { missing: `kseries knows no cross compiler for ${srcarch}` };
  if (!onPath(`${c.prefix}gcc`, env)) return { missing: `no ${srcarch} cross compiler is installed (apt-get install ${c.package})` };
  return { arch: c.arch, prefix: c.prefix, ...(c.defconfig ? { defconfig: c.defconfig } : {}) };
}

/** The Debian package of the cross compiler for `srcarch`, if kseries knows one. */
export function crossPackage(srcarch: string): string | undefined {
  return CROSS.find((c) => c.srcarch === srcarch)?.package;
}

/** The architecture folders kseries can build for here, in CROSS's order. */
export function installedCross(env: NodeJS.ProcessEnv = process.env): string[] {
  return CROSS.filter((c) => onPath(`${c.prefix}gcc`, env)).map((c) => c.srcarch);
}

/** The folder of arch/ a target builds (x86 for x86_64 and i386). */
export function srcarchOf(t: Target): string {
  return t.arch === 'x86_64' || t.arch === 'i386' ? 'x86' : (CROSS.find((c) => c.arch === t.arch)?.srcarch ?? t.arch);
}

export function isHost(t: Target): boolean {
  return t.arch === HOST.arch && !t.prefix && !t.llvm;
}

/** Why clang cannot build here, if it cannot: clang, ld.lld and the LLVM binutils are Debian's clang, lld and llvm. */
export function clangMissing(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const gone = ['clang', 'ld.lld', 'llvm-objcopy'].filter((p) => !onPath(p, env));
  return gone.length ? `clang: ${gone.join(', ')} not installed (apt-get install clang lld llvm)` : undefined;
}

/**
 * A target by the name a user gives it (`--arches i386,arm64`): Kbuild's ARCH (x86_64, i386, arm64, riscv, sparc64)
 * or the folder of arch/ (x86, sparc); or why there is none here.
 */
export function targetNamed(name: string, env: NodeJS.ProcessEnv = process.env): Target | { missing: string } {
  if (name === 'x86_64' || name === 'x86') return HOST;
  if (name === 'i386') return I386;
  return targetFor(CROSS.find((c) => c.arch === name)?.srcarch ?? name, env);
}

/** The names --arches takes. */
export const ARCH_NAMES = ['x86_64', 'i386', ...CROSS.map((c) => c.arch)];
