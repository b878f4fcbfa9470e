// Whether a series' base is a commit others have: a maintainer applies a series only onto a base-commit they can
// resolve. A tree imported from a tarball (kseries tree init) has its own root commit, in no remote.
import { gitRaw } from '../tools/git.js';

/**
 * Why nobody else can resolve `base`: no remote-tracking branch of a remote that others can reach (a URL with a host,
 * not a folder of this machine, as a clone of kseries' own import has) holds it. Undefined when one does.
 */
export async function localBase(treeRoot: string, base: string): Promise<string | undefined> {
  const urls = (await gitRaw(treeRoot, ['config', '--get-regexp', '^remote\\..*\\.url$']).catch(() => '')).trim();
  for (const line of urls.split('\n').filter(Boolean)) {
    const [key, url = ''] = line.split(/\s+/, 2);
    const name = key!.replace(/^remote\./, '').replace(/\.url$/, '');
    if (!NETWORK_URL.test(url)) continue;
    const holds = (await gitRaw(treeRoot, ['for-each-ref', '--count=1', '--contains', base, '--format=%(refname)', `refs/remotes/${name}/`])).trim();
    if (holds) return undefined;
  }
  return (
    `base-commit ${base.slice(0, 12)} is in no remote of this tree (an import of a tarball, or a commit of your own): ` +
    'a maintainer cannot apply the series onto it'
  );
}

/** A remote others can reach: scheme://host/..., or scp-like user@host:path. */
const NETWORK_URL = /^(?:[a-z][a-z0-9+.-]*:\/\/[^/]+|[^/\s]+@[^/\s:]+:)/i;

/** What to do about a local base. */
export const LOCAL_BASE_HINT =
  "generate the series on a clone of the tree its maintainers apply patches to (MAINTAINERS T:): kseries tree init --from <clone>, then generate --base <its commit>";
