// The kernels kseries boots: which Kconfig symbols a boot needs on top of its base config, which symbols the objects
// of static-key candidates need, and which of those stay off because they would change the kernel being measured.
import { configSymbolsFor, type ReadText } from '../build/kbuild.js';

/**
 * What every boot kernel needs beyond `tinyconfig` + `kvm_guest.config`: a console on the serial port, an initramfs
 * with devtmpfs, /proc and /sys, ELF and script binaries, jump labels (what static keys are), kprobe events and
 * tracefs to count with, and what the workloads use (tmpfs, pipes, loopback TCP, cgroups, futexes, epoll, timers).
 * -O2 as real kernels are built, not tinyconfig's -Os, so the code measured is the code proved. A gzip'd image, not
 * tinyconfig's xz: every relink of a series compresses the kernel again, and gzip does it in a fraction of the time
 * (the decompressor runs before the kernel does: nothing measured changes). The ORC unwinder x86-64 kernels ship with,
 * not tinyconfig's guessing one, whose traces of a lockdep splat are guesses.
 */
export const BOOT_SYMBOLS = [
  '64BIT', 'PRINTK', 'PRINTK_TIME', 'TTY', 'SERIAL_8250', 'SERIAL_8250_CONSOLE', 'BLK_DEV_INITRD', 'DEVTMPFS',
  'PROC_FS', 'SYSFS', 'BINFMT_ELF', 'BINFMT_SCRIPT', 'MULTIUSER', 'FUTEX', 'EPOLL', 'SIGNALFD', 'TIMERFD', 'EVENTFD',
  'POSIX_TIMERS', 'FILE_LOCKING', 'SHMEM', 'TMPFS', 'NET', 'INET', 'UNIX', 'CGROUPS', 'JUMP_LABEL', 'KALLSYMS', 'KPROBES',
  'KPROBE_EVENTS', 'FTRACE', 'DEBUG_FS', 'CC_OPTIMIZE_FOR_PERFORMANCE', 'KERNEL_GZIP', 'UNWINDER_ORC',
];

/**
 * Switched off in every boot kernel: tinyconfig's -Os, xz and guessing unwinder (the choices above replace them), and
 * address randomization.
 */
export const BOOT_OFF = ['CC_OPTIMIZE_FOR_SIZE', 'KERNEL_XZ', 'UNWINDER_GUESS', 'RANDOMIZE_BASE'];

/**
 * What `minimal` switches off of kvm_guest.config, for devices the guest does not have: QEMU runs with -nodefaults,
 * so there is no virtio device, network card, HID device, PTP clock or 9p share; and IPv6 and IP autoconfiguration,
 * which no workload uses (its TCP is on 127.0.0.1). About 120 objects, a tenth of the kernel, that no boot runs. A
 * candidate's or a series' object that needs one of them switches it on again.
 */
export const NO_SUCH_DEVICE = ['VIRTIO_MENU', 'VIRTIO', 'VIRTIO_CONSOLE', 'VIRTIO_BLK', 'NETDEVICES', 'NETWORK_FILESYSTEMS', '9P_FS', 'NET_9P', 'HID', 'PTP_1588_CLOCK', 'IPV6', 'IP_PNP'];

/**
 * What `minimal` keeps off even where a candidate's object depends on it: ACPI, how the guest would find its devices,
 * idle and power off (CHANGES_THE_KERNEL). Without this a candidate of EFI or PCI MMCONFIG code switched it on as a
 * dependency, and with it about 300 objects (drivers/acpi, pnp, thermal, cpufreq, EFI) that measure only flags the
 * guest never tests. A series' own object that needs it still gets it.
 */
export const GUEST_OFF = ['ACPI'];

/** What a boot check adds so the workload can read back the interfaces a series switches keys from (/proc/sys). */
export const CHECK_SYMBOLS = ['SYSCTL', 'PROC_SYSCTL'];

/** What the lockdep flavour adds: locking proofs, might_sleep() checks, and static keys used before jump_label_init(). */
export const LOCKDEP_SYMBOLS = ['DEBUG_KERNEL', 'PROVE_LOCKING', 'DEBUG_ATOMIC_SLEEP', 'JUMP_LABEL_FEATURE_CHECK_DEBUG'];

/**
 * Symbols a measured kernel never gets for a candidate's object, because they change what the kernel does while it is
 * measured: tests, torture and benchmarks that run at boot, debug checkers and latency tracers that hook every lock,
 * interrupt or allocation, hibernation, and ACPI itself (how the minimal guest finds its devices and powers off; the
 * KUnit runs that share this kernel need it off, as kprobe-post's kunitconfig says).
 */
const CHANGES_THE_KERNEL = /TEST|TORTURE|BENCHMARK|KMEMLEAK|KFENCE|KASAN|GCOV|DEBUG_OBJECTS|DMA_API_DEBUG|INJECT|HWLAT|OSNOISE|IRQSOFF|PREEMPT_TRACER|SCHED_TRACER|MMIOTRACE|STACK_TRACER|HIBERNATION|LOCKUP_DETECTOR|DETECT_HUNG_TASK|KGDB|KDB|MEMTEST|^ACPI$/;

/**
 * Symbols of code the QEMU guest never runs, left off so the kernel builds in minutes: radio and bus stacks without
 * their hardware, hypervisor hosts, cluster and network filesystems the guest never mounts, and network services
 * without a peer. `--config FILE` measures them where that is wanted.
 */
const NOT_IN_GUEST = /^(BT|BT_.*|MAC80211.*|CFG80211|CAN|CAN_.*|CAIF.*|IUCV|RFKILL.*|KVM|KVM_.*|XEN|XEN_.*|PCI_XEN|DLM|OCFS2_FS|JFS_FS|SMB_SERVER|SMBFS|CIFS|ORANGEFS_FS|HOSTFS|VBOXSF_FS|IP_VS|IP_VS_.*|SMC)$/;

/** Where a candidate's object stands in a boot kernel's config. */
export interface ObjectPlan {
  object: string;
  /** The symbols that build it (empty: the base builds it, or no Makefile names it). */
  symbols: string[];
  /** Why kseries does not switch its symbols on; undefined when it does. */
  leftOff?: string;
}

/**
 * For the objects of static-key candidates, the symbols a `minimal` kernel switches on to build them: core code
 * (everything outside drivers/, sound/ and samples/, and x86 code of arch/) is built; a driver only when the base already builds
 * it, since QEMU has none of that hardware and the build would grow by minutes; symbols matching CHANGES_THE_KERNEL or
 * NOT_IN_GUEST never.
 */
export async function objectPlans(objects: string[], read: ReadText, base: ReadonlySet<string>): Promise<ObjectPlan[]> {
  const out: ObjectPlan[] = [];
  for (const object of [...new Set(objects)].sort()) {
    const source = object.replace(/\.o$/, '.c');
    if (source.startsWith('arch/') && !source.startsWith('arch/x86/')) {
      out.push({ object, symbols: [], leftOff: `${source.split('/')[1]} code: the measured kernel is x86-64` });
      continue;
    }
    if (source.startsWith('samples/')) {
      out.push({ object, symbols: [], leftOff: 'sample code: no kernel anyone runs builds it' });
      continue;
    }
    const symbols = ((await configSymbolsFor(source, read, base)) ?? []).filter((s) => !base.has(s));
    const changing = symbols.find((s) => CHANGES_THE_KERNEL.test(s));
    const absent = symbols.find((s) => NOT_IN_GUEST.test(s));
    if (symbols.length === 0) out.push({ object, symbols });
    else if (/^(drivers|sound)\//.test(source)) out.push({ object, symbols, leftOff: 'a driver the base config does not build (QEMU has no such hardware)' });
    else if (changing) out.push({ object, symbols, leftOff: `CONFIG_${changing} is left off: it changes the kernel being measured` });
    else if (absent) out.push({ object, symbols, leftOff: `CONFIG_${absent} is left off: the QEMU guest never runs that code` });
    else out.push({ object, symbols });
  }
  return out;
}
