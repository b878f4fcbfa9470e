// Results kept by what decides them: read back for the same key, made again for another, never kept when untrusted.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from 'vitest';
import { codeDigest, keptResult } from '../../src/kept.js';

test('a trusted result is kept under its key and read back with when it was made; another key or an untrusted result runs again', async () => {
  const env = { KSERIES_CACHE: fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-kept-')) };
  let runs = 0;
  const boot = (tree: string, ok: boolean, fresh = false) => keptResult('boot', { tree, config: 'c1' }, async () => ({ ok, n: ++runs }), (r) => r.ok, { env, fresh });
  const first = await boot('t1', true);
  expect(first).toEqual({ value: { ok: true, n: 1 } });
  const again = await boot('t1', true);
  expect(again.value).toEqual({ ok: true, n: 1 });
  expect(Date.parse(again.keptFrom!)).toBeLessThanOrEqual(Date.now());
  expect((await boot('t2', true)).value.n).toBe(2);
  // A failure is never kept: the next run tries again.
  expect((await boot('t3', false)).value.n).toBe(3);
  expect((await boot('t3', false)).value.n).toBe(4);
  // --fresh does the work again, and keeps the new result.
  expect(await boot('t1', true, true)).toEqual({ value: { ok: true, n: 5 } });
  expect((await boot('t1', true)).value.n).toBe(5);
  fs.rmSync(env.KSERIES_CACHE, { recursive: true, force: true });
});

test("kseries' own code is part of a key: a folder or one module, digested by content", () => {
  expect(codeDigest(['boot'])).toMatch(/^[0-9a-f]{40}$/);
  expect(codeDigest(['boot'])).toBe(codeDigest(['boot']));
  expect(codeDigest(['recipes/static-key/boot-check'])).not.toBe(codeDigest(['check/kunit']));
});
