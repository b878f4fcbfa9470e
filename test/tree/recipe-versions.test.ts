// A recipe of our own (test/fixtures/recipes/reboot-sysctl-doc) whose edit names a function, not a line: it fits
// 6.12, where kernel_reboot_sysctls_init() is an int initcall, and 6.1, where it is a void function called at boot —
// a line anchor on the signature fits only one of them.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from 'vitest';
import { provisionTree } from '../../src/tree/provision.js';
import { cli, FIXTURE_RECIPES, git, userTree } from '../helpers/tree.js';

const TARBALL_61 = '/usr/src/linux-source-6.1.tar.xz';

async function generated(root: string, suffix: string): Promise<string> {
  const r = await cli(['--tree', root, '--recipes', FIXTURE_RECIPES, 'generate', 'reboot-sysctl-doc', '--set', `suffix=${suffix}`, '--no-build', '--json']);
  expect(r.code, r.err).toBe(0);
  const s = JSON.parse(r.out) as { commits: { sha: string }[] };
  return git(root, 'show', '--format=%s%n%n%b', s.commits[0]!.sha);
}

test('an edit anchored on a function by name fits 6.12 and 6.1', async () => {
  const tree = await userTree();
  const on612 = await generated(tree.root, '-612');
  expect(on612).toMatch(/^reboot: Say what kernel_reboot_sysctls_init\(\) registers\n/);
  expect(on612).toContain('+/* Registers kern_reboot_table, the reboot sysctls, under /proc/sys/kernel. */\n static int __init kernel_reboot_sysctls_init(void)');
  if (!fs.existsSync(TARBALL_61)) return;
  const p = await provisionTree({ cwd: fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-61-')), env: { ...process.env, KSERIES_LINUX_TARBALL: TARBALL_61 }, log: () => {} });
  const on61 = await generated(p.tree.root, '-61');
  expect(on61).toContain('+/* Registers kern_reboot_table, the reboot sysctls, under /proc/sys/kernel. */\n static void __init kernel_reboot_sysctls_init(void)');
});

test('a cocci edit whose script ships in the recipe matches kernel/stackleak.c of 6.12 and 6.1', async () => {
  const cocci = async (root: string, suffix: string) => {
    const r = await cli(['--tree', root, '--recipes', FIXTURE_RECIPES, 'generate', 'stackleak-state-words', '--set', `suffix=${suffix}`, '--no-build', '--json']);
    expect(r.code, r.err).toBe(0);
    return git(root, 'show', '--format=%s', (JSON.parse(r.out) as { commits: { sha: string }[] }).commits[0]!.sha);
  };
  const change = /^-\t+state \? "enabled" : "disabled"\);\n\+\t+str_enabled_disabled\(state\)\);$/m;
  const tree = await userTree();
  expect(await cocci(tree.root, '-612')).toMatch(change);
  if (!fs.existsSync(TARBALL_61)) return;
  const p = await provisionTree({ cwd: fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-61-')), env: { ...process.env, KSERIES_LINUX_TARBALL: TARBALL_61 }, log: () => {} });
  expect(await cocci(p.tree.root, '-61')).toMatch(change);
});
