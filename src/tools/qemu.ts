// QEMU and the tree's gen_init_cpio: booting a kernel with an initramfs on a serial console.
import path from 'node:path';
import { ToolFailedError } from '../errors.js';
import { runBytes, runRaw, type RunResult } from './run.js';

export interface QemuBoot {
  bzImage: string;
  initrd: string;
  /** The kernel command line, one parameter per item. */
  cmdline: string[];
  /** The accelerator's arguments (`-accel kvm` or `-accel tcg`). */
  accelArgs: string[];
  /** The CPU model: `host` under KVM; under TCG `max`, which has what real x86-64 CPUs have (RDRAND and more). */
  cpu: string;
  memoryMiB: number;
  timeoutMs: number;
  /** Sees the serial console as it arrives. */
  onConsole?: (chunk: Buffer) => void;
}

/**
 * Boot the kernel with no devices but a serial console on stdout; the guest ends itself (`reboot -f` with
 * -no-reboot, or a panic with panic=-1). A guest still running after timeoutMs is killed (exit code 137).
 */
export function runQemu(b: QemuBoot): Promise<RunResult> {
  const args = [
    ...b.accelArgs, '-cpu', b.cpu, '-m', String(b.memoryMiB), '-nodefaults', '-nographic', '-no-reboot',
    '-serial', 'stdio', '-kernel', b.bzImage, '-initrd', b.initrd, '-append', b.cmdline.join(' '),
  ];
  return runRaw('qemu-system-x86_64', args, { cwd: path.dirname(b.bzImage), timeoutMs: b.timeoutMs, onStdout: b.onConsole });
}

/** `usr/gen_init_cpio LIST` of a kernel build: the newc archive the list describes. */
export async function genInitCpio(program: string, list: string): Promise<Buffer> {
  const r = await runBytes(program, [list], { cwd: path.dirname(list) });
  if (r.code !== 0) throw new ToolFailedError(`gen_init_cpio ${list} failed: ${r.stderr.toString('utf8').trim().split('\n').pop()}`, 'rebuild the boot kernel (its usr/ folder)');
  return r.stdout;
}
