// The command line: parse arguments, run one command, turn errors into one line and an exit code.
import yargs, { type Argv } from 'yargs';
import { processErr, type GlobalOptions, type Io } from '../commands/io.js';
import { EXIT_BUG, EXIT_USAGE, KseriesError } from '../errors.js';

const EXAMPLES: [string, string][] = [
  ['kseries tree init', 'provision kernel-tree/ (Debian linux-source-6.12, cached in ~/.cache/kseries)'],
  ['kseries generate static-key --set file=mm/memcontrol.c --set flag=cgroup_memory_nobpf', 'make a series branch'],
  ['kseries generate static-keys --path mm', 'convert every safe flag under mm/, one patch per maintainer group'],
  ['kseries check static-keys-mm', 'build each patch, prove the NOPs, checkpatch, maintainers'],
  ['kseries emit static-key-cgroup_memory_nobpf', 'write out/<series>/v1/'],
  ['kseries send static-key-cgroup_memory_nobpf', 'git send-email dry run (add --send)'],
  ['kseries kprobe analyze --object kernel/sched/fair.o --all update_curr', 'which post_handler probes may move to the next instruction'],
];

/** Command modules are imported when their command runs, so `kseries scan` does not load listr2 or simple-git. */
export async function main(argv: string[], io: Io = processIo()): Promise<number> {
  let code = 0;
  const debug = argv.includes('--debug');
  const run = (fn: (g: GlobalOptions, a: Record<string, unknown>) => Promise<number>) => async (args: Record<string, unknown>) => {
    code = await fn(globals(args), args);
  };
  const parser = yargs(argv)
    .scriptName('kseries')
    .usage('$0 <command> [options]\n\nTurn a kernel change into a mailing-list-ready patch series.')
    .option('tree', { type: 'string', describe: 'Linux git tree (default: $KSERIES_TREE, else ./kernel-tree)' })
    .option('json', { type: 'boolean', default: false, describe: 'machine-readable output' })
    .option('recipes', { type: 'string', coerce: asList, describe: 'extra folder(s) of recipes (also $KSERIES_RECIPES)' })
    .option('debug', { type: 'boolean', default: false, describe: 'show stack traces' })
    .command('tree <action>', 'provision or show the kernel tree', (y: Argv) =>
      y
        .positional('action', { choices: ['init', 'show'] as const, demandOption: true })
        .option('from', { type: 'string', describe: 'use this existing Linux git tree (read only) as kernel-tree/' })
        .example('$0 tree init', 'Debian linux-source-6.12 → a git tree with one base commit, cached')
        .example('$0 tree init --from ~/src/linux', 'use your own tree'),
      run(async (g, a) => {
        const tree = await import('../commands/tree.js');
        return a.action === 'init' ? tree.treeInit(io, g, a.from as string | undefined) : tree.treeShow(io, g);
      }),
    )
    .command('doctor', 'check (and with --install, install) what kseries needs', (y: Argv) =>
      y.option('install', { type: 'boolean', default: false, describe: 'apt-get install what is missing (root)' }),
      run(async (g, a) => (await import('../commands/doctor.js')).doctor(io, g, a.install === true)),
    )
    .command('recipes [id]', 'list recipes, or show one recipe\'s parameters', (y: Argv) => y.positional('id', { type: 'string' }),
      run(async (g, a) => (await import('../commands/recipes.js')).recipes(io, g, a.id as string | undefined)),
    )
    .command('generate <recipe>', 'render a recipe and commit it as kseries/<series>/v<N>', (y: Argv) =>
      y
        .positional('recipe', { type: 'string', demandOption: true })
        .option('set', { type: 'string', coerce: asList, describe: 'recipe parameter key=value' })
        .option('base', { type: 'string', describe: 'commit to base the series on (default HEAD)' })
        .option('from', { type: 'string', describe: 'author "Name <email>" (default: git config)' })
        .option('v', { alias: 'series-version', type: 'number', describe: 'version to create (default: next)' })
        .option('path', { type: 'string', coerce: asList, describe: 'scan only this folder (repeat; recipes with a "paths" parameter)' })
        .option('only', { type: 'string', coerce: asList, describe: 'convert only this flag, name or file:name (repeat; recipes with an "only" parameter)' })
        .option('build', { type: 'boolean', default: true, describe: 'build a draft to put object-code figures in the messages (--no-build to skip)' })
        .option('config', { type: 'string', default: 'defconfig', describe: 'config of that build: defconfig, allmodconfig or a .config file' })
        .option('distcc', { type: 'boolean', default: false, describe: 'compile through distcc (DISTCC_HOSTS)' })
        .example('$0 generate static-key --set file=mm/memcontrol.c --set flag=cgroup_memory_nobpf', '')
        .example('$0 generate static-keys --path mm --path kernel/trace', 'every auto flag there, one patch per maintainer group')
        .example('$0 generate static-keys --only cgroup_memory_nosocket --only percpu:pcpu_async_enabled', ''),
      run(async (g, a) =>
        (await import('../commands/series.js')).generate(io, g, {
          recipe: String(a.recipe),
          set: (a.set as string[]) ?? [],
          paths: (a.path as string[]) ?? [],
          only: (a.only as string[]) ?? [],
          base: a.base as string | undefined,
          from: a.from as string | undefined,
          version: a.v as number | undefined,
          measure: a.build === false ? undefined : { config: String(a.config), distcc: a.distcc === true },
        }),
      ),
    )
    .command('series', 'list generated series and their versions', {}, run(async (g) => (await import('../commands/series.js')).series(io, g)))
    .command('emit [series]', 'write out/<series>/v<N>/: patches, cover letter, series.mbox', (y: Argv) =>
      y
        .positional('series', { type: 'string', describe: 'series name (default: the newest)' })
        .option('v', { alias: 'series-version', type: 'number', describe: 'version (default: newest)' })
        .option('out', { type: 'string', describe: 'output folder (default ./out)' })
        .option('rfc', { type: 'boolean', describe: 'subjects [RFC PATCH ...] (default: as the recipe says; --no-rfc)' })
        .option('subject-prefix', { type: 'string', describe: 'instead of PATCH, e.g. "PATCH net-next"' })
        .option('notes', { type: 'string', coerce: asList, describe: 'a change since the previous version (repeat)' })
        .option('force', { type: 'boolean', default: false, describe: 'emit even though the last kseries check failed' })
        .option('to', { type: 'string', coerce: asList, describe: 'extra To for every message' })
        .option('cc', { type: 'string', coerce: asList, describe: 'extra Cc for every message' })
        .example('$0 emit static-key-cgroup_memory_nobpf --notes "keep the _RO variant"', ''),
      run(async (g, a) =>
        (await import('../commands/series.js')).emit(io, g, {
          series: a.series as string | undefined,
          version: a.v as number | undefined,
          out: a.out as string | undefined,
          rfc: a.rfc as boolean | undefined,
          subjectPrefix: a['subject-prefix'] as string | undefined,
          notes: (a.notes as string[]) ?? [],
          to: (a.to as string[]) ?? [],
          cc: (a.cc as string[]) ?? [],
          force: a.force === true,
        }),
      ),
    )
    .command('send [series]', 'hand an emitted series to git send-email (dry run unless --send)', (y: Argv) =>
      y
        .positional('series', { type: 'string' })
        .option('v', { alias: 'series-version', type: 'number' })
        .option('out', { type: 'string', describe: 'output folder (default ./out)' })
        .option('send', { type: 'boolean', default: false, describe: 'really send' })
        .option('smtp-server', { type: 'string' })
        .option('smtp-port', { type: 'number' })
        .option('smtp-encryption', { type: 'string', describe: 'none, ssl or tls' }),
      run(async (g, a) =>
        (await import('../commands/series.js')).send(io, g, {
          series: a.series as string | undefined,
          version: a.v as number | undefined,
          out: a.out as string | undefined,
          send: a.send === true,
          smtpServer: a['smtp-server'] as string | undefined,
          smtpPort: a['smtp-port'] as number | undefined,
          smtpEncryption: a['smtp-encryption'] as string | undefined,
        }),
      ),
    )
    .command('check [series]', 'validate every patch: build, new W=1 warnings, checkpatch, message rules, recipients', (y: Argv) =>
      y
        .positional('series', { type: 'string', describe: 'series name (default: the newest)' })
        .option('v', { alias: 'series-version', type: 'number', describe: 'version (default: newest)' })
        .option('range', { type: 'string', describe: 'check base..tip of the tree instead of a series' })
        .option('out', { type: 'string', describe: 'output folder (default ./out): report.json goes beside the series' })
        .option('config', { type: 'string', default: 'defconfig', describe: 'defconfig, allmodconfig or a .config file' })
        .option('full', { type: 'boolean', default: false, describe: 'build every dependent of a changed header' })
        .option('strict', { type: 'boolean', default: false, describe: 'checkpatch --strict' })
        .option('build', { type: 'boolean', default: true, describe: 'build each patch (--no-build to skip)' })
        .option('distcc', { type: 'boolean', default: false, describe: 'compile through distcc (DISTCC_HOSTS)' })
        .option('kunit', { type: 'string', describe: 'also run KUnit with this .kunitconfig on the base and the tip (a recipe may ask for it; --no-kunit skips)' })
        .example('$0 check kprobe-post', 'per-patch builds, then KUnit on the base and the series under QEMU')
        .example('$0 check --range v6.12.117..my-branch --kunit lib/kunit/.kunitconfig', '')
        .example('$0 check static-key-cgroup_memory_nobpf', '')
        .example('$0 check --range v6.12.117..my-branch --strict', ''),
      run(async (g, a) =>
        (await import('../commands/check.js')).check(io, g, {
          series: a.series as string | undefined,
          version: a.v as number | undefined,
          range: a.range as string | undefined,
          out: a.out as string | undefined,
          config: String(a.config),
          full: a.full === true,
          strict: a.strict === true,
          build: a.build !== false,
          distcc: a.distcc === true,
          kunit: a.kunit === false ? false : (a.kunit as string | undefined),
        }),
      ),
    )
    .command('scan <what>', 'find candidates tree-wide: static-keys (flags tested in branches), each with a verdict', (y: Argv) =>
      y
        .positional('what', { choices: ['static-keys'] as const, demandOption: true })
        .option('path', { type: 'string', coerce: asList, describe: 'only this folder of the tree (repeat)' })
        .option('rev', { type: 'string', describe: 'scan this commit instead of the working tree' })
        .example('$0 scan static-keys --path mm --json', '')
        .example('$0 scan static-keys --rev v6.12.117', ''),
      run(async (g, a) => (await import('../commands/scan.js')).scan(io, g, { paths: (a.path as string[]) ?? [], rev: a.rev as string | undefined })),
    )
    .command('kprobe <action>', 'kprobes: may a post_handler probe move to the next instruction (analyze)', (y: Argv) =>
      y
        .positional('action', { choices: ['analyze'] as const, demandOption: true })
        .option('object', { type: 'string', demandOption: true, describe: 'an object file, or a tree-relative object (mm/slub.o) built from HEAD' })
        .option('site', { type: 'string', coerce: asList, describe: 'SYMBOL+OFFSET, offset decimal or 0x hex (repeat)' })
        .option('all', { type: 'string', coerce: asList, describe: 'every instruction of this function (repeat; --all "" for every function)' })
        .option('config', { type: 'string', default: 'defconfig', describe: 'config that builds a tree-relative object' })
        .example('$0 kprobe analyze --object kernel/sched/fair.o --site update_curr+0x1a', 'one site: safe or unsafe, with every reason')
        .example('$0 kprobe analyze --object mm/slub.o --all kmem_cache_free --json', 'every instruction of a function')
        .example('$0 kprobe analyze --object ./foo.o --all ""', 'every instruction of every function'),
      run(async (g, a) =>
        (await import('../commands/kprobe.js')).kprobeAnalyze(io, g, {
          object: String(a.object),
          sites: (a.site as string[]) ?? [],
          all: (a.all as string[]) ?? [],
          config: String(a.config),
        }),
      ),
    )
    .command('start', 'the main job: set up, provision the tree, generate, check and emit the built-in series', {}, run(async (g) => (await import('../commands/start.js')).start(io, g)))
    .demandCommand(1, 'name a command')
    .strict()
    .exitProcess(false)
    .wrap(Math.min(120, process.stdout.columns || 100))
    .fail((msg, err) => {
      throw err ?? new UsageErrorFromYargs(msg);
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

class UsageErrorFromYargs extends KseriesError {
  override readonly code = 'EUSAGE';
  constructor(message: string) {
    super(message, 'see kseries --help');
  }
}

function reportError(io: Io, e: unknown, debug: boolean): number {
  if (e instanceof KseriesError) {
    io.err(`kseries: ${e.message}`);
    io.err(`hint: ${e.hint}`);
    if (debug && e.stack) io.err(e.stack);
    return e.exitCode;
  }
  if (e instanceof Error && e.name === 'YError') {
    io.err(`kseries: ${e.message}`);
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

function globals(args: Record<string, unknown>): GlobalOptions {
  return { tree: args.tree as string | undefined, json: args.json === true, recipes: (args.recipes as string[]) ?? [] };
}

function processIo(): Io {
  return {
    out: (t) => process.stdout.write(`${t}\n`),
    err: processErr,
    cwd: process.cwd(),
    env: process.env,
  };
}
