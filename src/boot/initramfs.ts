// The initramfs of a boot: Debian's static busybox, kseries' /init and the files it reads, packed by the tree's own
// usr/gen_init_cpio from a list (no root, no device nodes on the host).
import fs from 'node:fs';
import path from 'node:path';
import { MissingToolError } from '../errors.js';
import { genInitCpio } from '../tools/qemu.js';

/** Where Debian's busybox-static puts its binary; `$KSERIES_BUSYBOX` names another static busybox. */
export function busyboxPath(env: NodeJS.ProcessEnv = process.env): string {
  return env.KSERIES_BUSYBOX || '/bin/busybox';
}

/**
 * Pack `/init` (a busybox shell script) and `files` (name → text, put under /kseries/, one folder deep at most) with
 * busybox into `out`.
 * The busybox must be static: the initramfs has no C library.
 */
export async function makeInitramfs(buildDir: string, out: string, init: string, files: Record<string, string>, env?: NodeJS.ProcessEnv): Promise<string> {
  const busybox = busyboxPath(env);
  if (!isStaticElf(busybox)) {
    throw new MissingToolError(`${busybox} is missing or not a static binary: the boot initramfs needs a static busybox`, 'apt-get install busybox-static');
  }
  const gen = path.join(buildDir, 'usr/gen_init_cpio');
  const dir = `${out}.d`;
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const list = [
    'dir /dev 0755 0 0',
    'nod /dev/console 0600 0 0 c 5 1',
    'nod /dev/null 0666 0 0 c 1 3',
    ...['/bin', '/sbin', '/proc', '/sys', '/tmp', '/kseries'].map((d) => `dir ${d} 0755 0 0`),
    `file /bin/busybox ${busybox} 0755 0 0`,
    `file /init ${write(dir, 'init', init)} 0755 0 0`,
    // A name with a folder (phases/01-build) gets that folder under /kseries.
    ...[...new Set(Object.keys(files).filter((n) => n.includes('/')).map((n) => path.posix.dirname(n)))].map((d) => `dir /kseries/${d} 0755 0 0`),
    ...Object.entries(files).map(([name, text]) => `file /kseries/${name} ${write(dir, name.replace(/\//g, '--'), text)} 0644 0 0`),
  ];
  fs.writeFileSync(out, await genInitCpio(gen, write(dir, 'list', `${list.join('\n')}\n`)));
  return out;
}

function write(dir: string, name: string, text: string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return file;
}

/** An ELF executable without a PT_INTERP program header (no dynamic loader). */
export function isStaticElf(file: string): boolean {
  let image: Buffer;
  try {
    image = fs.readFileSync(file);
  } catch {
    return false;
  }
  if (image.length < 64 || image.readUInt32BE(0) !== 0x7f454c46 || image[4] !== 2) return false;
  const phoff = Number(image.readBigUInt64LE(0x20));
  const size = image.readUInt16LE(0x36);
  const count = image.readUInt16LE(0x38);
  for (let i = 0; i < count; i++) if (image.readUInt32LE(phoff + i * size) === 3) return false;
  return true;
}
