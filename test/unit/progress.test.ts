// Progress of long steps: what a build's sample counts, how Kbuild's lists give the total, how far a guest got, and
// how a command shows it on a terminal and off one.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { guestPhase } from '../../src/boot/guest.js';
import { objectsToBuild } from '../../src/build/kbuild.js';
import { progressReporter, type Io } from '../../src/commands/io.js';
import { buildSample, formatProgress, withProgress, type Progress } from '../../src/progress.js';
import { withoutProgress } from '../helpers/cli.js';

const p = (x: Partial<Progress>): Progress => ({ what: 'building the minimal kernel', seconds: 0, ended: false, ...x });

test('a line says what runs, how far it got of about how much, and for how long', () => {
  expect(formatProgress(p({ done: 412, total: 1157, seconds: 192 }))).toBe('building the minimal kernel: 412 of about 1157 objects, 3m12s');
  expect(formatProgress(p({ done: 3, seconds: 9 }))).toBe('building the minimal kernel: 3 objects compiled, 9s');
  expect(formatProgress(p({ done: 1229, total: 1157, seconds: 634, ended: true }))).toBe('building the minimal kernel: 1229 objects compiled, done in 10m34s');
  expect(formatProgress(p({ what: 'booting it under TCG', phase: 'workload running', seconds: 41 }))).toBe('booting it under TCG: workload running, 41s');
  // Every such line is what the tests' withoutProgress() takes out of stderr, and nothing else is.
  expect(withoutProgress(['making a draft', formatProgress(p({ done: 1, seconds: 61 })), formatProgress(p({ seconds: 3, ended: true }))].join('\n'))).toBe('making a draft');
});

test('a build is sampled by the objects written since it started, host programs left out', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-progress-'));
  const old = path.join(dir, 'kernel', 'old.o');
  fs.mkdirSync(path.dirname(old), { recursive: true });
  fs.writeFileSync(old, '');
  fs.utimesSync(old, new Date(0), new Date(0));
  fs.writeFileSync(path.join(dir, '.config'), 'CONFIG_X=y\n');
  const sample = buildSample(dir, async () => 7);
  // No estimate before the build starts (kunit.py writes a partial .config first): Kbuild's auto.conf says it has.
  await new Promise((r) => setTimeout(r, 0));
  expect(sample().total).toBeUndefined();
  fs.mkdirSync(path.join(dir, 'include/config'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'include/config/auto.conf'), 'CONFIG_X=y\n');
  for (const f of ['kernel/fork.o', 'mm/slub.o', 'scripts/kconfig/conf.o', 'tools/objtool/check.o', 'kernel/fork.c']) {
    fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    fs.writeFileSync(path.join(dir, f), '');
  }
  expect(sample().done).toBe(2);
  await new Promise((r) => setTimeout(r, 0));
  expect(sample()).toEqual({ done: 2, total: 7 });
  fs.rmSync(dir, { recursive: true, force: true });
});

test("about how many objects a build compiles, from the Kbuild files' lists under the .config", async () => {
  const files: Record<string, string> = {
    Kbuild: 'obj-y += init/ kernel/\nobj-$(CONFIG_NET) += net/\n',
    'init/Makefile': 'obj-y := main.o version.o\n',
    'kernel/Makefile': 'obj-y = fork.o exit.o\nobj-$(CONFIG_SMP) += smp.o\nobj-$(CONFIG_KPROBES) += kprobes.o\nobj-y += sched/\n',
    'kernel/sched/Makefile': 'obj-y += core.o\n',
    'net/Makefile': 'obj-y += socket.o\n',
    'lib/Makefile': 'lib-y := sort.o\nobj-y += ext.o\next-y := a.o b.o c.o\n',
  };
  const read = async (f: string) => files[f];
  expect(await objectsToBuild(read, new Set(['SMP']))).toBe(2 + 3 + 1 + 1 + 3);
  expect(await objectsToBuild(read, new Set(['SMP', 'NET', 'KPROBES']))).toBe(2 + 4 + 1 + 1 + 1 + 3);
});

test("how far a guest got, from its console as it arrives (a mark cut in two by the chunks still counts)", () => {
  const g = guestPhase();
  expect(g.now()).toBe('starting QEMU');
  g.read(Buffer.from('[    0.000000] Linux version 6.12\n'));
  expect(g.now()).toBe('kernel booting');
  g.read(Buffer.from('@@kseries init\n@@kseries profile boot\n@@kseries work'));
  expect(g.now()).toBe('init running');
  g.read(Buffer.from('load-start 3.1\n'));
  expect(g.now()).toBe('workload running');
  g.read(Buffer.from('@@kseries workload-end 9.2 0\n@@kseries done\n'));
  expect(g.now()).toBe('powering off');
});

describe('how a command shows it', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  const io = (tty: boolean) => {
    const lines: string[] = [];
    const status: string[] = [];
    const it: Io = { out: () => {}, err: (t) => lines.push(t), cwd: '/', env: {}, ...(tty ? { status: (t: string) => status.push(t) } : {}) };
    return { it, lines, status };
  };

  test('off a terminal: a line every 30 seconds once a step has run 10, and one when it ends', async () => {
    const { it, lines } = io(false);
    let done = 0;
    const work = withProgress('building the lockdep kernel', progressReporter(it, 'static-keys: '), () => ({ done: (done += 10) }), () => new Promise((r) => setTimeout(r, 65_000)));
    await vi.advanceTimersByTimeAsync(66_000);
    await work;
    expect(lines).toEqual([
      'static-keys: building the lockdep kernel: 50 objects compiled, 10s',
      'static-keys: building the lockdep kernel: 200 objects compiled, 40s',
      'static-keys: building the lockdep kernel: 330 objects compiled, done in 1m05s',
    ]);
  });

  test('on a terminal: the status line every two seconds, and a line when a step of 10 seconds or more ends', async () => {
    const { it, lines, status } = io(true);
    const quick = withProgress('preparing build/defconfig', progressReporter(it), () => ({}), () => new Promise((r) => setTimeout(r, 3_000)));
    await vi.advanceTimersByTimeAsync(3_000);
    await quick;
    expect(status).toEqual(['preparing build/defconfig: 2s', '']);
    expect(lines).toEqual([]);
    const slow = withProgress('booting it under TCG', progressReporter(it), () => ({ phase: 'init running' }), () => new Promise((r) => setTimeout(r, 12_000)));
    await vi.advanceTimersByTimeAsync(12_000);
    await slow;
    expect(status.slice(2)).toEqual([2, 4, 6, 8, 10, 12].map((s) => `booting it under TCG: init running, ${s}s`).concat(''));
    expect(lines).toEqual(['booting it under TCG: init running, done in 12s']);
  });
});
