// A build's configuration as a message names it: the base, what kseries switched on, what that pulled in, what is off.

/** What a build's .config is, against the base it was made from (KernelBuild.configAsBuilt). */
export interface ConfigAsBuilt {
  /** "x86_64 defconfig", or the user's file name. */
  base: string;
  /** Symbols kseries asked for that the .config sets and the base does not. */
  on: string[];
  /** How many more symbols the .config sets than the base (what those pulled in). */
  pulledIn: number;
  /** Symbols the base sets and the .config does not, and CONFIG_WERROR, which kseries always switches off. */
  off: string[];
  /** Of a build of the other side (its base names the flips): how many more symbols Kconfig switched off with them. */
  switchedOff?: number;
}

/** "x86_64 defconfig plus CONFIG_MEMCG and CONFIG_SLAB_OBJ_EXT (and 2 symbols olddefconfig switched on with them), CONFIG_WERROR off" */
export function configLine(c: ConfigAsBuilt): string {
  const names = (list: string[]) => {
    const full = list.map((s) => `CONFIG_${s}`);
    return full.length <= 1 ? full.join('') : `${full.slice(0, -1).join(', ')} and ${full[full.length - 1]}`;
  };
  const symbols = (n: number) => `${n} symbol${n === 1 ? '' : 's'}`;
  let line = c.base;
  if (c.on.length) line += ` plus ${names(c.on)}`;
  if (c.pulledIn) line += c.on.length ? ` (and ${symbols(c.pulledIn)} olddefconfig switched on with ${c.on.length === 1 ? 'it' : 'them'})` : ` plus ${symbols(c.pulledIn)} that earlier builds in its directory switched on`;
  if (c.off.length) line += `, ${names(c.off)} off`;
  if (c.switchedOff) line += ` (and ${symbols(c.switchedOff)} Kconfig switched off with the flips)`;
  return line;
}
