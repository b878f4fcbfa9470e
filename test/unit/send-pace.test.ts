// The parts of a series cut to its tree's limit go out one after another: part k only once part k-1 was sent, and a
// day after it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { refuseEarlyPart } from '../../src/series/send.js';

function emitted(out: string, name: string, subject: string): { dir: string; files: string[] } {
  const dir = path.join(out, name, 'v1');
  fs.mkdirSync(dir, { recursive: true });
  const cover = path.join(dir, '0000-cover-letter.patch');
  fs.writeFileSync(cover, `From x\nSubject: ${subject}\n\nbody\n`);
  return { dir, files: [cover] };
}

test('part 2 waits for part 1 to be sent, and a day after it; part 1 and a series without parts do not wait', () => {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-pace-'));
  try {
    const now = new Date('2026-12-04T12:00:00Z');
    const one = emitted(out, 'string_choices-net-next-1', '[PATCH net-next 00/13] Use helpers (part 1 of 4)');
    const two = emitted(out, 'string_choices-net-next-2', '[PATCH net-next 00/13] Use helpers (part 2 of 4)');
    const plain = emitted(out, 'string_choices-can-next', '[PATCH can-next 0/2] Use helpers');
    expect(() => refuseEarlyPart(one.dir, one.files, now)).not.toThrow();
    expect(() => refuseEarlyPart(plain.dir, plain.files, now)).not.toThrow();
    expect(() => refuseEarlyPart(two.dir, two.files, now)).toThrow(UsageError);
    expect(() => refuseEarlyPart(two.dir, two.files, now)).toThrow(/part 1 \(string_choices-net-next-1\) has not been sent/);
    fs.writeFileSync(path.join(one.dir, 'sent.json'), JSON.stringify({ sentAt: '2026-12-04T02:00:00Z' }));
    expect(() => refuseEarlyPart(two.dir, two.files, now)).toThrow(/less than a day ago/);
    expect(() => refuseEarlyPart(two.dir, two.files, new Date('2026-12-05T02:00:01Z'))).not.toThrow();
  } finally {
    fs.rmSync(out, { recursive: true, force: true });
  }
});
