// The named workloads a measured or checked kernel runs after boot: busybox shell scripts in phases, each documented
// in the README with what it exercises. A workload does what a system does, not what a candidate needs: a phase that
// runs an operation for its own sake (services started and stopped) is a setup phase, and a flag tested only there
// is on a setup/teardown path, not a hot one. kprobe_profile is read after every phase.

export interface Phase {
  name: string;
  /** One line for the README and reports. */
  what: string;
  /** It starts and stops something (setup/teardown) rather than doing what a running system does over and over. */
  setup?: boolean;
  /** A busybox sh script; its exit status is reported. */
  script: string;
}

export interface Workload {
  name: string;
  /** One line for reports and --help. */
  what: string;
  phases: Phase[];
}

/** A build: many short processes that read sources, pipe them through filters and write objects; a dependency walk. */
const BUILD = `mkdir -p /tmp/build/src /tmp/build/obj
i=0
while [ $i -lt 24 ]; do printf 'int f%d(void)\\n{\\n\\treturn %d;\\n}\\n' $i $i > /tmp/build/src/f$i.c; i=$((i + 1)); done
round=0
while [ $round -lt 2 ]; do
  round=$((round + 1))
  for f in /tmp/build/src/*.c; do
    o=/tmp/build/obj/\${f##*/}
    sh -c "sed s/int/long/ $f | tr a-z A-Z > \${o%.c}.o && wc -c \${o%.c}.o > /dev/null"
  done
  find /tmp/build -type f | wc -l > /dev/null
  ls -lR /tmp/build > /dev/null
  cat /tmp/build/obj/*.o > /tmp/build/linked
done
rm -rf /tmp/build
`;

/** Loopback networking: short request/response connections, then a bulk transfer. */
const NET = `ifconfig lo 127.0.0.1 up
i=0
while [ $i -lt 4 ]; do
  nc -l -p 7777 > /dev/null &
  listener=$!
  usleep 100000
  echo "GET /$i HTTP/1.0" | nc -w 1 127.0.0.1 7777
  wait $listener || true
  i=$((i + 1))
done
nc -l -p 7778 > /dev/null &
listener=$!
usleep 100000
dd if=/dev/zero bs=4096 count=512 2>/dev/null | nc -w 1 127.0.0.1 7778
wait $listener || true
`;

/** Memory in bulk: a process touching 128 MiB, a tmpfs file written and removed. */
const MEMORY = `dd if=/dev/zero of=/dev/null bs=128M count=1 2>/dev/null
dd if=/dev/zero of=/tmp/fill bs=1M count=32 2>/dev/null
rm /tmp/fill
`;

const IDLE = `sleep 1
`;

/** Services started and stopped as a service manager does: a cgroup each, with the memory controller. */
const SERVICES = `mkdir -p /sys/fs/cgroup
mount -t cgroup2 none /sys/fs/cgroup
if grep -qw memory /sys/fs/cgroup/cgroup.controllers; then echo +memory > /sys/fs/cgroup/cgroup.subtree_control; fi
j=0
while [ $j -lt 3 ]; do
  mkdir /sys/fs/cgroup/kseries$j
  echo $$ > /sys/fs/cgroup/kseries$j/cgroup.procs
  /bin/true
  echo $$ > /sys/fs/cgroup/cgroup.procs
  rmdir /sys/fs/cgroup/kseries$j
  j=$((j + 1))
done
`;

const PHASES: Phase[] = [
  { name: 'build', what: 'a build: 48 short jobs, each a shell running sed, tr and wc over a source file into an object on tmpfs, and a dependency walk (find, ls -lR)', script: BUILD },
  { name: 'net', what: 'loopback TCP: 4 short request/response connections (nc), then 2 MiB in one connection', script: NET },
  { name: 'memory', what: 'memory in bulk: a process touching 128 MiB (dd with a block that large), 32 MiB written to tmpfs and removed: page allocation, faults and freeing', script: MEMORY },
  { name: 'idle', what: 'one idle second: timers, idle entry', script: IDLE },
  { name: 'services', what: 'setup/teardown: 3 services started and stopped as a service manager does (a cgroup each, with the memory controller, a process moved in and out)', setup: true, script: SERVICES },
];

export const WORKLOADS: Record<string, Workload> = {
  boot: { name: 'boot', what: 'nothing after boot: counts what runs until init starts', phases: [] },
  default: {
    name: 'default',
    what: `what a small system does, in phases: ${PHASES.map((p) => p.name).join(', ')} (the last one a setup/teardown phase)`,
    phases: PHASES,
  },
};

export function workloadNames(): string[] {
  return Object.keys(WORKLOADS);
}

/** The workload with phases of its own after its phases (a boot check's reads and writes of the switched interfaces). */
export function withPhases(w: Workload, more: Phase[]): Workload {
  return { ...w, phases: [...w.phases, ...more] };
}

/** What decides a workload's result: every phase's name, kind and script. */
export function workloadDigestText(w: Workload): string {
  return w.phases.map((p) => `${p.name}${p.setup ? ' (setup)' : ''}\n${p.script}`).join('\n');
}
