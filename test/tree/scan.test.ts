// kseries scan static-keys on the real 6.12 tree.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from 'vitest';
import type { FlagCandidate } from '../../src/recipes/static-key/scan.js';
import { cli, git, REPO_ROOT, userTree } from '../helpers/tree.js';

test('scan static-keys --path mm finds the memcontrol flags with the verdicts read from the code', async () => {
  const tree = await userTree();
  const r = await cli(['--tree', tree.root, 'scan', 'static-keys', '--path', 'mm', '--json']);
  expect(r.err).toBe('');
  expect(r.code).toBe(0);
  const { candidates } = JSON.parse(r.out) as { candidates: FlagCandidate[] };
  expect(candidates.length).toBeGreaterThan(50);
  for (const c of candidates) {
    expect(c.file.startsWith('mm/')).toBe(true);
    // DESIGN's fields, and the optional ones kseries adds (a shared flag's header, an early_param()'s architectures).
    const keys = Object.keys(c);
    expect(keys).toEqual(expect.arrayContaining(['file', 'line', 'needs', 'reads', 'reasons', 'type', 'variable', 'verdict', 'writes']));
    expect(keys.filter((k) => !['file', 'line', 'needs', 'reads', 'reasons', 'type', 'variable', 'verdict', 'writes', 'shared', 'earlyParamArches'].includes(k))).toEqual([]);
    expect(c.reasons.length).toBeGreaterThan(0);
  }
  const of = (v: string) => candidates.find((c) => c.file === 'mm/memcontrol.c' && c.variable === v)!;
  // Where the handler is registered moves between 6.12 stable releases; the scan must name the line it is on.
  const setupLine = fs.readFileSync(path.join(tree.root, 'mm/memcontrol.c'), 'utf8').split('\n').findIndex((l) => l.startsWith('__setup("cgroup.memory=", cgroup_memory);')) + 1;
  expect(setupLine).toBeGreaterThan(0);
  expect(of('cgroup_memory_nosocket')).toMatchObject({ verdict: 'auto', line: 86, type: 'bool', writes: [{ function: 'cgroup_memory', context: 'setup', via: `cgroup_memory() (__setup at mm/memcontrol.c:${setupLine}): __setup() handler` }] });
  expect(of('cgroup_memory_nobpf')).toMatchObject({ verdict: 'auto', reads: [{ context: 'if (!cgroup_memory_nobpf)' }, { context: 'if (!cgroup_memory_nobpf)' }] });
  expect(of('cgroup_memory_nokmem').verdict).toBe('reject');
  expect(of('cgroup_memory_nokmem').reasons).toEqual(['never tested in a branch condition', 'read as a value at line 124: `return cgroup_memory_nokmem;`']);
});

test('a path outside the tree is refused', async () => {
  const tree = await userTree();
  const r = await cli(['--tree', tree.root, 'scan', 'static-keys', '--path', '../etc']);
  expect(r.code).toBe(2);
  expect(r.err).toMatch(/^kseries: --path: "\.\.\/etc" is not a path inside the kernel tree\nhint: /);
});

test('the built CLI classifies in worker threads and says the same; --rev scans a commit', async () => {
  const tree = await userTree();
  const inProcess = await cli(['--tree', tree.root, 'scan', 'static-keys', '--path', 'mm', '--path', 'kernel/trace', '--json']);
  // An empty cache: the workers classify every file.
  const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-scan-cache-'));
  const built = execFileSync(process.execPath, [path.join(REPO_ROOT, 'bin', 'kseries.js'), '--tree', tree.root, 'scan', 'static-keys', '--path', 'mm', '--path', 'kernel/trace', '--json'], {
    encoding: 'utf8',
    maxBuffer: 64 << 20,
    env: { ...process.env, KSERIES_CACHE: cache },
  });
  fs.rmSync(cache, { recursive: true, force: true });
  expect(built).toBe(`${inProcess.out}\n`);
  const head = git(tree.root, 'rev-parse', 'HEAD').trim();
  // drivers/acpi: DMI quirk flags, whose writers dmi_check_system() (drivers/firmware/dmi_scan.c) calls: at a commit
  // the definer's text is read from the commit.
  const atRev = await cli(['--tree', tree.root, 'scan', 'static-keys', '--path', 'mm', '--path', 'drivers/acpi', '--rev', head, '--json']);
  const here = await cli(['--tree', tree.root, 'scan', 'static-keys', '--path', 'mm', '--path', 'drivers/acpi', '--json']);
  expect(atRev.out).toBe(here.out);
  expect(JSON.parse(here.out).candidates.find((c: { variable: string }) => c.variable === 'ac_only').verdict).toBe('auto');
  const bad = await cli(['--tree', tree.root, 'scan', 'static-keys', '--rev', 'no-such-rev']);
  expect(bad.code).toBe(2);
  expect(bad.err).toMatch(/^kseries: --rev no-such-rev is not a commit/);
});

test('the caches follow the text read: an edit, a staged edit undone in the working tree, and back', async () => {
  const tree = await userTree();
  const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-scan-cache-'));
  const file = path.join(tree.root, 'mm/memcontrol.c');
  const original = fs.readFileSync(file, 'utf8');
  const scan = async (env = { ...process.env, KSERIES_CACHE: cache }) => {
    const r = await cli(['--tree', tree.root, 'scan', 'static-keys', '--path', 'mm', '--json'], { env });
    expect(r.err).toBe('');
    return { out: r.out, line: (JSON.parse(r.out) as { candidates: FlagCandidate[] }).candidates.find((c) => c.variable === 'cgroup_memory_nosocket')!.line };
  };
  const factsFile = () => path.join(cache, 'scan', fs.readdirSync(path.join(cache, 'scan')).find((f) => f.startsWith('facts-'))!);
  const kept = () => (JSON.parse(fs.readFileSync(factsFile(), 'utf8')) as Record<string, [string, unknown[]]>)['mm/memcontrol.c']![0];
  const headBlob = git(tree.root, 'rev-parse', 'HEAD:mm/memcontrol.c').trim();
  try {
    const first = await scan();
    expect(first.line).toBe(86);
    expect(kept()).toBe(headBlob);
    const written = fs.statSync(factsFile()).mtimeMs;

    fs.writeFileSync(file, `\n${original}`);
    const edited = await scan();
    expect(edited.line).toBe(87);
    // The symbol index of the edited tree was brought up to date from the first one: it says what a new one says.
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-scan-cache-'));
    expect((await scan({ ...process.env, KSERIES_CACHE: empty })).out).toBe(edited.out);
    fs.rmSync(empty, { recursive: true, force: true });
    git(tree.root, 'add', 'mm/memcontrol.c');
    fs.writeFileSync(file, original);
    expect((await scan()).line).toBe(86);
    // The edited texts were read, not kept: the cache still holds HEAD's blob, unwritten since the first scan.
    expect(kept()).toBe(headBlob);

    git(tree.root, 'reset', '-q', '--', 'mm/memcontrol.c');
    expect((await scan()).out).toBe(first.out);
    expect(fs.statSync(factsFile()).mtimeMs).toBe(written);
  } finally {
    fs.writeFileSync(file, original);
    git(tree.root, 'reset', '-q', '--', 'mm/memcontrol.c');
    fs.rmSync(cache, { recursive: true, force: true });
  }
});
