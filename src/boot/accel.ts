// Which QEMU accelerator boots a guest here: KVM only when a probe boot shows a guest really starts with it (on some
// hosts /dev/kvm exists but a KVM guest hangs, or QEMU aborts on an MSR), else TCG. The verdict is kept per host boot.
import fs from 'node:fs';
import path from 'node:path';
import { runRaw } from '../tools/run.js';
import { cacheDir } from '../tree/paths.js';

export interface Accel {
  accel: 'kvm' | 'tcg';
  /** Why: what the probe saw, or that it was chosen by KSERIES_QEMU_ACCEL. */
  why: string;
  /** QEMU arguments that select it. */
  qemuArgs: string[];
}

/** A KVM guest of a small kernel prints its banner in well under a second; a hung one prints nothing. */
const PROBE_TIMEOUT_MS = 20_000;

const TCG = (why: string): Accel => ({ accel: 'tcg', why, qemuArgs: ['-accel', 'tcg'] });
const KVM = (why: string): Accel => ({ accel: 'kvm', why, qemuArgs: ['-accel', 'kvm'] });

/**
 * Boot `bzImage` under KVM with no root file system (it panics at once and, with panic=-1 and -no-reboot, QEMU
 * exits): KVM works when the kernel's banner appears and QEMU exits in time. `KSERIES_QEMU_ACCEL=kvm|tcg` decides
 * without probing.
 */
export async function chooseAccel(bzImage: string, env: NodeJS.ProcessEnv = process.env): Promise<Accel> {
  const forced = env.KSERIES_QEMU_ACCEL;
  if (forced === 'kvm' || forced === 'tcg') return (forced === 'kvm' ? KVM : TCG)('chosen by KSERIES_QEMU_ACCEL');
  try {
    fs.accessSync('/dev/kvm', fs.constants.R_OK | fs.constants.W_OK);
  } catch {
    return TCG('/dev/kvm is missing or not accessible');
  }
  const bootId = readBootId();
  const memo = path.join(cacheDir(env), 'qemu-accel.json');
  const known = readMemo(memo);
  if (known && bootId && known.bootId === bootId) return known.accel === 'kvm' ? KVM(known.why) : TCG(known.why);
  const started = Date.now();
  const r = await runRaw(
    'qemu-system-x86_64',
    ['-accel', 'kvm', '-m', '256', '-nodefaults', '-nographic', '-no-reboot', '-serial', 'stdio', '-kernel', bzImage, '-append', 'console=ttyS0 panic=-1 kunit.enable=0'],
    { cwd: path.dirname(bzImage), timeoutMs: PROBE_TIMEOUT_MS },
  );
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  const booted = /Linux version \d/.test(r.stdout);
  const verdict = booted && r.code !== 137
    ? KVM(`a KVM probe guest booted its kernel and exited in ${seconds} s`)
    : TCG(r.code === 137
      ? `a KVM probe guest was killed after ${PROBE_TIMEOUT_MS / 1000} s without booting (its last line: ${lastLine(r.stdout) || 'none'})`
      : `a KVM probe guest failed: ${lastLine(r.stderr) || lastLine(r.stdout) || `exit code ${r.code}`}`);
  if (bootId) {
    fs.mkdirSync(path.dirname(memo), { recursive: true });
    fs.writeFileSync(memo, `${JSON.stringify({ bootId, accel: verdict.accel, why: verdict.why })}\n`);
  }
  return verdict;
}

function readBootId(): string | undefined {
  try {
    return fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    return undefined;
  }
}

function readMemo(file: string): { bootId: string; accel: string; why: string } | undefined {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

/** The last printable line of a console log (QEMU's output holds escape sequences). */
function lastLine(text: string): string {
  const lines = text.replace(/\x1b\[[0-9;?]*[A-Za-z]|\x1bc/g, '').split(/\r?\n/).map((l) => l.trim()).filter(Boolean);
  return lines[lines.length - 1]?.slice(0, 120) ?? '';
}
