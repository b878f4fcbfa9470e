// The named workloads a measured or checked kernel runs after boot: busybox shell scripts, each documented in the
// README with what it exercises.

export interface Workload {
  name: string;
  /** One line for reports and --help. */
  what: string;
  /** A busybox sh script run by /init; its exit status is reported. */
  script: string;
}

const DEFAULT = `set -e
ifconfig lo 127.0.0.1 up
mkdir -p /sys/fs/cgroup
mount -t cgroup2 none /sys/fs/cgroup
# the memory controller in every new cgroup, as systemd enables it, where the kernel has one
if grep -qw memory /sys/fs/cgroup/cgroup.controllers; then echo +memory > /sys/fs/cgroup/cgroup.subtree_control; fi
round=0
while [ $round -lt 3 ]; do
  round=$((round + 1))
  # fork and exec
  i=0
  while [ $i -lt 30 ]; do /bin/true; i=$((i + 1)); done
  # file I/O on tmpfs
  dd if=/dev/zero of=/tmp/a bs=4096 count=256 2>/dev/null
  cp /tmp/a /tmp/b
  cat /tmp/a /tmp/b > /dev/null
  rm /tmp/a /tmp/b
  # pipes
  dd if=/dev/zero bs=4096 count=512 2>/dev/null | cat > /dev/null
  # loopback TCP
  nc -l -p 7777 > /dev/null &
  listener=$!
  usleep 200000
  dd if=/dev/zero bs=4096 count=256 2>/dev/null | nc -w 2 127.0.0.1 7777
  wait $listener || true
  # cgroup create and remove
  j=0
  while [ $j -lt 5 ]; do
    mkdir /sys/fs/cgroup/kseries$j
    echo $$ > /sys/fs/cgroup/kseries$j/cgroup.procs
    echo $$ > /sys/fs/cgroup/cgroup.procs
    rmdir /sys/fs/cgroup/kseries$j
    j=$((j + 1))
  done
done
# a timed idle second
sleep 1
`;

export const WORKLOADS: Record<string, Workload> = {
  boot: { name: 'boot', what: 'nothing after boot: counts what runs until init starts', script: 'true\n' },
  default: {
    name: 'default',
    what: 'three rounds of: 30 fork+exec, 2 MiB of file I/O on tmpfs, 2 MiB through a pipe, 1 MiB over loopback TCP, 5 cgroups (with the memory controller) created, joined and removed; then one idle second',
    script: DEFAULT,
  },
};

export function workloadNames(): string[] {
  return Object.keys(WORKLOADS);
}
