// Where kernel code runs, as a kernel developer reads it off the source: which registration makes a function an
// initcall, a __setup() handler, an interrupt handler, a timer, a work item or a sysfs store; which calls make the code
// after them atomic (a spinlock, interrupts off, an RCU read-side section); and where start_kernel() and setup_arch()
// switch jump labels on. Pure: tables and the C file model in, places out.
import type { CFile, FunctionDef, NameUse } from '../../c-source/functions.js';

/**
 * How a function is reached, worst first: `atomic` and `early` (before jump_label_init()) can never switch a static
 * key; `unknown` and `runtime` need a person; `early_param` depends on the architecture; `init` is boot-time process
 * context after jump_label_init(); `probe` and `exit` are process context around a driver's or module's life.
 */
export type PlaceKind = 'atomic' | 'early' | 'unknown' | 'runtime' | 'probe' | 'exit' | 'early_param' | 'init';

export interface Place {
  kind: PlaceKind;
  /** What it is, as a report says it: "hardirq", "initcall", "work item", "spin_lock() held". */
  what: string;
  /** file:line of the registration, call or lock that decided. */
  where: string;
}

/** Registration APIs: which argument is the function, and where that function runs. */
const ARGUMENTS: Record<string, [arg: number, kind: PlaceKind, what: string][]> = {
  __setup: [[1, 'init', '__setup() handler']],
  early_param: [[1, 'early_param', 'early_param() handler']],
  module_init: [[0, 'init', 'module_init()']],
  module_exit: [[0, 'exit', 'module_exit()']],
  request_irq: [[1, 'atomic', 'hardirq']],
  request_any_context_irq: [[1, 'atomic', 'hardirq']],
  request_percpu_irq: [[1, 'atomic', 'hardirq']],
  devm_request_irq: [[2, 'atomic', 'hardirq']],
  devm_request_any_context_irq: [[2, 'atomic', 'hardirq']],
  request_threaded_irq: [[1, 'atomic', 'hardirq'], [2, 'runtime', 'threaded interrupt handler']],
  devm_request_threaded_irq: [[2, 'atomic', 'hardirq'], [3, 'runtime', 'threaded interrupt handler']],
  request_nmi: [[1, 'atomic', 'NMI']],
  request_percpu_nmi: [[1, 'atomic', 'NMI']],
  register_nmi_handler: [[1, 'atomic', 'NMI']],
  timer_setup: [[1, 'atomic', 'timer callback']],
  timer_setup_on_stack: [[1, 'atomic', 'timer callback']],
  DEFINE_TIMER: [[1, 'atomic', 'timer callback']],
  tasklet_init: [[1, 'atomic', 'tasklet']],
  tasklet_setup: [[1, 'atomic', 'tasklet']],
  DECLARE_TASKLET: [[1, 'atomic', 'tasklet']],
  DECLARE_TASKLET_OLD: [[1, 'atomic', 'tasklet']],
  DECLARE_TASKLET_DISABLED: [[1, 'atomic', 'tasklet']],
  DECLARE_TASKLET_DISABLED_OLD: [[1, 'atomic', 'tasklet']],
  open_softirq: [[1, 'atomic', 'softirq']],
  call_rcu: [[1, 'atomic', 'RCU callback']],
  call_rcu_hurry: [[1, 'atomic', 'RCU callback']],
  call_srcu: [[2, 'atomic', 'SRCU callback']],
  irq_work_init: [[1, 'atomic', 'irq_work']],
  DEFINE_IRQ_WORK: [[1, 'atomic', 'irq_work']],
  IRQ_WORK_INIT: [[0, 'atomic', 'irq_work']],
  smp_call_function: [[0, 'atomic', 'IPI']],
  smp_call_function_single: [[1, 'atomic', 'IPI']],
  smp_call_function_many: [[1, 'atomic', 'IPI']],
  smp_call_function_any: [[1, 'atomic', 'IPI']],
  on_each_cpu: [[0, 'atomic', 'IPI']],
  on_each_cpu_mask: [[1, 'atomic', 'IPI']],
  on_each_cpu_cond: [[0, 'atomic', 'IPI'], [1, 'atomic', 'IPI']],
  on_each_cpu_cond_mask: [[0, 'atomic', 'IPI'], [1, 'atomic', 'IPI']],
  stop_machine: [[0, 'atomic', 'stop_machine() callback']],
  stop_machine_cpuslocked: [[0, 'atomic', 'stop_machine() callback']],
  stop_one_cpu: [[1, 'atomic', 'CPU stopper']],
  stop_one_cpu_nowait: [[1, 'atomic', 'CPU stopper']],
  stop_two_cpus: [[2, 'atomic', 'CPU stopper']],
  INIT_WORK: [[1, 'runtime', 'work item']],
  INIT_WORK_ONSTACK: [[1, 'runtime', 'work item']],
  INIT_DELAYED_WORK: [[1, 'runtime', 'work item']],
  INIT_DEFERRABLE_WORK: [[1, 'runtime', 'work item']],
  INIT_RCU_WORK: [[1, 'runtime', 'work item']],
  DECLARE_WORK: [[1, 'runtime', 'work item']],
  DECLARE_DELAYED_WORK: [[1, 'runtime', 'work item']],
  DECLARE_DEFERRABLE_WORK: [[1, 'runtime', 'work item']],
  kthread_init_work: [[1, 'runtime', 'kthread work']],
  smp_call_on_cpu: [[1, 'runtime', 'work item']],
  kthread_run: [[0, 'runtime', 'kthread']],
  kthread_create: [[0, 'runtime', 'kthread']],
  kthread_create_on_node: [[0, 'runtime', 'kthread']],
  kthread_run_on_cpu: [[0, 'runtime', 'kthread']],
  DEVICE_ATTR: [[2, 'runtime', 'sysfs show'], [3, 'runtime', 'sysfs store']],
  __ATTR: [[2, 'runtime', 'sysfs show'], [3, 'runtime', 'sysfs store']],
  module_param_call: [[1, 'runtime', 'module parameter setter']],
  cpuhp_setup_state: [[2, 'runtime', 'CPU hotplug callback'], [3, 'runtime', 'CPU hotplug callback']],
  cpuhp_setup_state_nocalls: [[2, 'runtime', 'CPU hotplug callback'], [3, 'runtime', 'CPU hotplug callback']],
  cpuhp_setup_state_multi: [[2, 'runtime', 'CPU hotplug callback'], [3, 'runtime', 'CPU hotplug callback']],
};

for (const level of ['pure', 'core', 'postcore', 'arch', 'subsys', 'fs', 'rootfs', 'device', 'late', 'early', 'console', 'security']) {
  ARGUMENTS[`${level}_initcall`] = [[0, 'init', `${level}_initcall()`]];
  ARGUMENTS[`${level}_initcall_sync`] = [[0, 'init', `${level}_initcall_sync()`]];
}
ARGUMENTS.__initcall = [[0, 'init', 'initcall']];

/** Struct fields a function is stored in, and where the function then runs. */
const FIELDS: Record<string, [PlaceKind, string]> = {
  function: ['atomic', 'timer callback'],
  dump: ['atomic', 'kmsg dumper (called at panic, interrupts off)'],
  pre_handler: ['atomic', 'kprobe handler'],
  post_handler: ['atomic', 'kprobe handler'],
  entry_handler: ['atomic', 'kretprobe handler'],
  set: ['runtime', 'module parameter setter'],
  proc_handler: ['runtime', 'sysctl handler'],
  store: ['runtime', 'sysfs store'],
  show: ['runtime', 'sysfs show'],
  write: ['runtime', 'file write'],
  write_iter: ['runtime', 'file write'],
  read: ['runtime', 'file read'],
  read_iter: ['runtime', 'file read'],
  open: ['runtime', 'file open'],
  release: ['runtime', 'file release'],
  unlocked_ioctl: ['runtime', 'ioctl'],
  compat_ioctl: ['runtime', 'ioctl'],
  llseek: ['runtime', 'file operation'],
  mmap: ['runtime', 'file operation'],
  probe: ['probe', 'probe'],
  remove: ['probe', 'remove'],
  remove_new: ['probe', 'remove'],
  shutdown: ['runtime', 'shutdown callback'],
  suspend: ['runtime', 'power-management callback'],
  resume: ['runtime', 'power-management callback'],
  freeze: ['runtime', 'power-management callback'],
  thaw: ['runtime', 'power-management callback'],
  poweroff: ['runtime', 'power-management callback'],
  restore: ['runtime', 'power-management callback'],
  prepare: ['runtime', 'power-management callback'],
  complete: ['runtime', 'power-management callback'],
  runtime_suspend: ['runtime', 'power-management callback'],
  runtime_resume: ['runtime', 'power-management callback'],
};

/** Registration calls whose object's callbacks run in atomic context, or in process context. */
const ATOMIC_REGISTRATION = /^(atomic_notifier_chain_register|register_die_notifier|register_keyboard_notifier|register_vt_notifier|cpu_pm_register_notifier|register_netevent_notifier|register_restart_handler|register_syscore_ops|raw_notifier_chain_register|register_trace_\w+|register_kprobe|register_kretprobe|kmsg_dump_register)$/;
const PROCESS_REGISTRATION = /^(blocking_notifier_chain_register|srcu_notifier_chain_register|register_reboot_notifier|register_pm_notifier|register_netdevice_notifier\w*|register_memory_notifier|register_module_notifier|register_inetaddr_notifier|register_inet6addr_notifier|register_oom_notifier|register_blocking_lsm_notifier|fb_register_client|usb_register_notify|register_sysctl\w*|platform_driver_register|pci_register_driver|driver_register|misc_register|register_filesystem|register_chrdev|cdev_add|sysfs_create_\w+|device_create_file|debugfs_create_file\w*)$/;

/** Where a use of a function's name (not a call) registers it; undefined when no table knows the use. */
export function registrationPlace(file: CFile, use: NameUse): Place | undefined {
  const where = `${file.path}:${use.line}`;
  if (use.kind === 'argument') {
    const hit = ARGUMENTS[use.api]?.find(([arg]) => arg === use.arg);
    if (!hit) return undefined;
    if (use.api.startsWith('cpuhp_setup_state') && /STARTING|DYING/.test(argumentText(file, use))) return { kind: 'atomic', what: 'CPU hotplug starting/dying callback (interrupts off)', where };
    return { kind: hit[1], what: hit[2], where: `${use.api} at ${where}` };
  }
  if (use.kind !== 'field') return undefined;
  if (use.field === 'notifier_call' || ['suspend', 'resume', 'shutdown'].includes(use.field)) {
    const via = use.initializer ? registrationOf(file, use.initializer) : undefined;
    if (via && ATOMIC_REGISTRATION.test(via.api)) return { kind: 'atomic', what: via.api.includes('syscore') ? 'syscore callback (interrupts off)' : 'atomic notifier', where: `${via.api} at ${file.path}:${via.line}` };
    if (via && PROCESS_REGISTRATION.test(via.api)) return { kind: 'runtime', what: 'blocking notifier', where: `${via.api} at ${file.path}:${via.line}` };
    if (use.field === 'notifier_call') return undefined;
  }
  const hit = FIELDS[use.field];
  return hit ? { kind: hit[0], what: hit[1], where: `.${use.field} at ${where}` } : undefined;
}

/** The call that registers the object `name` (`&name` as an argument). */
function registrationOf(file: CFile, name: string): { api: string; line: number } | undefined {
  for (const u of file.usesOf(name)) if (u.kind === 'argument' && (ATOMIC_REGISTRATION.test(u.api) || PROCESS_REGISTRATION.test(u.api))) return { api: u.api, line: u.line };
  return undefined;
}

function argumentText(file: CFile, use: NameUse): string {
  const open = file.masked.lastIndexOf('(', use.at);
  return file.masked.slice(open, file.masked.indexOf(')', use.at));
}

/** Calls that make what follows atomic, and the calls that end that. */
const ENTER = /\b(spin_lock(?:_irq|_irqsave|_bh|_nested|_irqsave_nested)?|raw_spin_lock(?:_irq|_irqsave|_bh|_nested)?|read_lock(?:_irq|_irqsave|_bh)?|write_lock(?:_irq|_irqsave|_bh)?|local_irq_disable|local_irq_save|hard_irq_disable|preempt_disable(?:_notrace)?|get_cpu|rcu_read_lock(?:_sched|_bh)?|local_bh_disable|arch_spin_lock|lock_task_sighand|task_rq_lock|rq_lock(?:_irq|_irqsave)?|raw_spin_rq_lock)\s*\(/g;
const EXIT = /\b(spin_unlock(?:_irq|_irqrestore|_bh)?|raw_spin_unlock(?:_irq|_irqrestore|_bh)?|read_unlock(?:_irq|_irqrestore|_bh)?|write_unlock(?:_irq|_irqrestore|_bh)?|local_irq_enable|local_irq_restore|preempt_enable(?:_no_resched|_notrace)?|put_cpu|rcu_read_unlock(?:_sched|_bh)?|local_bh_enable|arch_spin_unlock|unlock_task_sighand|task_rq_unlock|rq_unlock(?:_irq|_irqrestore)?|raw_spin_rq_unlock)\s*\(/g;
/** Lock guards (cleanup.h) that hold to the end of their scope. */
const GUARD = /\b(guard|scoped_guard)\s*\(\s*(spinlock\w*|raw_spinlock\w*|read_lock\w*|write_lock\w*|rcu|preempt\w*|irq|irqsave|rq_lock\w*|task_rq_lock|double_rq_lock)\b/g;
/** Assertions that say the caller runs atomic. */
const ASSERT = /\b(lockdep_assert_irqs_disabled|lockdep_assert_preemption_disabled|lockdep_assert_in_irq|lockdep_assert_in_softirq|WARN_ON(?:_ONCE)?\s*\(\s*!\s*irqs_disabled)\s*\(/g;

/** Calls that take a sleeping lock, the calls that drop it, and the guards that hold one to the end of their scope. */
const SLEEPING_ENTER = /\b(mutex_lock(?:_interruptible|_killable|_nested|_io)?|down_read(?:_interruptible|_killable)?|down_write(?:_killable)?|down(?:_interruptible|_killable)?|cpus_read_lock|percpu_down_read|percpu_down_write)\s*\(/g;
const SLEEPING_EXIT = /\b(mutex_unlock|up_read|up_write|up|cpus_read_unlock|percpu_up_read|percpu_up_write)\s*\(/g;
const SLEEPING_GUARD = /\b(guard|scoped_guard)\s*\(\s*(mutex|rwsem_read|rwsem_write|cpus_read_lock)\b/g;

/** One kind of held state: the calls that enter it, those that leave it, and its guards. */
interface HeldCalls {
  enter: RegExp;
  exit: RegExp;
  guard: RegExp;
}

/**
 * Is the code at `at` atomic? Returns what holds and where it was taken: "spin_lock()", "mm/x.c:12" (see heldAt).
 */
export function atomicAt(file: CFile, fn: FunctionDef, at: number): { what: string; where: string } | undefined {
  const body = file.masked.slice(fn.open, at);
  for (const a of body.matchAll(ASSERT)) return { what: /preemption/.test(a[1]!) ? 'preemption off (asserted)' : /irq/.test(a[1]!) && !/disabled/.test(a[1]!) ? 'interrupt context (asserted)' : 'interrupts off (asserted)', where: `${a[1]!.replace(/\s+/g, '')}() at ${file.path}:${file.lines.lineOf(fn.open + a.index!)}` };
  const last = heldAt(file, fn, at, { enter: ENTER, exit: EXIT, guard: GUARD });
  return last ? { what: heldText(last.call), where: `${last.call}() at ${last.where}` } : undefined;
}

/** The sleeping lock (mutex, rw semaphore, the CPU hotplug lock) the code at `at` holds: "mutex_lock()", "mm/x.c:12". */
export function sleepingLockAt(file: CFile, fn: FunctionDef, at: number): { call: string; where: string } | undefined {
  return heldAt(file, fn, at, { enter: SLEEPING_ENTER, exit: SLEEPING_EXIT, guard: SLEEPING_GUARD });
}

/**
 * Counts the enter and exit calls of the function on the way from its opening brace to `at`, only those whose block
 * still holds `at` (an unlock on an error path that returns does not end the lock for the code after it; a lock taken
 * and dropped in an `if` block does not count); a guard() holds to the end of its block, a scoped_guard() for its own
 * block. The innermost call that still holds, and where it was made.
 */
function heldAt(file: CFile, fn: FunctionDef, at: number, calls: HeldCalls): { call: string; where: string } | undefined {
  const m = file.masked;
  const body = m.slice(fn.open, at);
  const events: { at: number; enter: boolean; what: string; block: number }[] = [];
  for (const e of body.matchAll(calls.enter)) events.push({ at: fn.open + e.index!, enter: true, what: e[1]!, block: -1 });
  for (const e of body.matchAll(calls.exit)) events.push({ at: fn.open + e.index!, enter: false, what: e[1]!, block: -1 });
  for (const g of body.matchAll(calls.guard)) events.push({ at: fn.open + g.index!, enter: true, what: `${g[1]}(${g[2]})`, block: -1 });
  if (events.length === 0) return undefined;
  events.sort((a, b) => a.at - b.at);
  // One pass over the braces: the block each event stands in, and at the end the blocks that hold `at`.
  const stack: number[] = [];
  let k = 0;
  for (let i = fn.open; i < at; i++) {
    while (k < events.length && events[k]!.at === i) events[k++]!.block = stack[stack.length - 1]!;
    if (m[i] === '{') stack.push(i);
    else if (m[i] === '}') stack.pop();
  }
  const holding = new Set(stack);
  const held: typeof events = [];
  for (const e of events) {
    const block = e.what.startsWith('scoped_guard') ? m.indexOf('{', e.at) : e.block;
    if (!holding.has(block)) continue;
    if (e.enter) held.push(e);
    else held.pop();
  }
  const last = held[held.length - 1];
  return last ? { call: last.what, where: `${file.path}:${file.lines.lineOf(last.at)}` } : undefined;
}

/** What an enter call leaves the code in. */
function heldText(call: string): string {
  if (/irq|hard_irq/.test(call)) return /lock/.test(call) ? 'spinlock held, interrupts off' : 'interrupts off';
  if (/rcu/.test(call)) return 'RCU read-side section';
  if (/bh/.test(call)) return 'softirqs off';
  if (/preempt|get_cpu/.test(call)) return 'preemption off';
  return 'spinlock held';
}

/**
 * Functions whose body is the boot sequence itself: a call in start_kernel() or an architecture's setup_arch() runs
 * before or after jump_label_init() depending on where it stands; kernel_init_freeable() runs after.
 */
export function rootPlace(file: CFile, fn: FunctionDef, at: number): Place | undefined {
  const where = `${file.path}:${file.lines.lineOf(at)}`;
  const sequence = (fn.name === 'start_kernel' && file.path === 'init/main.c') || (fn.name === 'setup_arch' && file.path.startsWith('arch/'));
  if (sequence) {
    const jli = callIn(file, fn, 'jump_label_init');
    if (jli === undefined || at < jli) return { kind: 'early', what: `${fn.name}() before jump_label_init()`, where };
    return { kind: 'init', what: `${fn.name}() after jump_label_init()`, where };
  }
  if (file.path === 'init/main.c' && /^(kernel_init_freeable|kernel_init|do_basic_setup|rest_init)$/.test(fn.name)) return { kind: 'init', what: `${fn.name}()`, where };
  if (file.path.startsWith('arch/') && /^(x86_64_start_kernel|x86_64_start_reservations|i386_start_kernel|early_setup|machine_init|start_kernel_proper)$/.test(fn.name)) return { kind: 'early', what: `${fn.name}() (before start_kernel())`, where };
  if (/^start_secondary$/.test(fn.name)) return { kind: 'atomic', what: 'secondary CPU bring-up (interrupts off)', where };
  if (/^(COMPAT_)?SYSCALL_DEFINE\d$/.test(fn.name)) return { kind: 'runtime', what: 'system call', where };
  if (fn.attrs.has('__exit')) return { kind: 'exit', what: `__exit function ${fn.name}()`, where };
  return undefined;
}

/** Offset of the first call of `callee` in the body of `fn`. */
function callIn(file: CFile, fn: FunctionDef, callee: string): number | undefined {
  const re = new RegExp(`\\b${callee}\\s*\\(`, 'g');
  re.lastIndex = fn.open;
  const m = re.exec(file.masked);
  return m && m.index < fn.close ? m.index : undefined;
}

/** sysfs attributes whose show/store functions are named by a macro: DEVICE_ATTR_RW(foo) names foo_store. */
export function attributeMacroPlace(file: CFile, fn: string): Place | undefined {
  const m = /^(\w+)_(store|show)$/.exec(fn);
  if (!m) return undefined;
  const re = new RegExp(`\\b\\w*ATTR\\w*\\(\\s*${m[1]}\\s*[,)]`);
  const hit = re.exec(file.masked);
  return hit ? { kind: 'runtime', what: `sysfs ${m[2]}`, where: `${file.path}:${file.lines.lineOf(hit.index)}` } : undefined;
}

/**
 * Does the code at `at` in `def` run on every boot? When it is a plain statement of the function's body (not inside an
 * `if`, a loop or a short-circuit), and the function is an initcall of this file, or static and called only by such
 * statements of functions that run on every boot. Returns the initcall's place, or undefined. (An early return before
 * it is not seen; a __setup() or early_param() handler runs only when its option is given.)
 */
export function runsOnEveryBoot(file: CFile, def: FunctionDef, at: number, depth = 0): string | undefined {
  if (depth > 6 || !isPlainStatement(file, def, at)) return undefined;
  const uses = file.usesOf(def.name);
  if (uses.length === 0 || !def.isStatic) return undefined;
  let via: string | undefined;
  for (const u of uses) {
    if (u.kind === 'argument') {
      const hit = ARGUMENTS[u.api]?.find(([arg]) => arg === u.arg);
      if (!hit || hit[1] !== 'init' || u.api === '__setup') return undefined;
      via = `${u.api} at ${file.path}:${u.line}`;
    } else if (u.kind === 'call') {
      via = runsOnEveryBoot(file, u.in, u.at, depth + 1);
      if (!via) return undefined;
    } else return undefined;
  }
  return via;
}

/**
 * A statement of its function's own block: brace depth 1, not the body of a braceless if/while/for/else, not after
 * `&&`, `||` or `?`, and not after a `return` or `goto` of that block (then only a goto reaches it: erst_init()'s
 * `err: erst_disable = 1;` below its `return 0;`).
 */
function isPlainStatement(file: CFile, def: FunctionDef, at: number): boolean {
  const m = file.masked;
  let depth = 0;
  let start = def.open + 1;
  for (let i = def.open; i < at; i++) {
    const c = m[i];
    if (c === '{') depth++;
    else if (c === '}') depth--;
    if (c === ';' && depth === 1 && /^\s*(?:\w+\s*:(?!:)\s*)*(?:return|goto)\b/.test(m.slice(start, i))) return false;
    if ((c === ';' || c === '{' || c === '}') && depth === 1) start = i + 1;
  }
  if (depth !== 1) return false;
  const statement = m.slice(start, at);
  return !/^\s*(if|while|for|else|switch|do|case)\b/.test(statement) && !/&&|\|\||\?/.test(statement);
}
