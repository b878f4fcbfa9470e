// What subsystems ask of a patch that MAINTAINERS does not say, in one table: each rule names where it is written.
// A rule in the tree (a maintainer profile) is quoted, and its line is found in the tree being worked on, so a
// report can say "Documentation/process/maintainer-netdev.rst:351"; a rule that lives outside the tree (wireless'
// `wifi:` prefix is on its wiki, netdev's column limit in its bot's checkpatch run) names its address.
//
// Data only: read by subsystems/profile.ts (the rules of a tree) and subsystems/prefix.ts (subject prefixes).

/** Where a rule is written: a file of the tree and words on one of its lines, or a page outside the tree. */
export type RuleSource = { file: string; quote: string } | { url: string; says: string };

/** The rules of one tree (its profile), matched by the tree's repository or by the P: file of its entries. */
export interface TreeRules {
  /** Repositories as MAINTAINERS T: names them, without scheme, host prefix and .git ("netdev/net-next"). */
  repos: string[];
  /** The P: line of the entries that name these trees, where there is one. */
  profile?: string;
  /** A name a person types for the tree: series names end with it ("net-next"). */
  slug: string;
  /** The tag in the subject of new work ("[PATCH net-next]"), and where the tree asks for it. */
  tag?: { next: string; fixes?: string; source: RuleSource };
  /** Most patches a series may hold. */
  seriesLimit?: { max: number; source: RuleSource };
  /** The column limit the tree's checks apply to added lines. */
  columns?: { max: number; source: RuleSource };
  /** Stand-alone clean-ups (a cocci or checkpatch clean-up not part of other work) are discouraged. */
  cleanups?: { discouraged: true; source: RuleSource };
}

const NETDEV: RuleSource = { file: 'Documentation/process/maintainer-netdev.rst', quote: 'designate your patch to a tree' };
const WIRELESS_WIKI = 'https://wireless.docs.kernel.org/en/latest/en/developers/documentation/submittingpatches.html';

export const TREES: TreeRules[] = [
  {
    repos: ['netdev/net-next', 'netdev/net'],
    profile: 'Documentation/process/maintainer-netdev.rst',
    slug: 'net-next',
    tag: { next: 'net-next', fixes: 'net', source: NETDEV },
    seriesLimit: { max: 15, source: { file: NETDEV.file, quote: 'Avoid sending series longer than 15 patches' } },
    columns: { max: 80, source: { url: 'https://github.com/linux-netdev/nipa/blob/main/tests/patch/checkpatch/checkpatch.sh', says: 'NIPA runs checkpatch.pl with --max-line-length=80' } },
    cleanups: { discouraged: true, source: { file: NETDEV.file, quote: 'Netdev discourages patches which perform simple clean-ups' } },
  },
  {
    repos: ['wireless/wireless-next', 'wireless/wireless'],
    slug: 'wireless-next',
    tag: { next: 'wireless-next', fixes: 'wireless', source: { url: WIRELESS_WIKI, says: 'mark the patch for the wireless or wireless-next tree: [PATCH wireless-next]' } },
  },
  { repos: ['ath/ath'], slug: 'ath-next', tag: { next: 'ath-next', fixes: 'ath-current', source: { url: 'https://wireless.docs.kernel.org/en/latest/en/users/drivers/ath10k/submittingpatches.html', says: 'ath patches name their branch: [PATCH ath-next]' } } },
  { repos: ['github.com/pkshih/rtw'], slug: 'rtw-next', tag: { next: 'rtw-next', source: { url: WIRELESS_WIKI, says: 'Realtek drivers go through the rtw tree: [PATCH rtw-next]' } } },
  { repos: ['iwlwifi/iwlwifi', 'iwlwifi/iwlwifi-next'], slug: 'iwlwifi-next', tag: { next: 'iwlwifi-next', source: { url: WIRELESS_WIKI, says: 'iwlwifi patches go through the iwlwifi tree: [PATCH iwlwifi-next]' } } },
  { repos: ['mkl/linux-can-next', 'mkl/linux-can'], slug: 'can-next', tag: { next: 'can-next', fixes: 'can', source: { url: 'https://lore.kernel.org/linux-can/', says: 'CAN patches for the next release are posted as [PATCH can-next]' } } },
  { repos: ['wpan/wpan-next', 'wpan/wpan'], slug: 'wpan-next', tag: { next: 'wpan-next', fixes: 'wpan', source: { url: 'https://lore.kernel.org/linux-wpan/', says: 'IEEE 802.15.4 patches for the next release are posted as [PATCH wpan-next]' } } },
  { repos: ['tnguy/next-queue', 'tnguy/net-queue'], slug: 'iwl-next', tag: { next: 'iwl-next', fixes: 'iwl-net', source: { url: 'https://lore.kernel.org/intel-wired-lan/', says: 'Intel wired LAN patches are posted as [PATCH iwl-next] or [PATCH iwl-net]' } } },
  { repos: ['bpf/bpf-next', 'bpf/bpf'], slug: 'bpf-next', tag: { next: 'bpf-next', fixes: 'bpf', source: { file: 'Documentation/bpf/bpf_devel_QA.rst', quote: 'bpf-next' } } },
];

/**
 * Subject prefixes by folder, for a tree without history to learn them from: `{driver}` is the driver's name
 * (its module, see subsystems/module-name.ts), with `strip` taken off its front. The longest `under` wins.
 */
export interface PrefixConvention {
  under: string;
  prefix: string;
  strip?: string[];
  source: RuleSource;
}

export const PREFIXES: PrefixConvention[] = [
  { under: 'drivers/net/wireless/', prefix: 'wifi: {driver}', source: { url: WIRELESS_WIKI, says: 'subjects of wireless patches start with "wifi: <driver>:"' } },
  { under: 'drivers/net/can/', prefix: 'can: {driver}', strip: ['can-', 'can_'], source: { url: 'https://lore.kernel.org/linux-can/', says: 'CAN driver subjects are "can: <driver>:"' } },
  { under: 'drivers/net/ieee802154/', prefix: 'ieee802154: {driver}', source: { url: 'https://lore.kernel.org/linux-wpan/', says: 'IEEE 802.15.4 driver subjects are "ieee802154: <driver>:"' } },
  { under: 'drivers/net/dsa/', prefix: 'net: dsa: {driver}', source: NETDEV },
  { under: 'drivers/net/phy/', prefix: 'net: phy: {driver}', source: NETDEV },
  { under: 'drivers/net/pcs/', prefix: 'net: pcs: {driver}', strip: ['pcs-'], source: NETDEV },
  { under: 'drivers/net/usb/', prefix: 'net: usb: {driver}', source: NETDEV },
  { under: 'drivers/net/ethernet/', prefix: '{driver}', source: NETDEV },
  { under: 'drivers/net/', prefix: '{driver}', source: NETDEV },
  { under: 'drivers/gpio/', prefix: 'gpio: {driver}', strip: ['gpio-', 'gpio_'], source: { file: 'MAINTAINERS', quote: 'GPIO SUBSYSTEM' } },
  { under: 'drivers/i2c/', prefix: 'i2c: {driver}', strip: ['i2c-'], source: { file: 'MAINTAINERS', quote: 'I2C SUBSYSTEM' } },
  { under: 'drivers/spi/', prefix: 'spi: {driver}', strip: ['spi-', 'spi_'], source: { file: 'MAINTAINERS', quote: 'SPI SUBSYSTEM' } },
  { under: 'drivers/pinctrl/', prefix: 'pinctrl: {driver}', strip: ['pinctrl-'], source: { file: 'MAINTAINERS', quote: 'PIN CONTROL SUBSYSTEM' } },
  { under: 'drivers/gpu/drm/', prefix: 'drm/{driver}', source: { file: 'Documentation/gpu/introduction.rst', quote: 'drm' } },
  { under: 'sound/soc/', prefix: 'ASoC: {driver}', source: { file: 'MAINTAINERS', quote: 'SOUND - SOC LAYER / DYNAMIC AUDIO POWER MANAGEMENT (ASoC)' } },
  { under: 'sound/', prefix: 'ALSA: {driver}', source: { file: 'MAINTAINERS', quote: 'SOUND' } },
];

/**
 * Drivers whose subjects name them otherwise than their module does ("net/mlx5" for mlx5_core), by the folder that
 * holds them: the prefixes the issue that asked for this table names as netdev's (issue 33), which its labelled set
 * (test/fixtures/prefixes/) is to confirm.
 */
export const DRIVER_NAMES: { under: string; prefix: string }[] = [
  { under: 'drivers/net/ethernet/mellanox/mlx5/', prefix: 'net/mlx5' },
  { under: 'drivers/net/ethernet/mellanox/mlx4/', prefix: 'net/mlx4' },
  { under: 'drivers/net/ethernet/marvell/octeontx2/af/', prefix: 'octeontx2-af' },
  { under: 'drivers/net/ethernet/marvell/octeontx2/nic/', prefix: 'octeontx2-pf' },
  { under: 'drivers/net/ethernet/freescale/dpaa2/', prefix: 'dpaa2-eth' },
];
