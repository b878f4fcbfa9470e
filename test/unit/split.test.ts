// kseries split's dependency rule without a tree: a file that uses what another group's header adds goes after that
// group in one tree's series, or with it when the trees differ.
import { expect, test } from 'vitest';
import type { Group } from '../../src/subsystems/groups.js';
import type { FileChange } from '../../src/edits/overlay.js';
import { definedNames, withDependencies } from '../../src/series/split.js';
import { distinctNames } from '../../src/series/plan.js';

const header: FileChange = {
  file: 'include/linux/string_choices.h',
  before: '#ifndef _X\nstatic inline const char *str_on_off(bool v)\n{\n\treturn v ? "on" : "off";\n}\n#endif\n',
  after: '#ifndef _X\nstatic inline const char *str_on_off(bool v)\n{\n\treturn v ? "on" : "off";\n}\n\nstatic inline const char *str_up_down(bool v)\n{\n\treturn v ? "up" : "down";\n}\n#define str_down_up(v) str_up_down(!(v))\n#endif\n',
};
const user = (file: string, call: string): FileChange => ({ file, before: 'int f(int x)\n{\n\treturn pr("%s", x ? "up" : "down");\n}\n', after: `int f(int x)\n{\n\treturn pr("%s", ${call}(x));\n}\n` });

function group(tree: string, prefix: string, files: FileChange[]): Group<FileChange> {
  return { prefix, prefixSource: 'given', confirmPrefix: false, named: '', lower: false, tree, route: { tree, slug: tree, lists: [] }, maintainers: [`${prefix} <m@x>`], files };
}

test("a header's new lines define what its users need", () => {
  expect(definedNames(header)).toEqual(['str_down_up', 'str_up_down']);
  expect(definedNames(user('drivers/spi/a.c', 'str_up_down'))).toEqual([]);
});

test('a user in the same tree goes after the header; a user in another tree goes with it', () => {
  const spiUser = group('broonie/spi', 'spi: a', [user('drivers/spi/a.c', 'str_up_down')]);
  const spiHeader = group('broonie/spi', 'spi', [{ ...header, file: 'include/linux/spi/x.h' }]);
  const gpioUser = group('brgl/linux', 'gpio: b', [user('drivers/gpio/b.c', 'str_down_up')]);
  const ordered = withDependencies([spiUser, gpioUser, spiHeader]);
  // gpio's file cannot wait for spi's series: it went into the header's patch, which comes before spi's user.
  expect(ordered.map((g) => [g.prefix, g.files.map((f) => f.file)])).toEqual([
    ['spi', ['include/linux/spi/x.h', 'drivers/gpio/b.c']],
    ['spi: a', ['drivers/spi/a.c']],
  ]);
  expect(ordered[1]!.needs.map((n) => [n.group.prefix, n.names])).toEqual([['spi', ['str_up_down']]]);
});

test('two trees whose slugs agree still make two series', () => {
  expect(distinctNames(['s-linux', 's-spi', 's-linux', 's-linux'])).toEqual(['s-linux', 's-spi', 's-linux-2', 's-linux-3']);
});
