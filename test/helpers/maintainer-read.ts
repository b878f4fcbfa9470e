// What a maintainer checks in an emitted static-keys series, against the real tree and the real build: each message's
// hint sentence against its diff, the config line against the build's .config, the size figures against the built
// objects, the series' tree against MAINTAINERS, and every function a message names against what the patch touches.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import type { CheckReport } from '../../src/check/report.js';
import { parseSections, routeOf, type Route } from '../../src/subsystems/route.js';
import { runGetMaintainerSections } from '../../src/tools/kernel-scripts.js';
import { REPO_ROOT } from './tree.js';

/** One emitted patch mail: its subject, message body (before the ---), and diff. */
export function readMail(text: string): { subject: string; body: string; diff: string; files: string[] } {
  const subject = /^Subject: (.*(?:\n .*)*)/m.exec(text)![1]!.replace(/\n /g, ' ');
  const start = text.indexOf('\n\n') + 2;
  const cut = text.indexOf('\n---\n', start);
  const diff = text.slice(text.indexOf('\ndiff --git ', cut));
  const files = [...diff.matchAll(/^diff --git a\/(\S+) b\//gm)].map((m) => m[1]!);
  return { subject, body: text.slice(start, cut), diff, files };
}

/** "Each test keeps its likely()/unlikely() hint" only where every test the diff removes had one, and so on. */
export function expectHintsAsInDiff(mail: ReturnType<typeof readMail>): void {
  const body = mail.body.replace(/\n/g, ' ');
  const tests = mail.diff.split('\n').filter((l) => /^-\s*(?:if|while|\} else if)\s*\(/.test(l));
  const hinted = tests.filter((l) => /\b(?:likely|unlikely)\(/.test(l)).length;
  if (body.includes('Each test keeps its likely()/unlikely() hint')) expect(hinted, mail.subject).toBe(tests.length);
  if (body.includes('had no likely()/unlikely() hint')) expect(hinted, mail.subject).toBe(0);
}

/**
 * Every CONFIG_ symbol the message's config line ("x86_64 defconfig plus CONFIG_A and CONFIG_B (and 2 symbols ...),
 * CONFIG_WERROR off") says kseries switched on is set in the build's .config, and the one switched off is not.
 */
export function expectConfigAsBuilt(mail: ReturnType<typeof readMail>, dotConfig: string): void {
  const body = mail.body.replace(/\s+/g, ' ');
  const line = /x86_64 defconfig((?: plus (?:CONFIG_\w+(?:, | and )?)+)?)(?: \(and \d+ symbols? [^)]*\))?(?:, (CONFIG_\w+) off)?/.exec(body);
  expect(line, `${mail.subject}: no config line`).not.toBeNull();
  const set = new Set([...dotConfig.matchAll(/^CONFIG_(\w+)=[ym]/gm)].map((m) => m[1]!));
  for (const m of line![1]!.matchAll(/CONFIG_(\w+)/g)) expect(set.has(m[1]!), `CONFIG_${m[1]} set in .config`).toBe(true);
  if (line![2]) expect(set.has(line![2].replace(/^CONFIG_/, '')), `${line![2]} not set in .config`).toBe(false);
}

/** The tip's figures of each object (the last patch that touched it) are what size -A and readelf say of the built object. */
export function expectSizesAsBuilt(report: CheckReport, buildDir: string): void {
  // Builds kept from an earlier run were not made now: the shared build directory holds whatever was built last
  // (another test's tree), so its objects say nothing of this report. A run that builds (cold, or after a change to
  // the build or check code) compares them.
  if (report.buildsKeptFrom) {
    console.log(`sizes not compared with ${buildDir}: the builds were kept from ${report.buildsKeptFrom}`);
    return;
  }
  const last = new Map<string, { total: number; jumpTable: number }>();
  for (const p of report.patches) for (const z of p.build.sizes ?? []) last.set(z.object, z.after);
  expect(last.size).toBeGreaterThan(0);
  for (const [object, after] of last) {
    const file = path.join(buildDir, object);
    const alloc = new Set(
      execFileSync('readelf', ['-SW', file], { encoding: 'utf8' })
        .split('\n')
        .flatMap((l) => {
          const m = /^\s*\[\s*\d+\]\s+(\S+)\s+\S+\s+[0-9a-f]+\s+[0-9a-f]+\s+[0-9a-f]+\s+[0-9a-f]+\s+(\S*?)\s+\d+\s+\d+\s+\d+\s*$/.exec(l);
          return m && m[2]!.includes('A') ? [m[1]!] : [];
        }),
    );
    const rows = execFileSync('size', ['-A', file], { encoding: 'utf8' })
      .split('\n')
      .flatMap((l) => {
        const m = /^(\S+)\s+(\d+)\s+\d+$/.exec(l);
        return m ? [{ name: m[1]!, size: Number(m[2]) }] : [];
      });
    const sum = rows.filter((r) => alloc.has(r.name)).reduce((n, r) => n + r.size, 0);
    expect(sum, `${object}: allocated sections of size -A`).toBe(after.total);
    expect(rows.find((r) => r.name === '__jump_table')?.size ?? 0, `${object}: __jump_table`).toBe(after.jumpTable);
  }
}

/** The route MAINTAINERS gives each file the series touches: one tree for all, tagged in the subjects where it asks. */
export async function expectOneTree(root: string, mails: ReturnType<typeof readMail>[]): Promise<Route> {
  const routes = await Promise.all(mails.flatMap((m) => m.files).map(async (f) => routeOf(f, parseSections(await runGetMaintainerSections(root, f)))));
  expect(new Set(routes.map((r) => r.tree)).size).toBe(1);
  const route = routes[0]!;
  for (const m of mails) expect(m.subject).toMatch(new RegExp(`^\\[PATCH${route.tag ? ` ${route.tag}` : ''}[ \\]]`));
  return route;
}

/** Names the templates write themselves: the boot sequence and the static-key API, facts of every such patch. */
function templateNames(): Set<string> {
  const names = new Set<string>();
  for (const dir of ['static-key', 'static-keys']) {
    const folder = path.join(REPO_ROOT, 'patch-templates', dir);
    for (const f of fs.readdirSync(folder).filter((x) => x.endsWith('.hbs'))) {
      for (const m of fs.readFileSync(path.join(folder, f), 'utf8').matchAll(/\b(\w+)\(\)/g)) names.add(m[1]!);
    }
  }
  return names;
}

/** Every function a message names is in its diff (context and hunk headers included), in its proofs' figures, or general. */
export function expectNamesTouched(mail: ReturnType<typeof readMail>, proofFunctions: string[], sources = ''): void {
  const general = templateNames();
  for (const m of mail.body.matchAll(/\b(\w+)\(\)/g)) {
    const name = m[1]!;
    if (general.has(name) || proofFunctions.includes(name)) continue;
    // A call the patched files make outside the hunks (an initcall's genl_register_family()) is checked against them.
    if (new RegExp(`\\b${name}\\s*\\(`).test(sources)) continue;
    expect(new RegExp(`\\b${name}\\b`).test(mail.diff), `${mail.subject}: names ${name}() which the patch does not touch`).toBe(true);
  }
}
