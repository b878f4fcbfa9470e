// The CLI in-process, as the executable runs it, and the shape of a user's error. No kernel tree: every tier uses it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import { main } from '../../src/cli/main.js';
import type { Io } from '../../src/commands/io.js';

export const REPO_ROOT = path.resolve(__dirname, '../..');
export const FIXTURE_RECIPES = path.join(REPO_ROOT, 'test', 'fixtures', 'recipes');

export interface CliRun {
  code: number;
  out: string;
  err: string;
}

/** A user's error as the CLI must give it: exit 2, `kseries: <message>` then `hint: <hint>`, no stack; the message. */
export function expectOneLineError(r: CliRun, message: RegExp): string {
  const lines = r.err.split('\n');
  expect(lines, r.err).toHaveLength(2);
  expect(lines[0]).toMatch(/^kseries: /);
  expect(lines[0]).toMatch(message);
  expect(lines[1]).toMatch(/^hint: \S/);
  expect(r.err).not.toMatch(/\n\s+at /);
  expect(r.code).toBe(2);
  return lines[0]!;
}

/** Run the CLI in-process, as the executable would. */
export async function cli(args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv; stdin?: string } = {}): Promise<CliRun> {
  const out: string[] = [];
  const err: string[] = [];
  const stdin = opts.stdin;
  const io: Io = { out: (t) => out.push(t), err: (t) => err.push(t), cwd: opts.cwd ?? REPO_ROOT, env: opts.env ?? process.env, ...(stdin !== undefined ? { stdin: () => stdin } : {}) };
  const code = await main(args, io);
  return { code, out: out.join('\n'), err: err.join('\n') };
}

/**
 * Run `fn` with a PATH that holds git and nothing else (the process's own, for programs kseries starts, and the
 * one handed to the CLI), as on a machine without perl, make or gcc.
 */
export async function withOnlyGit<T>(fn: (env: NodeJS.ProcessEnv) => Promise<T>): Promise<T> {
  const bin = fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-bin-'));
  fs.symlinkSync('/usr/bin/git', path.join(bin, 'git'));
  const saved = process.env.PATH;
  process.env.PATH = bin;
  try {
    return await fn({ ...process.env, PATH: bin });
  } finally {
    process.env.PATH = saved;
    fs.rmSync(bin, { recursive: true, force: true });
  }
}

/** stderr without the progress lines of long steps (kernel builds, boots), which end in their time: ", 12s", "done in 1m02s". */
export function withoutProgress(err: string): string {
  return err
    .split('\n')
    .filter((l) => !/: (?:.*, )?(?:done in )?\d+(?:m\d\d)?s$/.test(l))
    .join('\n');
}
