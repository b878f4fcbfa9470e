// Issue 44, item 2 on a real archive: the review bot over a scratch mirror of linux-wpan (../shared/inbox is only
// read): the series since a date reviewed once each in the order they came, a cycle cut short (--limit, as a kill
// leaves it) finished by the next without reviewing anything twice, a cycle with no new mail, then one more message;
// and a bot killed (SIGKILL) in the middle of its reviews, restarted: the rest reviewed, nothing twice.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { Watched } from '../../src/review/watch.js';
import { REPO_ROOT } from '../helpers/cli.js';
import { cli, userTree } from '../helpers/tree.js';
import type { KernelTree } from '../../src/tree/tree.js';

const WPAN = path.join(REPO_ROOT, '../shared/inbox/linux-wpan.git');
let tree: KernelTree;
let dir: string;
let archive: string;
let tip: string;
const gitIn = (...args: string[]) => execFileSync('git', ['--git-dir', archive, ...args], { encoding: 'utf8' }).trim();
const cycle = async (...extra: string[]) => {
  const r = await cli(['--tree', tree.root, 'watch', '--inbox', archive, '--once', '--no-build', '--out', path.join(dir, 'out'), '--json', ...extra]);
  expect(r.code, r.err).toBe(0);
  return JSON.parse(r.out) as { read: number; series: Watched[]; build: string };
};

beforeAll(async () => {
  tree = await userTree();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-watch-'));
  archive = path.join(dir, 'linux-wpan.git');
  execFileSync('git', ['clone', '-q', '--mirror', WPAN, archive]);
  // The newest message not yet arrived: it comes in the last cycle.
  tip = gitIn('rev-parse', 'HEAD');
  execFileSync('git', ['--git-dir', archive, 'update-ref', 'refs/heads/master', `${tip}~1`]);
  // Its remote is the read-only archive: each cycle fetches from it, and the ref set back above would come back.
  execFileSync('git', ['--git-dir', archive, 'remote', 'remove', 'origin']);
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

test('each complete series since the date once, in order; a cut-short cycle finished by the next; nothing twice', async () => {
  const first = await cycle('--since', '2026-06-25', '--limit', '2');
  expect(first.read).toBe(4076);
  expect(first.build).toBe('none');
  expect(first.series).toHaveLength(2);
  const second = await cycle();
  expect(second.read).toBe(0);
  const keys = [...first.series, ...second.series].map((s) => s.key);
  expect(new Set(keys).size).toBe(keys.length);
  const subjects = [...first.series, ...second.series].map((s) => s.subject);
  // In the order they came; a v2 sent into its v1's thread is that series' newest version.
  expect(subjects).toEqual(expect.arrayContaining(['ieee802154: hwsim: free PIB after unregistering hardware', 'mac802154: hold an interface reference across the scan worker']));
  expect(subjects.indexOf('ieee802154: hwsim: free PIB after unregistering hardware')).toBeLessThan(subjects.indexOf('mac802154: hold an interface reference across the scan worker'));
  // Each with its report, b4's CI JSON and a draft reply where it went.
  for (const s of [...first.series, ...second.series].filter((x) => x.verdict !== 'not applicable')) {
    expect(fs.readdirSync(path.resolve(REPO_ROOT, s.detail))).toEqual(expect.arrayContaining(['report.json', 'b4.json']));
  }
  const idle = await cycle();
  expect([idle.read, idle.series.length]).toEqual([0, 0]);
  // One more message (a reply): read, and no series to review.
  execFileSync('git', ['--git-dir', archive, 'update-ref', 'refs/heads/master', tip]);
  const more = await cycle();
  expect([more.read, more.series.length]).toEqual([1, 0]);
}, 600_000);

test('killed mid-run (SIGKILL) and restarted: the rest reviewed, nothing twice', async () => {
  const state = path.join(dir, 'killed-state');
  const args = ['--tree', tree.root, 'watch', '--inbox', archive, '--once', '--no-build', '--since', '2026-05-01', '--state', state, '--out', path.join(dir, 'out')];
  const reviewed = () => {
    try {
      return Object.keys((JSON.parse(fs.readFileSync(path.join(state, 'watch.json'), 'utf8')) as { reviewed: Record<string, unknown> }).reviewed);
    } catch {
      return [];
    }
  };
  const child = spawn(process.execPath, [path.join(REPO_ROOT, 'bin', 'kseries.js'), ...args], { stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  // Killed once it has reviewed two series, in the middle of the next.
  while (child.exitCode === null && reviewed().length < 2) await new Promise((r) => setTimeout(r, 50));
  const killed = child.kill('SIGKILL');
  await exited;
  expect(killed, 'the bot finished before it could be killed').toBe(true);
  const before = reviewed();
  expect(before.length).toBeGreaterThanOrEqual(2);
  // The restart reads no mail again (the index was kept before the reviews) and reviews only what is left.
  const rest = await cycle('--state', state);
  expect(rest.read).toBe(0);
  expect(rest.series.length).toBeGreaterThan(0);
  expect(rest.series.filter((s) => before.includes(s.key))).toEqual([]);
  expect(new Set([...before, ...rest.series.map((s) => s.key)]).size).toBe(reviewed().length);
  // All of them now: a cycle more has nothing to do.
  expect((await cycle('--state', state)).series).toEqual([]);
}, 600_000);
