// generate static-keys --no-build on the real 6.12 tree: which flags --only and --toggles take and refuse, and the
// messages without figures. Generating with the measurement and the draft's proof is test/kernel/static-keys.test.ts.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { beforeAll, expect, test } from 'vitest';
import type { KernelTree } from '../../src/tree/tree.js';
import { amTree, cli, git, userTree } from '../helpers/tree.js';

let tree: KernelTree;
const run = (...args: string[]) => cli(['--tree', tree.root, ...args]);

beforeAll(async () => {
  tree = await userTree();
});

interface Generated {
  series: string;
  version: number;
  base: string;
  commits: { sha: string; subject: string }[];
  unproven: string[];
}

test('--only takes exactly the named flags, and refuses a flag the scan does not mark auto, with its reason', async () => {
  const manual = await run('generate', 'static-keys', '--only', 'cgroup_memory_nokmem', '--no-build');
  expect(manual.code).toBe(2);
  expect(manual.err).toMatch(/^kseries: --only cgroup_memory_nokmem: the scan says reject: .*read as a value at line 124/);
  const unknown = await run('generate', 'static-keys', '--path', 'mm', '--only', 'no_such_flag', '--no-build');
  expect(unknown.code).toBe(2);
  expect(unknown.err).toMatch(/^kseries: --only no_such_flag: no flag candidate of that name under mm/);
  const cold = await run('generate', 'static-keys', '--path', 'mm', '--no-build');
  expect(cold.code).toBe(2);
  expect(cold.err).toMatch(/^kseries: static-keys: nothing was measured, so no flag under mm is known to be on a hot path/);
  const wrong = await run('generate', 'static-key', '--path', 'mm');
  expect(wrong.code).toBe(2);
  expect(wrong.err).toMatch(/^kseries: recipe static-key takes no --path/);

  const one = await run('generate', 'static-keys', '--path', 'mm', '--only', 'mm/memcontrol.c:cgroup_memory_nobpf', '--no-build', '--json');
  expect(one.code, one.err).toBe(0);
  const [r] = (JSON.parse(one.out) as { series: Generated[] }).series;
  expect(r!.commits.map((c) => c.subject)).toEqual(['memcg: Convert cgroup_memory_nobpf to a static key']);
  expect(git(tree.root, 'log', '-1', '--format=%B', r!.commits[0]!.sha)).not.toContain('in all:');

  // A runtime toggle: refused without --toggles, converted with a setter with it.
  const toggle = 'fs/namei.c:sysctl_protected_symlinks';
  const refused = await run('generate', 'static-keys', '--path', 'fs', '--only', toggle, '--no-build');
  expect(refused.code).toBe(2);
  expect(refused.err).toMatch(/^kseries: --only fs\/namei\.c:sysctl_protected_symlinks: the scan says manual: .*\nhint: it is a runtime toggle: add --toggles/);
  const t = await run('generate', 'static-keys', '--path', 'fs', '--only', toggle, '--toggles', '--no-build', '--json');
  expect(t.code, t.err).toBe(0);
  const [tr] = (JSON.parse(t.out) as { series: Generated[] }).series;
  expect(tr!.series).toBe('static-keys-fs-vfs');
  expect(tr!.commits.map((c) => c.subject)).toEqual(['fs: namei: Convert sysctl_protected_symlinks to a static key']);
  const tdiff = git(tree.root, 'show', '--format=%B', tr!.commits[0]!.sha);
  expect(tdiff.replace(/\n(?![ +-])/g, ' ')).toContain('sysctl_protected_symlinks in fs/namei.c is an int flag written through the sysctl fs.protected_symlinks');
  expect(tdiff).toContain('+\t\t.proc_handler\t= sysctl_protected_symlinks_sysctl,');
  expect(tdiff).toContain('+\tif (!static_branch_likely(&sysctl_protected_symlinks_key))');

  // A manual flag whose only need is static_key_enabled() at its value reads: an RFC series of its own.
  const value = await run('generate', 'static-keys', '--path', 'drivers/tty', '--only', 'drivers/tty/sysrq.c:sysrq_always_enabled', '--no-build', '--json');
  expect(value.code, value.err).toBe(0);
  const [vr] = (JSON.parse(value.out) as { series: Generated[] }).series;
  expect(vr!.series).toMatch(/-rfc$/);
  const vdiff = git(tree.root, 'show', '--format=%B', vr!.commits[0]!.sha);
  expect(vdiff).toContain('+\treturn sysrq_enabled || static_key_enabled(&sysrq_always_enabled_key);');
  expect(vdiff).toContain('+\tif (static_branch_unlikely(&sysrq_always_enabled_key))');
  expect(vdiff.replace(/\n(?![ +-])/g, ' ')).toContain('An RFC: the scan could not clear sysrq_always_enabled on its own (read as a value at line 64:');
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-rfc-'));
  const emitted = await run('emit', vr!.series, '--out', out);
  expect(emitted.code, emitted.err).toBe(0);
  const [mail] = fs.readdirSync(path.join(out, vr!.series, 'v1')).filter((f) => f.endsWith('.patch'));
  expect(fs.readFileSync(path.join(out, vr!.series, 'v1', mail!), 'utf8')).toMatch(/^Subject: \[RFC PATCH\] tty: sysrq: Convert sysrq_always_enabled to a static key$/m);
  fs.rmSync(out, { recursive: true, force: true });
});

test('a shared manual flag named with --only is carried as an RFC: definition, header and the other files in one patch, each writer asked about', async () => {
  // Without --only the scan's manual verdict stands; named, kseries carries what it can and asks the rest.
  const r = await run('generate', 'static-keys', '--path', 'mm', '--only', 'mm/page_alloc.c:page_group_by_mobility_disabled', '--no-build', '--json');
  expect(r.code, r.err).toBe(0);
  const [s] = (JSON.parse(r.out) as { series: Generated[] }).series;
  expect(s!.series).toBe('static-keys-mm-rfc');
  const sha = s!.commits[0]!.sha;
  expect(git(tree.root, 'show', '--format=', '--name-only', sha).trim().split('\n')).toEqual(['include/linux/gfp.h', 'include/linux/mmzone.h', 'mm/page_alloc.c']);
  const show = git(tree.root, 'show', '--format=%B', sha);
  expect(show).toContain('-int page_group_by_mobility_disabled __read_mostly;\n+DEFINE_STATIC_KEY_FALSE(page_group_by_mobility_disabled_key);');
  expect(show).toContain('-extern int page_group_by_mobility_disabled;\n+DECLARE_STATIC_KEY_FALSE(page_group_by_mobility_disabled_key);');
  expect(show).toContain('+\tif (static_branch_unlikely(&page_group_by_mobility_disabled_key))\n \t\treturn MIGRATE_UNMOVABLE;');
  expect(show).toContain('+\t\tstatic_branch_enable(&page_group_by_mobility_disabled_key);');
  expect(show).toContain('+\t\tstatic_key_enabled(&page_group_by_mobility_disabled_key) ? "off" : "on",');
  const body = show.slice(0, show.indexOf('\ndiff --git')).replace(/\n(?![ +-])/g, ' ');
  expect(body).toContain('written by build_all_zonelists() (called where kseries could not place every caller)');
  expect(body).toContain('include/linux/mmzone.h declares it where it declared the flag; the test in gfp_migratetype() (include/linux/gfp.h) becomes a jump label too.');
  expect(body).toMatch(/- a writer context kseries can establish: are static_branch_disable\(\)\s+and static_branch_enable\(\) right there\? written in\s+build_all_zonelists\(\) <- online_pages\(\)/);
  // The mail is checkpatch-clean, goes to mm's list and `git am` makes the commit's tree from it.
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-rfc-'));
  const emitted = await run('emit', s!.series, '--out', out, ...(s!.version > 1 ? ['--notes', 'carried again'] : []));
  expect(emitted.code, emitted.err).toBe(0);
  expect(emitted.out).toMatch(/Cc: .*linux-mm@kvack\.org/);
  const dir = path.join(out, s!.series, `v${s!.version}`);
  const [mail] = fs.readdirSync(dir).filter((f) => f.endsWith('.patch'));
  const cp = spawnSync('perl', ['scripts/checkpatch.pl', '--no-signoff', path.join(dir, mail!)], { cwd: tree.root, encoding: 'utf8' });
  // From v2 on the mail carries git's range-diff, whose indented Signed-off-by checkpatch takes for the patch's own.
  expect(cp.stdout).toMatch(s!.version === 1 ? /total: 0 errors, 0 warnings/ : /total: 0 errors/);
  expect(amTree(tree.root, s!.base, [path.join(dir, mail!)])).toBe(git(tree.root, 'rev-parse', `${sha}^{tree}`).trim());
  fs.rmSync(out, { recursive: true, force: true });
});
