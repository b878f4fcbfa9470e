// --distcc for real: a distccd this test starts on 127.0.0.1 compiles the object, as its log shows.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { CheckReport } from '../../src/check/report.js';
import { onPath } from '../../src/tools/which.js';
import type { KernelTree } from '../../src/tree/tree.js';
import { cli, FIXTURE_RECIPES, userTree } from '../helpers/tree.js';

let tree: KernelTree;
let daemon: ChildProcess;
let port: number;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-distcc-'));
const log = path.join(dir, 'distccd.log');

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(p));
    });
  });
}

async function listening(p: number): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const ok = await new Promise<boolean>((resolve) => {
      const c = net.connect(p, '127.0.0.1', () => (c.end(), resolve(true))).on('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`distccd did not listen on 127.0.0.1:${p}; see ${log}`);
}

beforeAll(async () => {
  tree = await userTree();
  fs.chmodSync(dir, 0o777);
  port = await freePort();
  const args = ['--no-detach', '--allow', '127.0.0.1', '--listen', '127.0.0.1', '--port', String(port), '--log-file', log, '--log-level', 'info', '--jobs', '2'];
  if (process.getuid?.() === 0) args.push('--user', 'nobody');
  daemon = spawn('distccd', args, { stdio: 'ignore' });
  await listening(port);
});

afterAll(() => {
  daemon?.kill();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('check --distcc compiles the touched object on the distcc host', async () => {
  const run = (...a: string[]) => cli(['--tree', tree.root, '--recipes', FIXTURE_RECIPES, ...a], {
    // With ccache installed, RECACHE makes it compile (through distcc) instead of answering from its cache.
    env: { ...process.env, DISTCC_HOSTS: `127.0.0.1:${port}/2`, DISTCC_FALLBACK: '0', CCACHE_RECACHE: '1' },
  });
  expect((await run('generate', 'new-warning', '--set', 'suffix=-distcc')).code).toBe(0);
  // --fresh: a check of the same trees through the same compiler path may be kept from an earlier run.
  const r = await run('check', 'new-warning-distcc', '--distcc', '--fresh', '--json');
  expect(r.err).toBe('');
  const report = JSON.parse(r.out) as CheckReport;
  // The report names the path that ran: with ccache installed, ccache hands what it has not cached to distcc.
  // sparse, where installed, runs on the x86-64 gcc build (C=1) and finds the same missing declaration in its words.
  const sparse = onPath('sparse', process.env);
  expect(report.compiler).toBe(`${onPath('ccache', process.env) ? 'ccache + distcc gcc' : 'distcc gcc'}${sparse ? ' + sparse' : ''}`);
  expect(report.patches[0]!.build.status).toBe('ok');
  expect(report.patches[0]!.build.newWarnings).toHaveLength(sparse ? 2 : 1);
  const jobs = fs.readFileSync(log, 'utf8').split('\n').filter((l) => /COMPILE_OK .*bcd\.c/.test(l));
  expect(jobs.length).toBeGreaterThan(0);
});
