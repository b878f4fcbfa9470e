// What the build plan is made of: a build that a check, generate or measure needs, known before anything is built.

/** One build a run needs; two needs of one folder are one build with two purposes. */
export interface KernelNeed {
  /** The build folder. */
  dir: string;
  /** `kernel`: a whole kernel (vmlinux, bzImage), booted; `objects`: the objects each patch touches, per symbol set. */
  kind: 'kernel' | 'objects';
  /** What it is: "boot kernel", "KUnit kernel", "x86_64 defconfig objects". */
  name: string;
  /** Its configuration in words. */
  config: string;
  /** Why: "kprobe-cold: KUnit on the base and the series, and the series without its fix". */
  why: string;
  /** Build it at a commit as the run would, nothing else (a whole kernel's; the bench builds the plan with it). */
  make?: (commit: string) => Promise<boolean>;
}
