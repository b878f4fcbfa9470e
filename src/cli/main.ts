// The command line: parse arguments, run one command, turn errors into one line and an exit code.
import fs from 'node:fs';
import path from 'node:path';
import yargs, { type Argv } from 'yargs';
import { processErr, processStatus, type GlobalOptions, type Io } from '../commands/io.js';
import { EXIT_BUG, EXIT_USAGE, KseriesError, UsageError } from '../errors.js';
import { checkTreePath } from '../tree/paths.js';
import { workloadNames, WORKLOADS } from '../boot/workloads.js';
import { ARCH_NAMES, DEFAULT_COMPILERS } from '../build/targets.js';

const EXAMPLES: [string, string][] = [
  ['kseries tree init', 'provision kernel-tree/ (Debian linux-source-6.12, cached in ~/.cache/kseries)'],
  ['kseries generate static-key --set file=mm/memcontrol.c --set flag=cgroup_memory_nobpf', 'make a series branch'],
  ['kseries generate static-keys --path mm', 'convert every safe flag under mm/: a series per maintainer tree, a patch per maintainer group'],
  ['kseries check static-keys-mm', 'build each patch, prove the NOPs, checkpatch, maintainers'],
  ['kseries emit static-key-cgroup_memory_nobpf', 'write out/<series>/v1/'],
  ['kseries send static-key-cgroup_memory_nobpf', 'git send-email dry run (add --send)'],
  ['kseries kprobe analyze --object kernel/sched/fair.o --all update_curr', 'which post_handler probes may move to the next instruction'],
  ['kseries review series.mbox', 'apply a received series, check every patch, write replies to out/review/'],
  ['kseries measure', 'boot the tree in QEMU: how often each static-key candidate is tested, per second of a workload'],
];

/** Command modules are imported when their command runs, so `kseries scan` does not load listr2 or simple-git. */
export async function main(argv: string[], io: Io = processIo()): Promise<number> {
  let code = 0;
  const debug = argv.includes('--debug');
  const checks = optionChecks(io);
  const opt = commonOptions(checks);
  const run =
    <A extends Record<string, unknown>>(fn: (g: GlobalOptions, a: A) => Promise<number>) =>
    async (args: A) => {
      code = await fn(globals(args), args);
    };
  const parser = yargs(argv)
    .scriptName('kseries')
    .usage('$0 <command> [options]\n\nTurn a kernel change into a mailing-list-ready patch series.')
    .option('tree', { type: 'string', coerce: checks.text('--tree'), describe: 'Linux git tree (default: $KSERIES_TREE, else ./kernel-tree)' })
    .option('json', { type: 'boolean', default: false, describe: 'machine-readable output' })
    .option('recipes', { type: 'string', coerce: checks.recipeFolders, describe: 'extra folder(s) of recipes (also $KSERIES_RECIPES)' })
    .option('debug', { type: 'boolean', default: false, describe: 'show stack traces' })
    .command('tree <action>', 'provision or show the kernel tree', (y: Argv) =>
      y
        .positional('action', { choices: ['init', 'show'] as const, demandOption: true })
        .option('from', { type: 'string', coerce: checks.folder('--from'), describe: 'use this existing Linux git tree (read only) as kernel-tree/' })
        .example('$0 tree init', 'Debian linux-source-6.12 → a git tree with one base commit, cached')
        .example('$0 tree init --from ~/src/linux', 'use your own tree'),
      run(async (g, a) => {
        const tree = await import('../commands/tree.js');
        return a.action === 'init' ? tree.treeInit(io, g, a.from) : tree.treeShow(io, g);
      }),
    )
    .command('doctor', 'check (and with --install, install) what kseries needs', (y: Argv) =>
      y.option('install', { type: 'boolean', default: false, describe: 'apt-get install what is missing (root)' }),
      run(async (g, a) => (await import('../commands/doctor.js')).doctor(io, g, a.install)),
    )
    .command('recipes [id]', 'list recipes, or show one recipe\'s parameters', (y: Argv) =>
      y
        .positional('id', { type: 'string' })
        .epilog('A recipe that does not load is shown on stderr as "broken: <id>: <why>" (in --json under "broken") and the others are still listed, exit 0; naming that recipe shows its error, exit 2.'),
      run(async (g, a) => (await import('../commands/recipes.js')).recipes(io, g, a.id)),
    )
    .command('generate <recipe>', 'render a recipe and commit it as kseries/<series>/v<N>', (y: Argv) =>
      y
        .positional('recipe', { type: 'string', demandOption: true })
        .option('set', { type: 'string', coerce: asList, describe: 'recipe parameter key=value' })
        .option('base', { type: 'string', coerce: checks.text('--base'), describe: 'commit to base the series on (default HEAD)' })
        .option('from', { type: 'string', coerce: checks.text('--from'), describe: 'author "Name <email>" (default: git config)' })
        .option('inbox', { type: 'string', coerce: asList, describe: 'a list archive (public-inbox v2; repeat): cocci leaves out the patches posted there already, naming each' })
        .option('v', opt.version('version to create, a positive integer (default: next)'))
        .option('path', { type: 'string', coerce: checks.treePaths, describe: 'scan only this folder or .c file (repeat; recipes with a "paths" parameter)' })
        .option('only', { type: 'string', coerce: asList, describe: 'convert only this flag, name or file:name (repeat; recipes with an "only" parameter)' })
        .option('build', { type: 'boolean', default: true, describe: 'build a draft to put object-code figures in the messages (--no-build to skip)' })
        .option('config', opt.config('config of that build: defconfig, allmodconfig or a .config file'))
        .option('distcc', opt.flag('compile through distcc (DISTCC_HOSTS)'))
        .option('min-rate', { type: 'string', coerce: checks.rate('--min-rate'), describe: 'static-keys without --only: flags tested at least this often per second in the measured boot instead of those on a hot path (the default); 0: every auto flag' })
        .option('toggles', { type: 'boolean', describe: 'static-keys: also convert runtime toggles (a bool module parameter, a 0/1 sysctl, a debugfs bool) with a setter, as static-key-toggle does' })
        .option('measure-config', opt.bootConfig('the kernel a recipe that measures boots first: minimal, defconfig or a .config file'))
        .option('workload', opt.workload('what that booted kernel runs while it is measured'))
        .example('$0 generate static-key --set file=mm/memcontrol.c --set flag=cgroup_memory_nobpf', '')
        .example('$0 generate static-keys --path mm --path kernel/trace', 'every auto flag there on a hot path of a booted kernel (a test per 100 syscalls, page allocations, packets, ...): a series per maintainer tree, a patch per maintainer group')
        .example('$0 generate static-keys --min-rate 1000', 'only flags tested at least 1000 times per second of the default workload')
        .example('$0 generate static-keys --toggles --path fs', 'boot-time flags and runtime toggles under fs/ on a hot path')
        .example('$0 generate static-keys --only cgroup_memory_nosocket --only percpu:pcpu_async_enabled', ''),
      run(async (g, a) =>
        (await import('../commands/series.js')).generate(io, g, {
          recipe: a.recipe,
          set: a.set ?? [],
          paths: a.path ?? [],
          only: a.only ?? [],
          minRate: a['min-rate'],
          toggles: a.toggles === true,
          base: a.base,
          from: a.from,
          version: a.v,
          measure: a.build ? { config: a.config, distcc: a.distcc } : undefined,
          // Only what it may convert is measured: auto flags, and with --toggles the manual ones too (a bigger kernel).
          runtime: a.build ? { config: a['measure-config'], workload: a.workload, candidates: a.toggles === true ? 'all' : 'auto' } : undefined,
          ...(a.inbox ? { inbox: a.inbox } : {}),
        }),
      ),
    )
    .command('split [range]', 'cut a change you made into one series per tree that applies it, one patch per driver', (y: Argv) =>
      y
        .positional('range', { type: 'string', coerce: checks.text('range'), describe: 'a commit (its parent..it) or a range A..B (default with --worktree: your uncommitted changes)' })
        .option('worktree', { type: 'boolean', default: false, describe: "the checkout's uncommitted changes to tracked files, against HEAD" })
        .option('by', { type: 'string', choices: ['group', 'tree', 'file'] as const, default: 'group' as const, describe: 'one patch per driver (default: the module each file builds into), per tree, or per file' })
        .option('subject', { type: 'string', coerce: checks.text('--subject'), describe: 'Handlebars template of each subject (default "{{prefix}}: {{title}}"; variables title, prefix, files, treeName, body, needs)' })
        .option('body', { type: 'string', coerce: checks.text('--body'), describe: 'Handlebars template of each message body (default: the commit\'s body, and what the patch needs of earlier ones)' })
        .option('series', { type: 'string', coerce: checks.text('--series'), describe: 'name of the series (default split-<title>); one per tree gets the tree after it' })
        .option('prefix', { type: 'string', coerce: checks.text('--prefix'), describe: "subject prefix of every patch (default: the files' history, else the subsystem's conventions and the driver's name)" })
        .option('inbox', { type: 'string', coerce: asList, describe: 'a list archive (public-inbox v2; repeat): leave out the patches posted there already, naming each; on a tree without history, the subjects posted for the files stand in for it' })
        .option('from', { type: 'string', coerce: checks.text('--from'), describe: 'author "Name <email>" (default: git config)' })
        .option('v', opt.version('version to create, a positive integer (default: next)'))
        .example('$0 split HEAD', 'your last commit, one series per tree that takes its files')
        .example('$0 split --worktree --subject "{{prefix}}: Use str_on_off()" --body "The helper says it in one word."', 'your uncommitted changes')
        .example('$0 split v6.12..my-branch --by tree --subject "{{prefix}}: Drop foo" --body "foo() has no caller."', 'several commits as one change, a patch per tree'),
      run(async (g, a) => (await import('../commands/series.js')).split(io, g, { range: a.range, worktree: a.worktree, by: a.by, subject: a.subject, body: a.body, series: a.series, prefix: a.prefix, from: a.from, version: a.v, ...(a.inbox ? { inboxes: a.inbox } : {}) })),
    )
    .command('series', 'list generated series and their versions', {}, run(async (g) => (await import('../commands/series.js')).series(io, g)))
    .command('emit [series]', 'write out/<series>/v<N>/: patches, cover letter, series.mbox', (y: Argv) =>
      y
        .positional('series', { type: 'string', describe: 'series name (default: the newest)' })
        .option('v', opt.version('version, a positive integer (default: newest)'))
        .option('out', opt.out('output folder (default ./out)'))
        .option('rfc', { type: 'boolean', describe: 'subjects [RFC PATCH ...] (default: as the recipe says; --no-rfc)' })
        .option('subject-prefix', { type: 'string', coerce: checks.text('--subject-prefix'), describe: 'instead of PATCH, e.g. "PATCH net-next"' })
        .option('cc-all', { type: 'boolean', describe: "every patch to everyone the series' code patches go to, linux-doc only on documentation patches (default: as the recipe says; --no-cc-all)" })
        .option('notes', { type: 'string', coerce: asList, describe: 'a change since the previous version (repeat)' })
        .option('force', { type: 'boolean', default: false, describe: 'emit even though the last kseries check failed' })
        .option('inbox', { type: 'string', coerce: asList, describe: 'a list archive (public-inbox v2; repeat): name the patches posted there already (same change, same lines, or same subject for the same files), which send then refuses without --force; and who applies the series entries today: silent maintainers are named, with who applies instead' })
        .option('to-applier', opt.flag("with --inbox: who applies each entry's patches today (its applied replies and its trees' pull requests, in the archives' last year), To: on every message"))
        .option('to', { type: 'string', coerce: asList, describe: 'extra To for every message' })
        .option('cc', { type: 'string', coerce: asList, describe: 'extra Cc for every message' })
        .example('$0 emit static-key-cgroup_memory_nobpf --notes "keep the _RO variant"', ''),
      run(async (g, a) =>
        (await import('../commands/series.js')).emit(io, g, {
          series: a.series,
          version: a.v,
          out: a.out,
          rfc: a.rfc,
          ccAll: a['cc-all'],
          subjectPrefix: a['subject-prefix'],
          notes: a.notes ?? [],
          to: a.to ?? [],
          cc: a.cc ?? [],
          force: a.force,
          ...(a.inbox ? { inbox: a.inbox } : {}),
          toApplier: a['to-applier'],
        }),
      ),
    )
    .command('send [series]', 'hand an emitted series to git send-email (dry run unless --send)', (y: Argv) =>
      y
        .positional('series', { type: 'string' })
        .option('v', opt.version('version, a positive integer (default: newest)'))
        .option('out', opt.out('output folder (default ./out)'))
        .option('send', { type: 'boolean', default: false, describe: 'really send' })
        .option('force', { type: 'boolean', default: false, describe: 'send even from a placeholder address (a reserved domain such as .example, or noreply)' })
        .option('smtp-server', { type: 'string', coerce: checks.text('--smtp-server') })
        .option('smtp-port', { type: 'string', coerce: checks.port('--smtp-port'), describe: 'an integer 1..65535' })
        .option('smtp-encryption', { type: 'string', choices: ['none', 'ssl', 'tls'] as const }),
      run(async (g, a) =>
        (await import('../commands/series.js')).send(io, g, {
          series: a.series,
          version: a.v,
          out: a.out,
          send: a.send,
          force: a.force,
          smtpServer: a['smtp-server'],
          smtpPort: a['smtp-port'],
          smtpEncryption: a['smtp-encryption'],
        }),
      ),
    )
    .command('check [series]', 'validate every patch: build, new W=1 warnings, checkpatch, message rules, recipients', (y: Argv) =>
      y
        .positional('series', { type: 'string', describe: 'series name (default: the newest)' })
        .option('v', opt.version('version, a positive integer (default: newest)'))
        .option('range', { type: 'string', coerce: checks.range, describe: 'check base..tip of the tree instead of a series' })
        .option('out', opt.out('output folder (default ./out): report.json goes beside the series'))
        .option('config', opt.config('defconfig, allmodconfig or a .config file'))
        .option('full', { type: 'boolean', default: false, describe: 'build every dependent of a changed header' })
        .option('strict', opt.flag('checkpatch --strict'))
        .option('build', { type: 'boolean', default: true, describe: 'build each patch (--no-build to skip)' })
        .option('distcc', opt.flag('compile through distcc (DISTCC_HOSTS)'))
        .option('compilers', opt.compilers())
        .option('arches', opt.arches())
        .option('sides', opt.sides())
        .option('kunit', { type: 'string', coerce: checks.kunit, describe: 'also run KUnit with this .kunitconfig on the base and the tip (a recipe may ask for it; --no-kunit skips)' })
        .option('boot', { type: 'string', coerce: checks.boot, describe: 'a series that adds a static key boots in this config family + lockdep: minimal (default), defconfig or a .config file (--no-boot skips)' })
        .option('fresh', opt.flag('build, boot and run KUnit again even where the same trees and configuration were checked before (their results are kept)'))
        .option('dry-run', opt.flag('print the build plan of this check (each kernel and object build, why, what the cache holds) and stop'))
        .example('$0 check kprobe-post', 'per-patch builds, then KUnit on the base and the series under QEMU')
        .example('$0 check --range v6.12.117..my-branch --kunit lib/kunit/.kunitconfig', '')
        .example('$0 check static-key-cgroup_memory_nobpf', '')
        .example('$0 check --range v6.12.117..my-branch --strict', '')
        .example('$0 check --range v6.12.117..my-branch --arches i386,arm64 --compilers gcc', 'generic files on i386 and arm64 too, without clang')
        .check(checks.rangeAlone),
      run(async (g, a) =>
        (await import('../commands/check.js')).check(io, g, {
          series: a.series,
          version: a.v,
          range: a.range,
          out: a.out,
          config: a.config,
          full: a.full,
          strict: a.strict,
          build: a.build,
          distcc: a.distcc,
          compilers: a.compilers,
          arches: a.arches,
          sides: a.sides,
          kunit: a.kunit,
          boot: a.boot ?? 'minimal',
          fresh: a.fresh,
          dryRun: a['dry-run'],
        }),
      ),
    )
    .command('scan <what>', 'find candidates tree-wide: static-keys (flags tested in branches), each with a verdict', (y: Argv) =>
      y
        .positional('what', { choices: ['static-keys'] as const, demandOption: true })
        .option('path', { type: 'string', coerce: checks.treePaths, describe: 'only this folder or .c file of the tree (repeat)' })
        .option('rev', { type: 'string', coerce: checks.text('--rev'), describe: 'scan this commit instead of the working tree' })
        .option('measure', { type: 'boolean', default: false, describe: 'add hits per candidate from a booted kernel (kseries measure; HEAD or --rev)' })
        .option('config', opt.bootConfig('with --measure: minimal, defconfig or a .config file'))
        .option('workload', opt.workload('with --measure: what the booted kernel runs'))
        .option('candidates', opt.candidates('with --measure: the kernel of all candidates\' objects, or of the auto flags\' only (smaller)'))
        .example('$0 scan static-keys --path mm --json', '')
        .example('$0 scan static-keys --rev v6.12.117', '')
        .example('$0 scan static-keys --measure --json', 'each candidate with hits: { boot, perSecond, workload, config }'),
      run(async (g, a) =>
        (await import('../commands/scan.js')).scan(io, g, {
          paths: a.path ?? [],
          rev: a.rev,
          measure: a.measure ? { config: a.config, workload: a.workload, candidates: a.candidates } : undefined,
        }),
      ),
    )
    .command('measure', 'boot the tree in QEMU and count how often each static-key candidate\'s test runs', (y: Argv) =>
      y
        .option('config', opt.bootConfig('minimal (tinyconfig + kvm_guest.config + lockdep + the candidates\' objects: the kernel check boots series in), defconfig, or a .config file'))
        .option('workload', opt.workload(`what the booted kernel runs: ${Object.values(WORKLOADS).map((w) => `${w.name} (${w.what})`).join('; ')}`))
        .option('rev', { type: 'string', coerce: checks.text('--rev'), describe: 'measure this commit (default HEAD)' })
        .option('fresh', opt.flag('boot again even when this commit, config and workload were measured before'))
        .option('candidates', opt.candidates('count all auto and manual candidates, or only the auto ones (a smaller minimal kernel: what generate static-keys measures)'))
        .example('$0 measure', 'build the minimal kernel (cached), boot it, print each candidate\'s hits per second')
        .example('$0 measure --candidates auto', 'only the flags generate static-keys converts: a kernel built in a third of the time')
        .example('$0 measure --workload boot --json', 'hits until init only'),
      run(async (g, a) =>
        (await import('../commands/measure.js')).measureCommand(io, g, {
          config: a.config,
          workload: a.workload,
          rev: a.rev,
          fresh: a.fresh,
          candidates: a.candidates,
        }),
      ),
    )
    .command('kprobe <action> [dir]', 'kprobes: may a post_handler probe move to the next instruction (analyze); the census of a folder of objects or modules (census)', (y: Argv) =>
      y
        .positional('action', { choices: ['analyze', 'census'] as const, demandOption: true })
        .positional('dir', { type: 'string', describe: 'census: a build folder, or a folder of modules (.ko, .ko.xz, .ko.zst)' })
        .option('object', { type: 'string', coerce: checks.text('--object'), describe: 'analyze: an object file, or a tree-relative object (mm/slub.o) built from HEAD' })
        .option('site', { type: 'string', coerce: asList, describe: 'SYMBOL+OFFSET, offset decimal or 0x hex (repeat)' })
        .option('all', { type: 'string', coerce: asList, describe: 'every instruction of this function (repeat; --all "" for every function)' })
        .option('config', opt.config('config that builds a tree-relative object'))
        .example('$0 kprobe analyze --object kernel/sched/fair.o --site update_curr+0x1a', 'one site: safe or unsafe, with every reason')
        .example('$0 kprobe analyze --object mm/slub.o --all kmem_cache_free --json', 'every instruction of a function')
        .example('$0 kprobe analyze --object ./foo.o --all ""', 'every instruction of every function')
        .example('$0 kprobe census ./lib/modules/6.1.0-57-cloud-amd64/kernel', "a distribution's modules: .cold parts, and the sites the .cold fix newly refuses"),
      run(async (g, a) => {
        if (a.action === 'census') {
          if (!a.dir) throw new UsageError('kprobe census needs a folder', 'e.g. kseries kprobe census ./lib/modules/<release>/kernel');
          return (await import('../commands/kprobe-census.js')).kprobeCensusCommand(io, g, { dir: a.dir });
        }
        if (!a.object) throw new UsageError('kprobe analyze needs --object', 'e.g. kseries kprobe analyze --object kernel/sched/fair.o --all update_curr');
        return (await import('../commands/kprobe.js')).kprobeAnalyze(io, g, {
          object: a.object,
          sites: a.site ?? [],
          all: a.all ?? [],
          config: a.config,
        });
      }),
    )
    .command('review [mailbox]', 'review a received series: apply it, check every patch, write a report and reply mails', (y: Argv) =>
      y
        .positional('mailbox', { type: 'string', describe: 'an mbox (mboxo/mboxrd), a Maildir, a folder of .patch files, or - for stdin; with --inbox, the Message-Id of a message of the series' })
        .option('inbox', { type: 'string', coerce: asList, describe: "a list archive (public-inbox v2: a git clone --mirror of lore's <list>/0, or a folder of N.git epochs; repeat): review the thread of the Message-Id given" })
        .option('base', { type: 'string', coerce: checks.text('--base'), describe: "base when the series names no base-commit this tree has (default: the tree's HEAD, with a warning)" })
        .option('v', opt.version('review this version of the series when the mailbox holds several (default: the newest)'))
        .option('copy', { type: 'string', coerce: checks.copy, describe: 'of a version sent more than once, review this copy: 1 the oldest (default: the newest)' })
        .option('out', opt.out('output folder (default ./out): replies and report.json go to out/review/<series>/v<N>/'))
        .option('config', opt.config('defconfig, allmodconfig or a .config file'))
        .option('build', { type: 'boolean', default: true, describe: 'build each patch in a bubblewrap sandbox (--no-build: apply, checkpatch, rules, recipients only)' })
        .option('trust', { type: 'boolean', default: false, describe: 'you vouch for the code: build without the sandbox (where bubblewrap is missing, or for distcc)' })
        .option('distcc', opt.flag('compile through distcc (DISTCC_HOSTS; with --trust: the sandbox has no network)'))
        .option('compilers', opt.compilers())
        .option('arches', opt.arches())
        .option('sides', opt.sides())
        .option('strict', opt.flag('checkpatch --strict'))
        .option('reply-all', { type: 'boolean', default: false, describe: 'copy the lists and people of the original mail (default: the author only)' })
        .option('from', { type: 'string', coerce: checks.text('--from'), describe: 'reviewer "Name <email>" of the replies (default: git config)' })
        .option('b4-check', { type: 'boolean', default: false, describe: "one message on stdin, b4's review-CI JSON out (apply, checkpatch, rules)" })
        .check((a) => {
          if (!a['b4-check'] && a.mailbox === undefined) throw new UsageError(a.inbox ? 'review --inbox needs the Message-Id of a message of the series' : 'review needs a mailbox', a.inbox ? 'kseries review --inbox ARCHIVE <message-id>' : 'kseries review series.mbox  (- for stdin; --b4-check reads one message on stdin)');
          if (a['b4-check'] && a.inbox) throw new UsageError('--b4-check reads stdin and takes no --inbox', 'kseries review --b4-check < patch.eml');
          if (a['b4-check'] && a.mailbox !== undefined) throw new UsageError('--b4-check reads stdin and takes no mailbox', 'kseries review --b4-check < patch.eml');
          return true;
        })
        .example('$0 review series.mbox', 'apply on its base-commit, build, checkpatch; replies in out/review/<series>/v<N>/')
        .example('b4 mbox <msgid> -o - | $0 review - --no-build', 'quick: apply, checkpatch, rules and recipients only')
        .example('$0 review --b4-check < 0001-foo.patch', "b4's per-patch check")
        .example('$0 review --inbox linux-wpan.git <message-id> --no-build', "a series straight from a list archive's git"),
      run(async (g, a) =>
        (await import('../commands/review.js')).review(io, g, {
          input: a.mailbox,
          base: a.base,
          version: a.v,
          copy: a.copy as number | undefined,
          out: a.out,
          config: a.config,
          build: a.build,
          trust: a.trust,
          distcc: a.distcc,
          compilers: a.compilers,
          arches: a.arches,
          sides: a.sides,
          strict: a.strict,
          replyAll: a['reply-all'],
          from: a.from,
          b4Check: a['b4-check'],
          ...(a.inbox ? { inbox: a.inbox } : {}),
        }),
      ),
    )
    .command('watch', 'a review bot over list archives: review each complete new series once, in order, and remember where it stopped', (y: Argv) =>
      y
        .option('inbox', { type: 'string', coerce: asList, demandOption: true, describe: "a list archive (public-inbox v2: a git clone --mirror of lore's <list>/0, or a folder of N.git epochs; repeat); fetched first where it has a remote" })
        .option('since', { type: 'string', coerce: checks.text('--since'), describe: 'on the first cycle, leave threads begun before this date (2026-01-01) alone' })
        .option('once', opt.flag('one cycle, then stop (default: a cycle every --interval seconds)'))
        .option('interval', { type: 'number', default: 300, describe: 'seconds between cycles' })
        .option('limit', { type: 'number', describe: 'review at most this many series a cycle (the rest in the next)' })
        .option('state', { type: 'string', coerce: checks.text('--state'), describe: 'where the bot keeps what it read and reviewed (default <out>/review/watch)' })
        .option('out', opt.out('output folder (default ./out): each review in out/review/<series>/v<N>/'))
        .option('config', opt.config('defconfig, allmodconfig or a .config file'))
        .option('build', { type: 'boolean', default: true, describe: 'build each patch in a bubblewrap sandbox, through distcc where DISTCC_HOSTS is set (--no-build: apply, checkpatch, rules, recipients only)' })
        .option('trust', { type: 'boolean', default: false, describe: 'build without the sandbox' })
        .option('compilers', opt.compilers())
        .option('arches', opt.arches())
        .option('strict', opt.flag('checkpatch --strict'))
        .option('reply-all', { type: 'boolean', default: false, describe: 'copy the lists and people of the original mail in the draft replies' })
        .option('from', { type: 'string', coerce: checks.text('--from'), describe: 'reviewer "Name <email>" of the replies (default: git config)' })
        .example('$0 watch --inbox linux-wpan.git --since 2026-06-01 --once --no-build', 'one cycle over a mirror of lore.kernel.org/linux-wpan/0'),
      run(async (g, a) =>
        (await import('../commands/watch.js')).watch(io, g, {
          inbox: a.inbox,
          since: a.since,
          once: a.once,
          interval: a.interval,
          limit: a.limit,
          state: a.state,
          out: a.out,
          build: a.build,
          trust: a.trust,
          config: a.config,
          compilers: a.compilers,
          arches: a.arches,
          strict: a.strict,
          replyAll: a['reply-all'],
          from: a.from,
        }),
      ),
    )
    .command('start', 'the main job: set up, provision the tree, generate, check and emit the built-in series', (y: Argv) =>
      y
        .option('dry-run', opt.flag('print the build plan (each kernel, why, its objects, what the cache holds, what it took here) and stop'))
        .example('$0 start --dry-run', 'what npm start will build, before it builds'),
      run(async (g, a) => (await import('../commands/start.js')).start(io, g, { dryRun: a['dry-run'] })),
    )
    .command('plan-builds', "print npm start's build plan: each kernel and object build, why, its objects, what the cache holds", {}, run(async (g) => (await import('../commands/start.js')).start(io, g, { dryRun: true })))
    .command('cache', "what kseries keeps in its cache (~/.cache/kseries or $KSERIES_CACHE): build folders, sources, results, ccache", (y: Argv) =>
      y
        .option('prune', { type: 'string', coerce: checks.count('--prune'), describe: 'keep the N folders used last of each build configuration and of the KUnit kernels; remove the rest' })
        .example('$0 cache', 'each build folder with its size and when it was last used')
        .example('$0 cache --prune 4', 'keep the 4 folders used last per configuration'),
      run(async (g, a) => (await import('../commands/cache.js')).cache(io, g, { prune: a.prune as number | undefined })),
    )
    .demandCommand(1, 'name a command')
    .strict()
    .exitProcess(false)
    .wrap(Math.min(120, process.stdout.columns || 100))
    .fail((msg, err) => {
      throw checks.refusal(err) ?? usageErrorFromYargs(msg, argv);
    });
  for (const [cmd, what] of EXAMPLES) parser.example(cmd, what);
  try {
    await parser.parseAsync(argv, {}, (err, _args, output) => {
      if (output && !err) io.out(output.trimEnd());
    });
    return code;
  } catch (e) {
    return reportError(io, e, debug);
  }
}

/**
 * yargs' own refusal (unknown argument, missing or bad positional, a value outside `choices`) as one line: its
 * "Invalid values:" block becomes `--option "value": not one of a, b`.
 */
function usageErrorFromYargs(msg: string, argv: readonly string[]): UsageError {
  const lines = msg.split('\n').map((l) => l.trim()).filter(Boolean);
  const choice = /^Argument: (\S+), Given: (.*), Choices: (.*)$/;
  const parts = lines.filter((l) => l !== 'Invalid values:').map((l) => {
    const m = choice.exec(l);
    if (!m) return l;
    const [, name, given, choices] = m as unknown as [string, string, string, string];
    const flag = name.length === 1 ? `-${name}` : `--${name}`;
    const asOption = argv.some((a) => a === flag || a.startsWith(`${flag}=`) || a === `--no-${name}`);
    return `${asOption ? flag : name} ${given}: not one of ${choices.replace(/"/g, '')}`;
  });
  return new UsageError(parts.join('; '), 'see kseries --help');
}

function reportError(io: Io, e: unknown, debug: boolean): number {
  if (e instanceof KseriesError) {
    io.err(`kseries: ${e.message}`);
    io.err(`hint: ${e.hint}`);
    if (debug && e.stack) io.err(e.stack);
    return e.exitCode;
  }
  if (e instanceof Error && e.name === 'YError') {
    io.err(`kseries: ${e.message.split('\n').map((l) => l.trim()).filter(Boolean).join('; ')}`);
    io.err('hint: see kseries --help');
    return EXIT_USAGE;
  }
  io.err(`kseries: internal error (a bug): ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
  return EXIT_BUG;
}

/** A repeatable option (`--set a=1 --set b=2`) as a list; not yargs' `array`, which would swallow the command. */
function asList(v: unknown): string[] {
  if (v === undefined) return [];
  return (Array.isArray(v) ? v : [v]).map(String);
}

/** The options several commands share, declared once: -v, --out, --config (a build's, or a boot's), --workload... */
function commonOptions(checks: ReturnType<typeof optionChecks>) {
  return {
    version: (describe: string) => ({ alias: 'series-version', type: 'string', coerce: checks.seriesVersion, describe }) as const,
    out: (describe: string) => ({ type: 'string', coerce: checks.text('--out'), describe }) as const,
    config: (describe: string) => ({ type: 'string', default: 'defconfig', coerce: checks.config, describe }) as const,
    bootConfig: (describe: string) => ({ type: 'string', default: 'minimal', coerce: checks.bootConfig, describe }) as const,
    workload: (describe: string) => ({ type: 'string', default: 'default', choices: workloadNames(), describe }) as const,
    candidates: (describe: string) => ({ choices: ['all', 'auto'] as const, default: 'all' as const, describe }),
    flag: (describe: string) => ({ type: 'boolean', default: false, describe }) as const,
    compilers: () => ({ type: 'string', default: DEFAULT_COMPILERS.join(','), coerce: checks.compilers, describe: `compilers each x86-64 object is built with: gcc, clang (LLVM=1), where installed; gcc always (default ${DEFAULT_COMPILERS.join(',')})` }) as const,
    sides: () => ({ type: 'boolean', default: true, describe: 'build the touched objects once more with the CONFIG_ symbols their lines depend on flipped (PM, OF, ...; i386 where a line depends on the word size), and a COMPILE_TEST driver of x86 on riscv or arm64, as 0-day\'s random configurations and allmodconfig would, once at the range\'s tip as the robot builds a series\' head (--no-sides skips)' }) as const,
    arches: () => ({ type: 'string', coerce: checks.arches, describe: `machines each file outside arch/ is built for too, comma-separated: ${ARCH_NAMES.filter((a) => a !== 'x86_64').join(', ')}, or all (those with a compiler here); default: what the series' recipe names, else none` }) as const,
  };
}

/**
 * The checks of the option table, run by yargs (`coerce`, `check`) while it parses, so a bad value is refused before
 * any command starts, naming the option. yargs re-throws an error of a `coerce` as a bare YError of the same message;
 * `refusal` gives the fail handler the original back, with its class and hint.
 */
function optionChecks(io: Io) {
  let refused: KseriesError | undefined;
  const checked =
    <T>(fn: (v: unknown) => T) =>
    (v: unknown): T => {
      try {
        return fn(v);
      } catch (e) {
        if (e instanceof KseriesError) refused = e;
        throw e;
      }
    };
  const file = (p: string) => fs.statSync(path.resolve(io.cwd, p), { throwIfNoEntry: false });
  const bootConfig = (s: string, name: string) => {
    if (s === 'minimal' || s === 'defconfig' || file(s)?.isFile()) return s;
    throw new UsageError(`${name} ${shown(s)}: neither minimal, defconfig nor a file`, 'give minimal (the default), defconfig or the path of a .config file');
  };
  return {
    refusal: (err: Error | undefined): Error | undefined => (err && refused?.message === err.message ? refused : err),

    /** A value an option takes once: given twice, empty or negated (`--no-out`), it is refused. */
    text: (name: string) => checked((v) => single(v, name)),

    /** -v/--series-version of generate, emit, send and check: 1, 2, 3... */
    seriesVersion: checked((v) => {
      const s = single(v, '-v/--series-version');
      if (!/^[1-9][0-9]*$/.test(s) || !Number.isSafeInteger(Number(s))) {
        throw new UsageError(`-v/--series-version ${shown(s)}: not a positive integer`, 'a series version is 1, 2, 3...; leave -v out for the default');
      }
      return Number(s);
    }),

    /** --copy of review: which copy of a version sent more than once, 1 the oldest. */
    copy: checked((v) => {
      const s = single(v, '--copy');
      if (!/^[1-9][0-9]*$/.test(s) || !Number.isSafeInteger(Number(s))) throw new UsageError(`--copy ${shown(s)}: not a positive integer`, 'a copy is 1 (the oldest sent), 2, 3...; leave --copy out for the newest');
      return Number(s);
    }),

    /** A count of things to keep: 0, 1, 2... */
    count: (name: string) =>
      checked((v) => {
        const s = single(v, name);
        if (!/^[0-9]+$/.test(s) || !Number.isSafeInteger(Number(s))) throw new UsageError(`${name} ${shown(s)}: not a count`, 'give a whole number >= 0, e.g. 4');
        return Number(s);
      }),

    port: (name: string) =>
      checked((v) => {
        const s = single(v, name);
        const n = Number(s);
        if (!/^[0-9]+$/.test(s) || n < 1 || n > 65535) throw new UsageError(`${name} ${shown(s)}: not a port number`, 'give an integer 1..65535, e.g. 587');
        return n;
      }),

    /** --compilers gcc,clang: gcc always builds (the proofs read its objects); clang too when named. */
    compilers: checked((v) => {
      const names = single(v, '--compilers').split(',').map((x) => x.trim());
      const bad = names.find((x) => x !== 'gcc' && x !== 'clang');
      if (bad !== undefined) throw new UsageError(`--compilers: unknown compiler ${shown(bad)}`, 'give gcc, clang or gcc,clang');
      return [...new Set(['gcc', ...names])];
    }),

    /** --arches i386,arm64: Kbuild ARCH names, or all. */
    arches: checked((v) => {
      const names = single(v, '--arches').split(',').map((x) => x.trim());
      if (names.length === 1 && names[0] === 'all') return names;
      const bad = names.find((x) => !ARCH_NAMES.includes(x));
      if (bad !== undefined) throw new UsageError(`--arches: unknown architecture ${shown(bad)}`, `give Kbuild ARCH names (${ARCH_NAMES.join(', ')}) or all`);
      return names.filter((x) => x !== 'x86_64');
    }),

    /** --config: defconfig, allmodconfig or an existing file (kept as given: it is named in commit messages). */
    config: checked((v) => {
      const s = single(v, '--config');
      if (s === 'defconfig' || s === 'allmodconfig' || file(s)?.isFile()) return s;
      throw new UsageError(`--config ${shown(s)}: neither defconfig, allmodconfig nor a file`, 'give defconfig, allmodconfig or the path of a .config file');
    }),

    /** --config of a boot: minimal, defconfig or an existing file. */
    bootConfig: checked((v) => bootConfig(single(v, '--config'), '--config')),

    /** --boot CONFIG of check (as bootConfig); --no-boot is false. */
    boot: checked((v) => (v === false ? false : bootConfig(single(v, '--boot'), '--boot'))),

    /** A rate in hits per second: a whole number >= 0. */
    rate: (name: string) =>
      checked((v) => {
        const s = single(v, name);
        if (!/^[0-9]+$/.test(s) || !Number.isSafeInteger(Number(s))) throw new UsageError(`${name} ${shown(s)}: not a rate`, 'give hits per second as a whole number >= 0, e.g. 100');
        return Number(s);
      }),

    /** --kunit FILE or a folder holding .kunitconfig; --no-kunit is false. */
    kunit: checked((v) => {
      if (v === false) return false;
      const s = single(v, '--kunit');
      const st = file(s);
      if (st?.isFile() || (st?.isDirectory() && file(path.join(s, '.kunitconfig'))?.isFile())) return s;
      throw new UsageError(`--kunit ${shown(s)}: no such .kunitconfig`, 'give a file of CONFIG_X=y lines, or a folder holding .kunitconfig');
    }),

    /** --recipes DIR (repeatable): existing folders, made absolute. */
    recipeFolders: checked((v) =>
      asList(v).map((d) => {
        if (d === '' || !file(d)?.isDirectory()) throw new UsageError(`--recipes ${shown(d)}: no such folder`, 'give a folder that holds recipe folders (each with a manifest.json)');
        return path.resolve(io.cwd, d);
      }),
    ),

    folder: (name: string) =>
      checked((v) => {
        const s = single(v, name);
        if (!file(s)?.isDirectory()) throw new UsageError(`${name} ${shown(s)}: no such folder`, 'give the top of a Linux git tree');
        return s;
      }),

    /** --path (repeatable): relative paths inside the tree; whether they exist is known once the tree is open. */
    treePaths: checked((v) => asList(v).map((p) => checkTreePath(p, '--path'))),

    range: checked((v) => {
      const s = single(v, '--range');
      if (!/^.+\.\..+$/.test(s)) throw new UsageError(`--range ${shown(s)}: not base..tip`, 'e.g. --range v6.12.117..my-branch');
      return s;
    }),

    /** check --range checks commits, not a series: a series, its version or --out beside it would be ignored. */
    rangeAlone: (a: Record<string, unknown>) => {
      if (a.range === undefined) return true;
      const extra = [a.series !== undefined && `series ${String(a.series)}`, a.v !== undefined && '-v', a.out !== undefined && '--out'].filter(Boolean);
      if (extra.length) throw new UsageError(`--range checks commits, not a series: ${extra.join(', ')} would be ignored`, 'give either --range base..tip or a series (with -v, --out)');
      return true;
    },
  };
}

/** The one value of an option that takes one (yargs makes a list of a repeated option, and false of --no-x). */
function single(v: unknown, name: string): string {
  if (Array.isArray(v)) throw new UsageError(`${name} given ${v.length} times (${v.map((x) => shown(String(x))).join(', ')})`, `give ${name} once`);
  if (typeof v === 'boolean') throw new UsageError(`${name} needs a value`, 'see kseries --help');
  const s = String(v);
  if (s === '') throw new UsageError(`${name} needs a value, not ""`, 'see kseries --help');
  return s;
}

/** A value as the user typed it; quoted when it is empty or holds blanks. */
function shown(s: string): string {
  return s === '' || /\s/.test(s) ? JSON.stringify(s) : s;
}

/** The global options: declared on the parser, not on each command's builder, so read here by name. */
function globals(args: Record<string, unknown>): GlobalOptions {
  const { tree, json, recipes } = args as { tree?: string; json?: boolean; recipes?: string[] };
  return { tree, json: json === true, recipes: recipes ?? [] };
}

function processIo(): Io {
  return {
    out: (t) => process.stdout.write(`${t}\n`),
    err: processErr,
    ...(process.stderr.isTTY ? { status: processStatus } : {}),
    cwd: process.cwd(),
    env: process.env,
  };
}
