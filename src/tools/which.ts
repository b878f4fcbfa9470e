// Is a program installed: an executable of that name on PATH. Optional tools (ccache, distcc, bwrap) are detected here.
import fs from 'node:fs';
import path from 'node:path';

/** The executable `program` names on PATH (the first folder that has it), or undefined. */
export function onPathAt(program: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  for (const dir of (env.PATH ?? '').split(':')) {
    const file = path.join(dir || '.', program);
    try {
      fs.accessSync(file, fs.constants.X_OK);
      return file;
    } catch {
      // not in this folder
    }
  }
  return undefined;
}

export function onPath(program: string, env: NodeJS.ProcessEnv = process.env): boolean {
  return onPathAt(program, env) !== undefined;
}
