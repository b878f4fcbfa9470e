// A writer stored in a struct field runs where that field is called: followed through a small tree of files (a
// lookup that knows them all), as the tree-wide scan follows it through the real one.
import { expect, test } from 'vitest';
import { CFile } from '../../src/c-source/functions.js';
import { anyArch } from '../../src/recipes/static-key/arch.js';
import { Expander, type CallerLookup } from '../../src/recipes/static-key/reach.js';
import { decide, newWalkers, scanFacts, type FlagCandidate, type TreeAnswers } from '../../src/recipes/static-key/scan.js';

/** The verdict of the flag `f` of `t.c`, with the other files of `tree` as the lookup's answers. */
function verdict(tree: Record<string, string>): FlagCandidate {
  const models = new Map(Object.entries(tree).map(([p, t]) => [p, new CFile(p, t)]));
  const lookup: CallerLookup = {
    filesUsing: (name) => [...models].filter(([, m]) => new RegExp(`\\b${name}\\b`).test(m.masked)).map(([p]) => p),
    file: (p) => models.get(p),
    definerOf: (name) => [...models].find(([p, m]) => p.endsWith('.c') && m.functions.get(name) && !m.functions.get(name)!.isStatic)?.[0] ?? null,
  };
  const walkers = newWalkers();
  const expanders = { writes: new Expander(lookup, walkers.writes), reads: new Expander(lookup, walkers.reads) };
  const answers: TreeAnswers = { expand: (q, reaches) => expanders[q].expand(reaches), shared: () => ({ elsewhere: [] }) };
  const [facts] = scanFacts('t.c', tree['t.c']!);
  return decide(facts!, anyArch(), answers);
}

const FLAG = 'static bool f;\nvoid hot(void)\n{\n\tif (unlikely(f))\n\t\tslow();\n}\n';
/** A DMI-style table whose callback sets the flag, given to `consumer()` by `caller`. */
const TABLE = (caller: string) =>
  `${FLAG}static int __init f_quirk(const struct quirk_id *d)\n{\n\tf = true;\n\treturn 1;\n}\nstatic const struct quirk_id f_table[] __initconst = {\n\t{ .callback = f_quirk, },\n\t{}\n};\n${caller}`;
/** The consumer: calls each entry's callback before it returns. */
const CHECKS = 'int check_quirks(const struct quirk_id *list)\n{\n\tconst struct quirk_id *d;\n\tfor (d = list; d->callback; d++)\n\t\tif (d->callback(d))\n\t\t\treturn 1;\n\treturn 0;\n}\n';

test('a callback in a table given to a function that calls it runs where the table is given: an initcall makes it auto', () => {
  const c = verdict({ 't.c': TABLE('static int __init f_init(void)\n{\n\tcheck_quirks(f_table);\n\treturn 0;\n}\nmodule_init(f_init);\n'), 'quirks.c': CHECKS });
  expect(c.verdict, c.reasons.join('\n')).toBe('auto');
  expect(c.writes[0]!.via).toBe('f_quirk() <- check_quirks() <- f_init() (module_init at t.c:21): module_init()');
});

test('the same table given at run time under a spinlock: reject, with the path through the field', () => {
  const c = verdict({ 't.c': TABLE('void f_again(void)\n{\n\tspin_lock(&l);\n\tcheck_quirks(f_table);\n\tspin_unlock(&l);\n}\n'), 'quirks.c': CHECKS });
  expect(c.verdict).toBe('reject');
  expect(c.reasons[0]).toMatch(/f_quirk\(\) <- check_quirks\(\) <- f_again\(\) \(spin_lock\(\) at t\.c:18\): spinlock held/);
});

/** An ops struct registered for later: its .start runs wherever the users of the struct call it. */
const OPS = (call: string) => ({
  't.c': `${FLAG}static int f_start(struct thing *t)\n{\n\tf = true;\n\treturn 0;\n}\nstatic struct thing_ops f_ops = {\n\t.start = f_start,\n};\nstatic int __init f_init(void)\n{\n\treturn register_thing(&f_ops);\n}\nmodule_init(f_init);\n`,
  'core.c': `static struct thing_ops *ops;\nint register_thing(struct thing_ops *o)\n{\n\tops = o;\n\treturn 0;\n}\n${call}`,
  'other.c': 'static void g(struct other *o)\n{\n\to->start(o);\n}\nstatic DECLARE_WORK(w, g);\n',
});

test('an ops struct kept for later: its field runs where the files using the struct call it (an interrupt handler: reject)', () => {
  const c = verdict(OPS('static irqreturn_t thing_irq(int irq, void *d)\n{\n\tops->start(d);\n\treturn IRQ_HANDLED;\n}\n'));
  expect(c.verdict).toBe('reject');
  expect(c.reasons[0]).toMatch(/f_start\(\) <- thing_irq\(\) \(core\.c:7\): hardirq \(returns irqreturn_t\)/);
});

test('an ops struct whose field is called from a work item: manual, run time; the .start of another struct is not followed', () => {
  const c = verdict(OPS('static void thing_work(struct work_struct *w)\n{\n\tops->start(NULL);\n}\nstatic DECLARE_WORK(tw, thing_work);\n'));
  expect(c.verdict).toBe('manual');
  expect(c.reasons.join('\n')).toMatch(/f_start\(\) <- thing_work\(\) \(DECLARE_WORK at core\.c:11\): work item/);
  expect(c.reasons.join('\n')).not.toMatch(/other\.c/);
});

test('an ops struct whose field nobody calls stays unknown, named', () => {
  const c = verdict(OPS(''));
  expect(c.verdict).toBe('manual');
  expect(c.reasons.join('\n')).toMatch(/found no call of \.start in the files that use struct thing_ops/);
});

test('a local variable or parameter that has a function\'s name is no use of the function (online_pages in auto_movable_zone_for_pfn())', () => {
  const cf = new CFile('m.c', [
    'int online_pages(unsigned long pfn)',
    '{',
    '\treturn 0;',
    '}',
    '',
    'static long auto_zone(int nid)',
    '{',
    '\tunsigned long online_pages = 0, max_pages;',
    '',
    '\tonline_pages += nid;',
    '\treturn online_pages;',
    '}',
    '',
    'static int param(int online_pages)',
    '{',
    '\treturn online_pages;',
    '}',
    '',
    'static int caller(void)',
    '{',
    '\treturn online_pages(1);',
    '}',
    '',
  ].join('\n'));
  expect(cf.usesOf('online_pages').map((u) => [u.kind, u.line])).toEqual([['call', 21]]);
});
