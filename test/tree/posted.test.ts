// Issue 44, item 3 on a real archive: a patch re-made from one posted to linux-wpan (../shared/inbox, read only) and
// cut by kseries split is named by emit --inbox as posted already (the same change, by patch-id), with its author,
// date and Message-Id; send refuses the series without --force.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { EmitResult } from '../../src/series/emit.js';
import { REPO_ROOT } from '../helpers/cli.js';
import { forgetSeries } from '../helpers/series.js';
import { scratchCommitOf } from '../helpers/review.js';
import { cli, expectOneLineError, git, userTree } from '../helpers/tree.js';
import type { KernelTree } from '../../src/tree/tree.js';

const WPAN = path.join(REPO_ROOT, '../shared/inbox/linux-wpan.git');
/** "[PATCH net] ieee802154: hwsim: free PIB after unregistering hardware", 2026-06-27: it applies to 6.12. */
const POSTED = '20260627235805.17310-1-alhouseenyousef@gmail.com';
let tree: KernelTree;
let dir: string;

beforeAll(async () => {
  tree = await userTree();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-posted-'));
  forgetSeries(tree.root, 'posted-hwsim');
  forgetSeries(tree.root, 'applies-adf7242');
  for (const x of ['hwsim-git', 'hwsim-archive', 'posted-left', 'posted-rest']) forgetSeries(tree.root, x);
});
afterAll(() => {
  forgetSeries(tree.root, 'posted-hwsim');
  forgetSeries(tree.root, 'applies-adf7242');
  for (const x of ['hwsim-git', 'hwsim-archive', 'posted-left', 'posted-rest']) forgetSeries(tree.root, x);
  fs.rmSync(dir, { recursive: true, force: true });
});

test('a patch posted already is named by emit --inbox, and send refuses the series without --force', async () => {
  // The archived mail, committed by git am in a scratch worktree: the change a developer re-made unknowingly.
  const commit = execFileSync('git', ['--git-dir', WPAN, 'log', '--format=%H %s'], { encoding: 'utf8', maxBuffer: 1 << 28 }).split('\n').find((l) => l.slice(41) === '[PATCH net] ieee802154: hwsim: free PIB after unregistering hardware')!.split(' ')[0]!;
  fs.writeFileSync(path.join(dir, 'p.eml'), execFileSync('git', ['--git-dir', WPAN, 'show', `${commit}:m`]));
  const wt = path.join(dir, 'wt');
  git(tree.root, 'worktree', 'add', '-q', '--detach', wt, 'HEAD');
  try {
    execFileSync('git', ['am', path.join(dir, 'p.eml')], { cwd: wt, stdio: 'pipe', env: { ...process.env, GIT_COMMITTER_NAME: 'A Tester', GIT_COMMITTER_EMAIL: 'tester@example.org' } });
  } catch (e) {
    throw new Error(`${String((e as { stdout?: Buffer }).stdout)} ${String((e as { stderr?: Buffer }).stderr)} at ${git(wt, 'rev-parse', 'HEAD')} in ${tree.root}`);
  }
  const made = git(wt, 'rev-parse', 'HEAD').trim();
  // The same change with one more file: split --inbox leaves the posted part out and makes the rest.
  const adf = path.join(wt, 'drivers/net/ieee802154/adf7242.c');
  fs.writeFileSync(adf, fs.readFileSync(adf, 'utf8').replace(' * Analog Devices ADF7242 Low-Power', ' * Analog Devices ADF7242 low-power'));
  git(wt, '-c', 'user.name=A Tester', '-c', 'user.email=tester@example.org', 'commit', '-q', '-a', '--amend', '--no-edit');
  const more = git(wt, 'rev-parse', 'HEAD').trim();
  git(tree.root, 'worktree', 'remove', '--force', wt);
  // Only the posted change: nothing to make, in one line that names the posting.
  expectOneLineError(await cli(['--tree', tree.root, 'split', made, '--series', 'posted-left', '--inbox', WPAN]), new RegExp(`nothing left to make: ieee802154: hwsim: left out, posted already: .* <${POSTED.replace(/\./g, '\\.')}>`));
  const rest = await cli(['--tree', tree.root, 'split', more, '--series', 'posted-rest', '--inbox', WPAN, '--json']);
  expect(rest.code, rest.err).toBe(0);
  expect((JSON.parse(rest.out) as { series: { commits: { subject: string; files?: string[] }[] }[] }).series.flatMap((x) => x.commits.map((c) => c.subject))).toEqual([expect.stringMatching(/ieee802154: adf7242: free PIB/)]);
  expect(rest.err).toMatch(new RegExp(`^ieee802154: hwsim: left out, posted already: "\\[PATCH net\\] ieee802154: hwsim: free PIB after unregistering hardware" by .*Yousef Alhouseen.* on 2026-06-27, <${POSTED.replace(/\./g, '\\.')}>$`, 'm'));
  expect((await cli(['--tree', tree.root, 'split', made, '--series', 'posted-hwsim'])).code).toBe(0);
  const e = await cli(['--tree', tree.root, 'emit', 'posted-hwsim', '--out', path.join(dir, 'out'), '--inbox', WPAN, '--json']);
  expect(e.code, e.err).toBe(0);
  const r = JSON.parse(e.out) as EmitResult;
  expect(r.alreadyPosted).toEqual([expect.objectContaining({ patch: 1, by: 'patch-id', messageId: POSTED, date: '2026-06-27', from: expect.stringContaining('Yousef Alhouseen') })]);
  // Nobody applied it (the thread is a discussion): no applied reply is claimed.
  expect(r.alreadyPosted![0]!.applied).toBeUndefined();
  const s = await cli(['--tree', tree.root, 'send', 'posted-hwsim', '--out', path.join(dir, 'out'), '--send', '--smtp-server', '127.0.0.1', '--smtp-port', '9']);
  expectOneLineError(s, new RegExp(`patch 1 was posted already: .* <${POSTED.replace(/\./g, '\\.')}>`));
}, 300_000);

test('who applies today: a maintainer silent in the archive is named, the people who apply the files offered (--to-applier)', async () => {
  const commit = scratchCommitOf(tree.root, [{ file: 'drivers/net/ieee802154/adf7242.c', from: ' * Analog Devices ADF7242 Low-Power IEEE 802.15.4 Transceiver', to: ' * Analog Devices ADF7242 low-power IEEE 802.15.4 transceiver' }], 'ieee802154: adf7242: Lower-case the header comment\n\nAs the rest of the file writes it.\n\nSigned-off-by: A U Thor <author@example.org>\n');
  expect((await cli(['--tree', tree.root, 'split', commit, '--series', 'applies-adf7242'])).code).toBe(0);
  const e = await cli(['--tree', tree.root, 'emit', 'applies-adf7242', '--out', path.join(dir, 'out'), '--inbox', WPAN, '--to-applier', '--json']);
  expect(e.code, e.err).toBe(0);
  const r = JSON.parse(e.out) as EmitResult;
  // The driver's only listed maintainer last wrote to linux-wpan in October 2023: more than a year ago.
  const adf = r.appliers!.find((a) => a.entry === 'ADF7242 IEEE 802.15.4 RADIO DRIVER')!;
  expect(adf.silent).toEqual([{ who: 'Michael Hennerich <michael.hennerich@analog.com>', last: { date: '2023-10-23', messageId: expect.stringContaining('@SN7PR03MB7132.namprd03.prod.outlook.com') } }]);
  // The subsystem's patches are applied by its maintainers, Stefan Schmidt the most often: To: on the mail.
  const sub = r.appliers!.find((a) => a.entry === 'IEEE 802.15.4 SUBSYSTEM')!;
  expect(sub.appliers[0]).toMatchObject({ address: 'stefan@datenfreihafen.org', count: expect.any(Number) });
  expect(sub.appliers[0]!.count).toBeGreaterThanOrEqual(10);
  expect(r.messages[0]!.to.join(' ')).toContain('stefan@datenfreihafen.org');
  // Without --inbox, --to-applier has nothing to read: one line.
  expectOneLineError(await cli(['--tree', tree.root, 'emit', 'applies-adf7242', '--out', path.join(dir, 'out'), '--to-applier']), /--to-applier reads who applies from list archives/);
}, 300_000);

test("prefixes from the archive: a tree without history takes the subjects posted for the file, and says where from", async () => {
  const commit = scratchCommitOf(tree.root, [{ file: 'drivers/net/ieee802154/mac802154_hwsim.c', from: 'MODULE_DESCRIPTION(', to: 'MODULE_DESCRIPTION( ' }], 'hwsim: Tidy\n\nA space.\n\nSigned-off-by: A U Thor <author@example.org>\n');
  // The module is mac802154_hwsim, which the conventions name; its list writes "ieee802154: hwsim:".
  const plain = await cli(['--tree', tree.root, 'split', commit, '--series', 'hwsim-git', '--json']);
  expect((JSON.parse(plain.out) as { series: { commits: { subject: string }[] }[] }).series[0]!.commits[0]!.subject).toBe('ieee802154: mac802154_hwsim: Tidy');
  const r = await cli(['--tree', tree.root, 'split', commit, '--series', 'hwsim-archive', '--inbox', WPAN, '--json']);
  expect(r.code, r.err).toBe(0);
  expect((JSON.parse(r.out) as { series: { commits: { subject: string }[] }[] }).series[0]!.commits[0]!.subject).toBe('ieee802154: hwsim: Tidy');
  expect(r.err).toMatch(/^ieee802154: hwsim: the prefix the list archives give drivers\/net\/ieee802154\/mac802154_hwsim\.c \("ieee802154: hwsim: [^"]+", <[^>]+>\)$/m);
}, 300_000);
