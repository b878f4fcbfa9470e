// The commits of a range as check reads them: message, author and files of each, and each as git format-patch mails it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gitRaw } from '../tools/git.js';
import type { KernelTree } from '../tree/tree.js';

export interface Commit {
  sha: string;
  subject: string;
  body: string;
  author: { name: string; email: string };
  files: { status: string; file: string }[];
}

export async function readCommits(tree: KernelTree, base: string, tip: string): Promise<Commit[]> {
  const shas = (await gitRaw(tree.root, ['rev-list', '--reverse', `${base}..${tip}`])).trim().split('\n').filter(Boolean);
  const commits: Commit[] = [];
  for (const sha of shas) {
    const meta = await gitRaw(tree.root, ['log', '-1', '--format=%an%x00%ae%x00%B', sha]);
    const [name, email, message] = meta.split('\0');
    const [subject = '', ...rest] = (message ?? '').replace(/\n+$/, '').split('\n');
    const files = (await gitRaw(tree.root, ['diff-tree', '-r', '--no-commit-id', '--name-status', '--no-renames', sha]))
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((l) => {
        const [status = '', file = ''] = l.split('\t');
        return { status, file };
      });
    commits.push({ sha, subject, body: rest.join('\n').replace(/^\n+/, ''), author: { name: name!, email: email! }, files });
  }
  return commits;
}

/** Each commit as the mail git format-patch makes of it, for checkpatch and get_maintainer. */
export async function formatMails(tree: KernelTree, base: string, tip: string): Promise<string[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-check-'));
  try {
    await gitRaw(tree.root, ['format-patch', '-q', '-o', dir, '--no-signature', `${base}..${tip}`]);
    return fs.readdirSync(dir).sort().map((f) => fs.readFileSync(path.join(dir, f), 'utf8'));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
