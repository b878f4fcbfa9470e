import { checkRequirements, installPackages, missingPackages } from '../doctor.js';
import { isRoot } from '../system.js';
import { MissingToolError } from '../errors.js';
import { openTree } from '../tree/tree.js';
import { printJson, type GlobalOptions, type Io } from './io.js';

/** Exit 0 when everything is there (after --install), 2 when something is missing. */
export async function doctor(io: Io, g: GlobalOptions, install: boolean): Promise<number> {
  let reqs = await checkRequirements(io.env);
  let missing = missingPackages(reqs);
  const wanted = missingPackages(reqs, { optional: true });
  if (install && wanted.length > 0) {
    if (!isRoot()) throw new MissingToolError(`--install needs root to run apt-get`, `run: sudo apt-get install -y ${wanted.join(' ')}`);
    await installPackages(wanted, (l) => io.err(l));
    reqs = await checkRequirements(io.env);
    missing = missingPackages(reqs);
  }
  const tree = await openTree({ cwd: io.cwd, tree: g.tree, env: io.env }).then(
    (t) => ({ ok: true, detail: `Linux ${t.version} at ${t.root}` }),
    (e: Error) => ({ ok: false, detail: e.message }),
  );
  if (g.json) {
    printJson(io, { requirements: reqs, missingPackages: missing, tree });
  } else {
    for (const r of reqs) io.out(`${r.present ? 'ok     ' : r.optional ? 'absent ' : 'MISSING'} ${r.what}${r.present ? '' : ` — Debian package ${r.package}${r.optional ? ' (optional: kseries works without it)' : ''}`}`);
    io.out(`${tree.ok ? 'ok     ' : 'MISSING'} kernel tree: ${tree.detail}${tree.ok ? '' : ' — run: kseries tree init'}`);
    if (missing.length > 0) io.out(`\nto install: ${isRoot() ? '' : 'sudo '}apt-get install -y ${missing.join(' ')}   (or: kseries doctor --install)`);
  }
  return missing.length > 0 ? 2 : 0;
}
