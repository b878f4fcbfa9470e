// Forget a generated series in a test clone: its branches and kseries' record of it, so the next generate makes v1.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** Forget `name`, or every series when no name is given. */
export function forgetSeries(root: string, name?: string): void {
  const git = (...args: string[]) => execFileSync('git', args, { cwd: root, encoding: 'utf8' });
  const prefix = name ? `refs/heads/kseries/${name}/` : 'refs/heads/kseries/';
  for (const ref of git('for-each-ref', '--format=%(refname)', prefix).split('\n').filter(Boolean)) git('update-ref', '-d', ref);
  const gitDir = path.resolve(root, git('rev-parse', '--git-common-dir').trim());
  fs.rmSync(path.join(gitDir, 'kseries', 'series', ...(name ? [name] : [])), { recursive: true, force: true });
}
