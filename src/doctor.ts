// `kseries doctor`: everything kseries needs, one line per missing piece with the Debian package that provides it.
import fs from 'node:fs';
import path from 'node:path';
import { gitRunRaw } from './tools/git.js';
import { spdxCanImport } from './tools/kernel-scripts.js';
import { run, runRaw } from './tools/run.js';
import { onPath } from './tools/which.js';
import { busyboxPath, isStaticElf } from './boot/initramfs.js';

export interface Requirement {
  what: string;
  /** The Debian package that provides it. */
  package: string;
  present: boolean;
  /** kseries works without it (and says which path ran); `--install` and npm start install it too. */
  optional?: boolean;
}

const PROGRAMS: [program: string, pkg: string, why: string][] = [
  ['git', 'git', 'series branches, format-patch, am'],
  ['perl', 'perl', 'checkpatch.pl, get_maintainer.pl'],
  ['make', 'make', 'kernel builds'],
  ['gcc', 'gcc', 'kernel builds'],
  ['flex', 'flex', 'kernel builds'],
  ['bison', 'bison', 'kernel builds'],
  ['bc', 'bc', 'kernel builds'],
  ['objdump', 'binutils', 'object-code proofs'],
  ['readelf', 'binutils', 'object-code proofs'],
  ['tar', 'tar', 'unpacking the Debian kernel source'],
  ['xz', 'xz-utils', 'unpacking the Debian kernel source'],
  ['python3', 'python3', 'KUnit (tools/testing/kunit/kunit.py)'],
  ['qemu-system-x86_64', 'qemu-system-x86', 'KUnit and boot tests under QEMU'],
  ['bwrap', 'bubblewrap', 'review: building code someone else wrote in a sandbox'],
  ['spatch', 'coccinelle', 'cocci edits and the cocci recipe: Coccinelle semantic patches'],
];

/** What kseries uses when it is there: ccache, for objects compiled from the same text again (warm runs, check after generate). */
const OPTIONAL: [program: string, pkg: string, why: string][] = [
  ['ccache', 'ccache', 'kernel builds recompile nothing they compiled before'],
  // The machines the bots build besides x86-64; without them check says which objects no build here made.
  ['aarch64-linux-gnu-gcc', 'gcc-aarch64-linux-gnu', 'check: arm64 code, and drivers only ARM machines build'],
  ['arm-linux-gnueabihf-gcc', 'gcc-arm-linux-gnueabihf', 'check: 32-bit arm code'],
  ['riscv64-linux-gnu-gcc', 'gcc-riscv64-linux-gnu', 'check: riscv code'],
  ['powerpc64-linux-gnu-gcc', 'gcc-powerpc64-linux-gnu', 'check: powerpc code, and drivers only powerpc machines build (PS3)'],
  ['clang', 'clang', 'check: the second compiler NIPA and 0-day build x86-64 with (--compilers)'],
  ['ld.lld', 'lld', 'check: clang builds link with it (LLVM=1)'],
  ['llvm-objcopy', 'llvm', 'check: clang builds use the LLVM binutils (LLVM=1)'],
  ['sparse', 'sparse', "check: sparse's findings in what a patch changes (C=1), as 0-day reports them"],
];

/** The Python modules checkpatch's SPDX check (scripts/spdxcheck.py) imports; without them it does not run. */
const PYTHON_MODULES: [module: string, pkg: string][] = [
  ['ply', 'python3-ply'],
  ['git', 'python3-git'],
];

const HEADERS: [file: string, pkg: string, why: string][] = [
  ['/usr/include/libelf.h', 'libelf-dev', 'objtool in kernel builds'],
  ['/usr/include/openssl/opensslv.h', 'libssl-dev', 'kernel builds (certificates, signing)'],
];

export async function checkRequirements(env: NodeJS.ProcessEnv = process.env): Promise<Requirement[]> {
  const reqs: Requirement[] = [];
  const major = Number(process.versions.node.split('.')[0]);
  reqs.push({ what: `Node.js >= 20 (have ${process.versions.node})`, package: 'nodejs', present: major >= 20 });
  for (const [program, pkg, why] of PROGRAMS) reqs.push({ what: `${program} (${why})`, package: pkg, present: onPath(program, env) });
  reqs.push({ what: 'git send-email (sending series)', package: 'git-email', present: await hasSendEmail() });
  // git send-email parses addresses with Mail::Address, which git-email only recommends.
  reqs.push({ what: 'Mail::Address (git send-email parses addresses with it)', package: 'libmailtools-perl', present: await hasPerlModule('Mail::Address') });
  for (const [file, pkg, why] of HEADERS) reqs.push({ what: `${path.basename(file)} (${why})`, package: pkg, present: fs.existsSync(file) });
  reqs.push({ what: `a static busybox at ${busyboxPath(env)} (the initramfs of measure and boot checks)`, package: 'busybox-static', present: isStaticElf(busyboxPath(env)) });
  for (const [program, pkg, why] of OPTIONAL) reqs.push({ what: `${program} (${why})`, package: pkg, present: onPath(program, env), optional: true });
  for (const [module, pkg] of PYTHON_MODULES) reqs.push({ what: `python3 module ${module} (checkpatch's SPDX license check, scripts/spdxcheck.py)`, package: pkg, present: await spdxCanImport([module], env), optional: true });
  return reqs;
}

async function hasSendEmail(): Promise<boolean> {
  const res = await gitRunRaw('/', ['--exec-path']).catch(() => undefined);
  return !!res && res.code === 0 && fs.existsSync(path.join(res.stdout.trim(), 'git-send-email'));
}

async function hasPerlModule(module: string): Promise<boolean> {
  const res = await runRaw('perl', [`-M${module}`, '-e1'], { cwd: '/' }).catch(() => undefined);
  return !!res && res.code === 0;
}

/** The packages of what is missing; with `optional`, of what kseries would use too. */
export function missingPackages(reqs: Requirement[], opts: { optional?: boolean } = {}): string[] {
  return [...new Set(reqs.filter((r) => !r.present && (opts.optional || !r.optional)).map((r) => r.package))];
}

/** apt-get update, then install the packages (root only). */
export async function installPackages(packages: string[], log: (line: string) => void): Promise<void> {
  const env = { DEBIAN_FRONTEND: 'noninteractive' };
  log(`apt-get install ${packages.join(' ')}`);
  await run('apt-get', ['update', '-q'], { cwd: '/', env });
  await run('apt-get', ['install', '-y', '-q', ...packages], { cwd: '/', env });
}

/** The Debian packages a kernel build needs that are missing, e.g. for `kseries check`. */
export async function missingBuildPackages(env: NodeJS.ProcessEnv = process.env): Promise<string[]> {
  const build = new Set(['make', 'gcc', 'flex', 'bison', 'bc', 'libelf-dev', 'libssl-dev', 'perl']);
  return missingPackages(await checkRequirements(env)).filter((p) => build.has(p));
}
