// Thousands of mutated mailboxes through intake (split, parse, identify, diagnose, reply): no crash; what fails is a
// user's error (exit 2) with one line, never a bug.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from 'vitest';
import { KseriesError, EXIT_USAGE } from '../../src/errors.js';
import { readMailbox } from '../../src/mail/mailbox.js';
import { diagnose, diffPart, pathsOf } from '../../src/review/diagnose.js';
import { identifySeries } from '../../src/review/intake.js';
import { writeReplies } from '../../src/review/replies.js';
import type { ReviewReport } from '../../src/review/review.js';
import { mutate, rng } from '../helpers/mutate.js';

/**
 * Mailboxes per run: each costs a `git mailsplit` (about 11 ms here) and a parse, so 600 keep the unit tier within its
 * 20 s; `KSERIES_FUZZ_RUNS=5000 npm run test:unit` fuzzes longer (seeds 1..N, the same every run).
 */
const RUNS = Number(process.env.KSERIES_FUZZ_RUNS ?? 600);

const SEED_MBOX = [
  'From 1 Mon Sep 17 00:00:00 2001',
  'From: =?UTF-8?Q?J=C3=B6rg?= <j@example.org>',
  'Subject: [PATCH v2 0/2] lib: Two',
  'Message-ID: <c@x>',
  '',
  'Blurb.',
  '',
  'base-commit: 0123456789abcdef0123456789abcdef01234567',
  '',
  'From 2 Mon Sep 17 00:00:00 2001',
  'From: Ada <ada@example.org>',
  'Subject: [PATCH v2 1/2] lib: One',
  'Message-ID: <p1@x>',
  'In-Reply-To: <c@x>',
  'References: <c@x>',
  'Content-Type: text/plain; charset=UTF-8',
  'Content-Transfer-Encoding: quoted-printable',
  '',
  'Change a=3Db.',
  '',
  'Signed-off-by: Ada <ada@example.org>',
  '---',
  'diff --git a/lib/x.c b/lib/x.c',
  '--- a/lib/x.c',
  '+++ b/lib/x.c',
  '@@ -1,3 +1,3 @@',
  ' int a;',
  '-int b;',
  '+int c;',
  ' int d;',
  '-- ',
  '2.39.5',
  '',
  'From 3 Mon Sep 17 00:00:00 2001',
  'From: Ada <ada@example.org>',
  'Subject: Re: [PATCH v2 1/2] lib: One',
  'Message-ID: <r@x>',
  'In-Reply-To: <p1@x>',
  '',
  'Reviewed-by: R <r@x.org>',
  '',
].join('\n');

const FILES = new Map([['lib/x.c', 'int a;\nint b;\nint d;\n']]);
const REPORT = (n: number): ReviewReport => ({
  series: { subject: 's', version: 1, patches: n, announced: n, revisions: [], base: '0'.repeat(40), baseFrom: 'HEAD', rfc: false, resend: false, prefixes: [], cover: true, replies: 0, branch: 'b' },
  config: 'defconfig',
  compiler: 'gcc',
  sandbox: 'none',
  patches: [],
  problems: [],
  verdict: 'findings',
});

/** One mutated mailbox through intake, diagnosis and replies: read, or refused as a user's error. */
async function fuzzOne(dir: string, run: number): Promise<{ patches: number } | 'refused'> {
  const text = mutate(SEED_MBOX, rng(run + 1));
  const file = path.join(dir, `${run}.mbox`);
  fs.writeFileSync(file, Buffer.from(text, 'latin1'));
  try {
    const intake = identifySeries(await readMailbox(file));
    for (const p of intake.patches) {
      const diff = diffPart(p.message.body);
      pathsOf(diff);
      diagnose(diff, { now: (f) => FILES.get(f), atBase: (f) => FILES.get(f), touchedBy: () => [] });
    }
    const report = REPORT(intake.total);
    report.patches = intake.patches.map((p) => ({
      index: p.index, subject: p.subject.summary, applied: false, commit: null, trailers: p.trailers, failures: [], proofs: [], tree: [],
      build: { status: 'skipped', objects: [], errors: [], newWarnings: [], notBuilt: [] },
      checkpatch: { errors: 1, warnings: 0, checks: 0, findings: [{ level: 'error', type: 'X', file: 'lib/x.c', line: 2, message: 'm' }] },
      problems: [{ kind: 'not-applied', severity: 'error', message: 'not applied' }],
    }));
    writeReplies(report, intake, { from: { name: 'K', address: 'k@x' }, replyAll: true, date: new Date(0) });
    return { patches: intake.patches.length };
  } catch (e) {
    if (!(e instanceof KseriesError) || e.exitCode !== EXIT_USAGE || e.message.includes('\n')) throw new Error(`run ${run}: ${e instanceof Error ? e.stack : String(e)}`);
    return 'refused';
  } finally {
    fs.rmSync(file, { force: true });
  }
}

/** Mailboxes read at once: each waits mostly on its git mailsplit, so several keep both cores busy. */
const AT_ONCE = 8;

test(`${RUNS} mutated mailboxes: no crash, every failure a one-line user error (exit 2)`, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-fuzz-'));
  const outcomes = { parsed: 0, refused: 0, patches: 0 };
  try {
    for (let first = 0; first < RUNS; first += AT_ONCE) {
      const runs = Array.from({ length: Math.min(AT_ONCE, RUNS - first) }, (_, i) => first + i);
      for (const r of await Promise.all(runs.map((run) => fuzzOne(dir, run)))) {
        if (r === 'refused') outcomes.refused++;
        else {
          outcomes.parsed++;
          outcomes.patches += r.patches;
        }
      }
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  console.log(`fuzz: ${RUNS} mailboxes, ${outcomes.parsed} read (${outcomes.patches} patches), ${outcomes.refused} refused with exit 2, 0 crashes`);
  expect(outcomes.parsed + outcomes.refused).toBe(RUNS);
});
