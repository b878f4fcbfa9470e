// The real kernel tree for integration tests: the provisioned cache, and throw-away clones of it as "a user's tree".
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, inject } from 'vitest';
import { main } from '../../src/cli/main.js';
import type { Io } from '../../src/commands/io.js';
import { provisionTree } from '../../src/tree/provision.js';
import { describeTree, type KernelTree } from '../../src/tree/tree.js';

export const REPO_ROOT = path.resolve(__dirname, '../..');
export const FIXTURE_RECIPES = path.join(REPO_ROOT, 'test', 'fixtures', 'recipes');

/** The provisioned Linux 6.12 tree; provisioning failures fail the test (it never skips). */
export async function provisionedTree(): Promise<KernelTree> {
  const p = await provisionTree({ cwd: REPO_ROOT, log: (l) => console.error(`[tree] ${l}`) });
  return p.tree;
}

/**
 * The clone of the provisioned tree made once per run (global-setup.ts): "a user's own checkout". Test files share it
 * and use their own series names; a test that dirties it restores it.
 */
export async function userTree(): Promise<KernelTree> {
  return describeTree(inject('cloneRoot'));
}

export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
}

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
