// Which commit a patch was made against, from the blob ids of its `index` lines (b4 am --guess-base): the newest
// commit, of those that brought in the first file's blob, at which every file the patch names has the blob it says.
import { gitRunRaw } from '../tools/git.js';

/** (file, blob) for each file the diff changes: the pre-image blob id of its `index` line; new files have none. */
export function preimageBlobs(diff: string): { file: string; blob: string }[] {
  const out: { file: string; blob: string }[] = [];
  let file: string | undefined;
  for (const line of diff.split('\n')) {
    const d = /^diff --git a\/(\S+) b\/\S+$/.exec(line);
    if (d) file = d[1];
    const i = /^index ([0-9a-f]{7,})\.\.[0-9a-f]{7,}/.exec(line);
    if (i && file && !/^0+$/.test(i[1]!)) (out.push({ file, blob: i[1]! }), (file = undefined));
  }
  return out;
}

export interface BaseGuess {
  /** The commit's id and subject, as a report names it. */
  commit: string;
  /** How many of the patch's files have at that commit the blob the patch names. */
  matched: number;
  of: number;
}

/** The commit the patch's blobs name, or undefined when the tree has not the first of them. */
export async function guessBase(dir: string, diff: string): Promise<BaseGuess | undefined> {
  const blobs = preimageBlobs(diff);
  if (blobs.length === 0) return undefined;
  const full = (await gitRunRaw(dir, ['rev-parse', '--verify', '-q', `${blobs[0]!.blob}^{blob}`])).stdout.trim();
  if (!full) return undefined;
  const log = await gitRunRaw(dir, ['log', '--all', '-n', '20', '--format=%H', `--find-object=${full}`, '--', blobs[0]!.file]);
  let best: BaseGuess | undefined;
  for (const sha of log.stdout.split('\n').filter(Boolean)) {
    let matched = 0;
    for (const b of blobs) {
      const at = (await gitRunRaw(dir, ['rev-parse', '-q', '--verify', `${sha}:${b.file}`])).stdout.trim();
      if (at.startsWith(b.blob)) matched++;
    }
    if (matched > (best?.matched ?? 0)) {
      const subject = (await gitRunRaw(dir, ['log', '-1', '--format=%s', sha])).stdout.trim();
      best = { commit: `${sha.slice(0, 12)} ("${subject}")`, matched, of: blobs.length };
    }
    if (best?.matched === blobs.length) break;
  }
  return best;
}
