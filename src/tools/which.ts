// Is a program installed: an executable of that name on PATH. Optional tools (ccache, distcc, bwrap) are detected here.
import fs from 'node:fs';
import path from 'node:path';

export function onPath(program: string, env: NodeJS.ProcessEnv = process.env): boolean {
  return (env.PATH ?? '').split(':').some((dir) => {
    try {
      fs.accessSync(path.join(dir || '.', program), fs.constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}
