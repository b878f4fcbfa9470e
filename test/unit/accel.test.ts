// Which QEMU accelerator KUnit gets: forced by KSERIES_QEMU_ACCEL, else KVM only after a probe guest boots with it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from 'vitest';
import { chooseAccel } from '../../src/boot/accel.js';

const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-accel-'));
const env = { ...process.env, KSERIES_CACHE: cache };

test('KSERIES_QEMU_ACCEL decides without a probe, and says so', async () => {
  for (const accel of ['kvm', 'tcg'] as const) {
    const a = await chooseAccel('/nonexistent/bzImage', { ...env, KSERIES_QEMU_ACCEL: accel });
    expect(a).toEqual({ accel, why: 'chosen by KSERIES_QEMU_ACCEL', qemuArgs: ['-accel', accel] });
  }
});

test('a probe guest that does not boot means TCG, with what the probe saw', async () => {
  // No kernel to boot: whether /dev/kvm is usable here or not, KVM is not shown to work, so TCG runs.
  const a = await chooseAccel(path.join(cache, 'no-bzImage'), { ...env, KSERIES_QEMU_ACCEL: '' });
  expect(a.accel).toBe('tcg');
  expect(a.why).toMatch(/\/dev\/kvm is missing or not accessible|a KVM probe guest (failed|was killed)/);
  expect(a.qemuArgs).toEqual(['-accel', 'tcg']);
});
