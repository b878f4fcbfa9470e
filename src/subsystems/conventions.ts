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
  /**
   * The tree whose maintainers apply this one's patches as patches, posted again to their list (Intel's queue is
   * netdev's): its rules hold for this tree where this one has none of its own. A tree that sends a pull request of
   * its own (wireless, CAN, WPAN) keeps its own rules and has none.
   */
  through?: { repo: string; source: RuleSource };
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
    // Older MAINTAINERS still name trees their maintainers gave up long ago (linville's wireless-testing, luca's
    // wl12xx, 6.1): their drivers go to wireless-next.
    repos: ['wireless/wireless-next', 'wireless/wireless', 'linville/wireless-testing', 'luca/wl12xx'],
    slug: 'wireless-next',
    tag: { next: 'wireless-next', fixes: 'wireless', source: { url: WIRELESS_WIKI, says: 'mark the patch for the wireless or wireless-next tree: [PATCH wireless-next]' } },
  },
  { repos: ['ath/ath', 'kvalo/ath'], slug: 'ath-next', tag: { next: 'ath-next', fixes: 'ath-current', source: { url: 'https://wireless.docs.kernel.org/en/latest/en/users/drivers/ath10k/submittingpatches.html', says: 'ath patches name their branch: [PATCH ath-next]' } } },
  { repos: ['github.com/pkshih/rtw'], slug: 'rtw-next', tag: { next: 'rtw-next', source: { url: WIRELESS_WIKI, says: 'Realtek drivers go through the rtw tree: [PATCH rtw-next]' } } },
  { repos: ['iwlwifi/iwlwifi', 'iwlwifi/iwlwifi-next'], slug: 'iwlwifi-next', tag: { next: 'iwlwifi-next', source: { url: WIRELESS_WIKI, says: 'iwlwifi patches go through the iwlwifi tree: [PATCH iwlwifi-next]' } } },
  { repos: ['mkl/linux-can-next', 'mkl/linux-can'], slug: 'can-next', tag: { next: 'can-next', fixes: 'can', source: { url: 'https://lore.kernel.org/linux-can/', says: 'CAN patches for the next release are posted as [PATCH can-next]' } } },
  { repos: ['wpan/wpan-next', 'wpan/wpan'], slug: 'wpan-next', tag: { next: 'wpan-next', fixes: 'wpan', source: { url: 'https://lore.kernel.org/linux-wpan/', says: 'IEEE 802.15.4 patches for the next release are posted as [PATCH wpan-next]' } } },
  {
    repos: ['tnguy/next-queue', 'tnguy/net-queue'],
    slug: 'iwl-next',
    tag: { next: 'iwl-next', fixes: 'iwl-net', source: { url: 'https://lore.kernel.org/intel-wired-lan/', says: 'Intel wired LAN patches are posted as [PATCH iwl-next] or [PATCH iwl-net]' } },
    through: { repo: 'netdev/net-next', source: { url: 'https://lore.kernel.org/netdev/?q=s%3A%22Intel+Wired+LAN+Driver+Updates%22', says: "Intel's queue reaches netdev as patches its maintainers review and apply (\"Intel Wired LAN Driver Updates\")" } },
  },
  { repos: ['bpf/bpf-next', 'bpf/bpf'], slug: 'bpf-next', tag: { next: 'bpf-next', fixes: 'bpf', source: { file: 'Documentation/bpf/bpf_devel_QA.rst', quote: 'bpf-next' } } },
];

/**
 * Subject prefixes by folder, for a tree without history to learn them from: `{driver}` is the driver's name
 * (its module, see subsystems/module-name.ts), with `strip` taken off its front. The longest `under` wins.
 */
export interface PrefixConvention {
  under: string;
  prefix: string;
  /** Taken off the front of the driver's word and the stem; one starting with - or _ off their end ("_edac"). */
  strip?: string[];
  /** The part of the file's name `{stem}` stands for, where only a part is its word: the chip of rtw8852c_rfk.c. */
  stemPart?: RegExp;
  /** Where the summary names the driver ("{driver} - " for Input, "({driver}) " for hwmon). */
  named?: string;
  /** The words every subject of the subsystem starts with now, whatever its older history wrote ("wifi: "). */
  lead?: string;
  /** Another form the subsystem's subjects take about as often ("net: {driver}" beside "{driver}" in netdev): the guess is a weak one. */
  also?: string;
  source: RuleSource;
}

/** A subsystem's habit as its list's archive shows it (the subjects its maintainers apply). */
const lore = (list: string, says: string): RuleSource => ({ url: `https://lore.kernel.org/${list}/`, says });

export const PREFIXES: PrefixConvention[] = [
  // Networking (netdev and the trees below it).
  { under: 'drivers/net/wireless/', prefix: 'wifi: {driver}', strip: ['-usb', '-sdio', '-spi', '-pci', '_usb', '_sdio', '_spi', '_pci'], lead: 'wifi: ', source: { url: WIRELESS_WIKI, says: 'subjects of wireless patches start with "wifi: <driver>:"' } },
  { under: 'drivers/net/wireless/intel/iwlwifi/', prefix: 'wifi: iwlwifi: {dir}', lead: 'wifi: ', source: lore('linux-wireless', 'iwlwifi subjects name the part: "wifi: iwlwifi: mvm:"') },
  { under: 'drivers/net/wireless/mediatek/mt76/', prefix: 'wifi: mt76: {dir}', lead: 'wifi: ', source: lore('linux-wireless', 'mt76 subjects name the chip: "wifi: mt76: mt7921:"') },
  { under: 'drivers/net/wireless/realtek/rtw88/rtw8', prefix: 'wifi: rtw88: {stem}', stemPart: /^rtw(\d{4}[a-z]*)/, lead: 'wifi: ', source: lore('linux-wireless', 'a chip\'s files are "wifi: rtw88: 8822c:"') },
  { under: 'drivers/net/wireless/realtek/rtw89/rtw8', prefix: 'wifi: rtw89: {stem}', stemPart: /^rtw(\d{4}[a-z]*)/, lead: 'wifi: ', source: lore('linux-wireless', 'a chip\'s files are "wifi: rtw89: 8852c:"') },
  { under: 'drivers/net/wireless/realtek/rtlwifi/', prefix: 'wifi: rtlwifi: {dir}', lead: 'wifi: ', source: lore('linux-wireless', '"wifi: rtlwifi: rtl8192de:"') },
  { under: 'drivers/net/wireless/ralink/rt2x00/', prefix: 'wifi: rt2x00', lead: 'wifi: ', source: lore('linux-wireless', '"wifi: rt2x00:"') },
  { under: 'drivers/net/can/', prefix: 'can: {driver}', strip: ['can-', 'can_'], source: lore('linux-can', 'CAN driver subjects are "can: <driver>:"') },
  { under: 'drivers/net/ieee802154/', prefix: 'ieee802154: {driver}', source: lore('linux-wpan', 'IEEE 802.15.4 driver subjects are "ieee802154: <driver>:"') },
  { under: 'drivers/net/dsa/', prefix: 'net: dsa: {dir|driver}', source: NETDEV },
  { under: 'drivers/net/phy/', prefix: 'net: phy: {dir}: {driver}', source: NETDEV },
  { under: 'drivers/net/phy/phylink.c', prefix: 'net: phylink', source: NETDEV },
  { under: 'drivers/net/phy/sfp', prefix: 'net: sfp', source: NETDEV },
  { under: 'drivers/net/phy/phy', prefix: 'net: phy', source: NETDEV },
  { under: 'drivers/net/pcs/', prefix: 'net: pcs: {stem}', strip: ['pcs-'], source: NETDEV },
  { under: 'drivers/net/mdio/', prefix: 'net: mdio: {stem}', strip: ['mdio-'], source: NETDEV },
  { under: 'drivers/net/usb/', prefix: 'net: usb: {driver}', source: NETDEV },
  { under: 'drivers/net/wwan/', prefix: 'net: wwan: {dir|driver}', source: NETDEV },
  { under: 'drivers/net/ethernet/', prefix: '{driver}', also: 'net: {driver}', source: NETDEV },
  { under: 'drivers/net/ethernet/mellanox/mlx5/core/en', prefix: 'net/mlx5e', source: lore('netdev', 'mlx5\'s Ethernet part is "net/mlx5e:", the core "net/mlx5:"') },
  { under: 'drivers/net/ethernet/stmicro/stmmac/', prefix: 'net: stmmac: {driver}', strip: ['dwmac-'], source: lore('netdev', 'stmmac subjects are "net: stmmac: <glue>:"') },
  { under: 'drivers/net/ethernet/ti/', prefix: 'net: ethernet: ti: {dir|driver}', source: lore('netdev', 'TI Ethernet subjects are "net: ethernet: ti: <driver>:"') },
  { under: 'drivers/net/', prefix: '{driver}', also: 'net: {driver}', source: NETDEV },
  { under: 'net/bluetooth/', prefix: 'Bluetooth: {stem}', source: lore('linux-bluetooth', '"Bluetooth: <file>:"') },
  { under: 'net/ipv4/tcp', prefix: 'tcp', source: lore('netdev', '"tcp:" for the TCP files of net/ipv4/') },
  { under: 'net/ipv4/udp', prefix: 'udp', source: lore('netdev', '"udp:" for the UDP files of net/ipv4/') },
  { under: 'net/ipv6/', prefix: 'ipv6', source: NETDEV },
  { under: 'net/netfilter/', prefix: 'netfilter: {driver}', source: lore('netfilter-devel', '"netfilter: <module>:", "netfilter: nf_tables:"') },
  { under: 'net/mac80211/', prefix: 'wifi: mac80211', source: { url: WIRELESS_WIKI, says: '"wifi: mac80211:"' } },
  { under: 'net/wireless/', prefix: 'wifi: {stem}', source: { url: WIRELESS_WIKI, says: '"wifi: cfg80211:", "wifi: nl80211:"' } },
  // Drivers of other subsystems.
  { under: 'drivers/acpi/', prefix: 'ACPI: {stem}', source: lore('linux-acpi', '"ACPI: <part>:"') },
  { under: 'drivers/bluetooth/', prefix: 'Bluetooth: {driver}', source: lore('linux-bluetooth', '"Bluetooth: <driver>:"') },
  { under: 'drivers/char/hw_random/', prefix: 'hwrng', named: '{driver} - ', source: lore('linux-crypto', '"hwrng: <driver> - ..."') },
  { under: 'drivers/cpufreq/amd-pstate', prefix: 'cpufreq/amd-pstate', source: lore('linux-pm', '"cpufreq/amd-pstate:"') },
  { under: 'drivers/clk/', prefix: 'clk: {dir}: {stem}', strip: ['clk-'], source: lore('linux-clk', '"clk: <vendor>: <driver>:"') },
  { under: 'drivers/crypto/', prefix: 'crypto: {dir|driver}', source: lore('linux-crypto', '"crypto: <driver> - ..."') },
  { under: 'drivers/cxl/', prefix: 'cxl/{stem}', source: lore('linux-cxl', '"cxl/<part>:"') },
  { under: 'drivers/dma/', prefix: 'dmaengine: {driver}', source: lore('dmaengine', '"dmaengine: <driver>:"') },
  { under: 'drivers/edac/', prefix: 'EDAC/{driver}', strip: ['_edac'], source: lore('linux-edac', '"EDAC/<driver>:"') },
  { under: 'drivers/firmware/', prefix: 'firmware: {dir|driver}', source: lore('linux-kernel', '"firmware: <driver>:"') },
  { under: 'drivers/gpio/', prefix: 'gpio: {driver}', strip: ['gpio-', 'gpio_'], source: { file: 'MAINTAINERS', quote: 'GPIO SUBSYSTEM' } },
  { under: 'drivers/gpio/gpiolib', prefix: 'gpiolib: {stem}', strip: ['gpiolib-'], source: lore('linux-gpio', '"gpiolib: <part>:"') },
  { under: 'drivers/gpu/drm/', prefix: 'drm/{driver}', source: { file: 'Documentation/gpu/introduction.rst', quote: 'drm' } },
  { under: 'drivers/gpu/drm/i915/', prefix: 'drm/i915/{dir}', source: lore('intel-gfx', '"drm/i915/<part>:"') },
  { under: 'drivers/hid/', prefix: 'HID: {driver}', strip: ['hid-'], source: lore('linux-input', '"HID: <driver>:"') },
  { under: 'drivers/hv/', prefix: 'Drivers: hv: {stem}', strip: ['_drv'], source: lore('linux-hyperv', '"Drivers: hv: <part>:"') },
  { under: 'drivers/hwmon/', prefix: 'hwmon', named: '({driver}) ', source: lore('linux-hwmon', '"hwmon: (<driver>) ..."') },
  { under: 'drivers/i2c/', prefix: 'i2c: {driver}', strip: ['i2c-'], source: { file: 'MAINTAINERS', quote: 'I2C SUBSYSTEM' } },
  { under: 'drivers/iio/', prefix: 'iio: {dir}: {driver}', source: lore('linux-iio', '"iio: <type>: <driver>:"') },
  { under: 'drivers/infiniband/hw/', prefix: 'RDMA/{dir}', source: lore('linux-rdma', '"RDMA/<driver>:"') },
  { under: 'drivers/input/', prefix: 'Input', named: '{driver} - ', source: lore('linux-input', '"Input: <driver> - ..."') },
  { under: 'drivers/iommu/', prefix: 'iommu/{stem}', source: lore('iommu', '"iommu/<driver>:"') },
  { under: 'drivers/iommu/intel/', prefix: 'iommu/vt-d', source: { file: 'MAINTAINERS', quote: 'INTEL IOMMU (VT-d)' } },
  { under: 'drivers/irqchip/', prefix: 'irqchip/{stem}', strip: ['irq-'], source: lore('linux-kernel', '"irqchip/<driver>:"') },
  { under: 'drivers/leds/', prefix: 'leds: {dir}: {stem}', strip: ['leds-', 'ledtrig-'], source: lore('linux-leds', '"leds: <driver>:", "leds: trigger: <name>:"') },
  { under: 'drivers/mailbox/', prefix: 'mailbox: {stem}', strip: ['-mailbox'], source: lore('linux-kernel', '"mailbox: <driver>:"') },
  { under: 'drivers/md/', prefix: 'md/{stem}', source: lore('linux-raid', '"md/raid5:"') },
  { under: 'drivers/media/', prefix: 'media: {driver}', source: lore('linux-media', '"media: <driver>:"') },
  { under: 'drivers/mtd/', prefix: 'mtd: {dir|driver}', source: lore('linux-mtd', '"mtd: spi-nor:", "mtd: <driver>:"') },
  { under: 'drivers/nvme/host/', prefix: 'nvme-{stem}', source: lore('linux-nvme', '"nvme-tcp:", "nvme-pci:"') },
  { under: 'drivers/pci/', prefix: 'PCI: {dir}', source: lore('linux-pci', '"PCI: <part>:"') },
  { under: 'drivers/pci/controller/', prefix: 'PCI: {dir|driver}', strip: ['pcie-', 'pci-'], source: lore('linux-pci', '"PCI: <controller>:"') },
  { under: 'drivers/pinctrl/', prefix: 'pinctrl: {dir}: {driver}', strip: ['pinctrl-'], source: { file: 'MAINTAINERS', quote: 'PIN CONTROL SUBSYSTEM' } },
  { under: 'drivers/platform/x86/', prefix: 'platform/x86: {driver}', source: lore('platform-driver-x86', '"platform/x86: <driver>:"') },
  { under: 'drivers/power/supply/', prefix: 'power: supply: {driver}', strip: ['_battery', '_charger'], source: lore('linux-pm', '"power: supply: <driver>:"') },
  { under: 'drivers/pwm/', prefix: 'pwm: {stem}', strip: ['pwm-'], source: lore('linux-pwm', '"pwm: <driver>:"') },
  { under: 'drivers/scsi/', prefix: 'scsi: {dir|driver}', source: lore('linux-scsi', '"scsi: <driver>:"') },
  { under: 'drivers/soc/', prefix: 'soc: {dir}: {stem}', source: lore('linux-arm-kernel', '"soc: <vendor>: <driver>:"') },
  { under: 'drivers/spi/', prefix: 'spi: {driver}', strip: ['spi-', 'spi_'], source: { file: 'MAINTAINERS', quote: 'SPI SUBSYSTEM' } },
  { under: 'drivers/thermal/', prefix: 'thermal/{stem}', strip: ['thermal_'], source: lore('linux-pm', '"thermal/core:", "thermal/drivers/<driver>:"') },
  { under: 'drivers/tty/serial/', prefix: 'serial: {driver}', source: lore('linux-serial', '"serial: <driver>:"') },
  { under: 'drivers/ufs/', prefix: 'scsi: ufs: {dir}', source: lore('linux-scsi', '"scsi: ufs: core:"') },
  { under: 'drivers/usb/', prefix: 'usb: {dir|driver}', source: lore('linux-usb', '"usb: <driver>:"') },
  { under: 'drivers/usb/serial/', prefix: 'USB: serial: {driver}', source: lore('linux-usb', '"USB: serial: <driver>:"') },
  { under: 'drivers/usb/typec/', prefix: 'usb: typec: {dir|driver}', source: lore('linux-usb', '"usb: typec: <driver>:"') },
  { under: 'drivers/vfio/', prefix: 'vfio/{dir}', source: lore('kvm', '"vfio/pci:"') },
  { under: 'drivers/virtio/', prefix: '{stem}', source: lore('virtualization', '"virtio_ring:"') },
  // Core code, architectures, filesystems, sound.
  { under: 'arch/arm64/kvm/', prefix: 'KVM: arm64', source: lore('kvmarm', '"KVM: arm64:"') },
  { under: 'arch/x86/kvm/', prefix: 'KVM: x86', source: { file: 'Documentation/process/maintainer-kvm-x86.rst', quote: 'KVM: x86:' } },
  { under: 'arch/x86/kvm/vmx/', prefix: 'KVM: VMX', source: { file: 'Documentation/process/maintainer-kvm-x86.rst', quote: 'VMX' } },
  { under: 'arch/x86/kvm/svm/', prefix: 'KVM: SVM', source: { file: 'Documentation/process/maintainer-kvm-x86.rst', quote: 'SVM' } },
  { under: 'arch/x86/events/', prefix: 'perf/x86/{dir}', source: lore('linux-perf-users', '"perf/x86/intel:"') },
  { under: 'arch/arm64/boot/dts/', prefix: 'arm64: dts: {dir}: {stem}', source: lore('linux-arm-kernel', '"arm64: dts: <vendor>: <board>:"') },
  { under: 'arch/arm/boot/dts/', prefix: 'ARM: dts: {dir}: {stem}', source: lore('linux-arm-kernel', '"ARM: dts: <vendor>: <board>:"') },
  { under: 'arch/arm64/', prefix: 'arm64: {stem}', source: lore('linux-arm-kernel', '"arm64: <part>:"') },
  { under: 'arch/riscv/', prefix: 'riscv', source: { file: 'Documentation/arch/riscv/patch-acceptance.rst', quote: 'riscv' } },
  { under: 'block/blk-mq', prefix: 'blk-mq', source: lore('linux-block', '"blk-mq:" for the blk-mq files, "block:" for the rest') },
  { under: 'crypto/', prefix: 'crypto', named: '{stem} - ', source: lore('linux-crypto', '"crypto: <part> - ..."') },
  { under: 'fs/nfs/nfs4', prefix: 'NFSv4', source: lore('linux-nfs', '"NFSv4:" for the NFSv4 client files, "NFS:" for the rest') },
  { under: 'fs/', prefix: '{dir}', source: lore('linux-fsdevel', '"btrfs:", "ext4:", "xfs:": the filesystem\'s name') },
  { under: 'fs/smb/', prefix: 'smb: {dir}', source: lore('linux-cifs', '"smb: client:"') },
  { under: 'kernel/bpf/', prefix: 'bpf', source: { file: 'Documentation/bpf/bpf_devel_QA.rst', quote: 'bpf' } },
  { under: 'kernel/events/', prefix: 'perf/{stem}', source: lore('linux-perf-users', '"perf/core:"') },
  { under: 'kernel/irq/', prefix: 'genirq', source: lore('linux-kernel', '"genirq:"') },
  { under: 'kernel/rcu/', prefix: 'rcu', source: lore('rcu', '"rcu:"') },
  { under: 'kernel/time/', prefix: '{stem}', source: lore('linux-kernel', '"hrtimer:", "timekeeping:"') },
  { under: 'kernel/trace/', prefix: 'tracing', source: lore('linux-trace-kernel', '"tracing:"') },
  { under: 'mm/', prefix: 'mm/{stem}', source: lore('linux-mm', '"mm/page_alloc:"') },
  { under: 'mm/kasan/', prefix: 'kasan', source: lore('kasan-dev', '"kasan:"') },
  { under: 'sound/pci/hda/', prefix: 'ALSA: hda/{stem}', strip: ['patch_'], source: lore('linux-sound', '"ALSA: hda/realtek:"') },
  { under: 'sound/soc/', prefix: 'ASoC: {dir}: {stem}', source: { file: 'MAINTAINERS', quote: 'SOUND - SOC LAYER / DYNAMIC AUDIO POWER MANAGEMENT (ASoC)' } },
  { under: 'sound/soc/sof/', prefix: 'ASoC: SOF: {stem}', source: lore('linux-sound', '"ASoC: SOF: <part>:"') },
  { under: 'sound/usb/', prefix: 'ALSA: usb-audio', source: lore('linux-sound', '"ALSA: usb-audio:"') },
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

/**
 * Folders of several drivers that their subsystem takes and names as one family: a tree-wide change is one patch for
 * the folder, its subject naming the folder ("wifi: iwlegacy:" for iwl3945, iwl4965 and their common module).
 */
export const FAMILIES: { under: string; source: RuleSource }[] = [
  { under: 'drivers/net/wireless/intel/ipw2x00/', source: lore('linux-wireless', '"wifi: ipw2x00:" for ipw2100, ipw2200 and libipw alike') },
  { under: 'drivers/net/wireless/intel/iwlegacy/', source: lore('linux-wireless', '"wifi: iwlegacy:" for iwl3945, iwl4965 and iwlegacy alike') },
  { under: 'drivers/net/wireless/realtek/rtl818x/', source: lore('linux-wireless', '"wifi: rtl818x:" for rtl8180 and rtl8187 alike') },
];
