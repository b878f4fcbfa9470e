// Which Debian package provides each program kseries runs.
const PACKAGES: Record<string, string> = {
  git: 'git',
  'git-send-email': 'git-email',
  perl: 'perl',
  make: 'make',
  gcc: 'gcc',
  objdump: 'binutils',
  readelf: 'binutils',
  flex: 'flex',
  bison: 'bison',
  bc: 'bc',
  tar: 'tar',
  xz: 'xz-utils',
  python3: 'python3',
  'qemu-system-x86_64': 'qemu-system-x86',
  spatch: 'coccinelle',
  // spatch compiles a script's `@script:ocaml@` rules with it (Debian's coccinelle does not depend on it).
  ocamlopt: 'ocaml-nox',
  bwrap: 'bubblewrap',
  busybox: 'busybox-static',
};

export function packageFor(program: string): string {
  const base = program.split('/').pop() ?? program;
  return PACKAGES[base] ?? base;
}
