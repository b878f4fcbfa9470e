// A build folder copied for another symbol set keeps its prepared tree (host programs, objtool) and leaves the kernel's
// objects behind; objtool's command files, which name its objects by absolute path, name the copy, so Kbuild does not
// compile objtool again in it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from 'vitest';
import { copyBuild } from '../../src/build/builder.js';

test('a copy keeps objtool built: its command files name the copy', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-copy-'));
  const from = path.join(root, 'defconfig');
  const to = path.join(root, 'defconfig+0123456789');
  const write = (rel: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(from, rel)), { recursive: true });
    fs.writeFileSync(path.join(from, rel), text);
  };
  write('.config', 'CONFIG_X=y\n');
  write('kernel/fork.o', 'object');
  write('kernel/.fork.o.cmd', `savedcmd_kernel/fork.o := gcc -o kernel/fork.o\n`);
  write('tools/objtool/check.o', 'host object');
  write('tools/objtool/.check.o.cmd', `cmd_${from}/tools/objtool/check.o := gcc -o ${from}/tools/objtool/check.o\n${from}/tools/objtool/check.o: check.c\n`);
  copyBuild(from, to, { objects: false });
  expect(fs.existsSync(path.join(to, 'kernel/fork.o'))).toBe(false);
  expect(fs.existsSync(path.join(to, 'kernel/.fork.o.cmd'))).toBe(false);
  expect(fs.readFileSync(path.join(to, 'tools/objtool/check.o'), 'utf8')).toBe('host object');
  expect(fs.readFileSync(path.join(to, 'tools/objtool/.check.o.cmd'), 'utf8')).toBe(`cmd_${to}/tools/objtool/check.o := gcc -o ${to}/tools/objtool/check.o\n${to}/tools/objtool/check.o: check.c\n`);
  // The folder copied from is left as it was.
  expect(fs.readFileSync(path.join(from, 'tools/objtool/.check.o.cmd'), 'utf8')).toContain(`${from}/tools`);
  const twin = path.join(root, 'twin');
  copyBuild(from, twin, { objects: true });
  expect(fs.existsSync(path.join(twin, 'kernel/fork.o'))).toBe(true);
  expect(fs.readFileSync(path.join(twin, 'tools/objtool/.check.o.cmd'), 'utf8')).not.toContain(`${from}/`);
});
