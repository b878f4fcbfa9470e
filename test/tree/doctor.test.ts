// kseries doctor on this machine, and on a machine with only git.
import { expect, test } from 'vitest';
import { cli, userTree, withOnlyGit } from '../helpers/tree.js';

test('doctor finds everything kseries needs on this machine', async () => {
  const tree = await userTree();
  const r = await cli(['--tree', tree.root, 'doctor']);
  expect(r.err).toBe('');
  expect(r.code).toBe(0);
  expect(r.out).not.toContain('MISSING');
  expect(r.out).toContain('ok      git send-email');
  expect(r.out).toContain(`ok      kernel tree: Linux ${tree.version}`);
});

test('doctor names the Debian package of each missing program', () =>
  withOnlyGit(async (env) => {
    const r = await cli(['--tree', '/nonexistent', 'doctor', '--json'], { env });
    expect(r.code).toBe(2);
    const j = JSON.parse(r.out);
    expect(j.missingPackages).toEqual(expect.arrayContaining(['perl', 'make', 'gcc', 'binutils', 'flex', 'bison', 'bc']));
    expect(j.missingPackages).not.toContain('git');
    expect(j.tree.ok).toBe(false);
  }));
