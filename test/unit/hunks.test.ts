// What a maintainer asks of a generated diff's hunks: none in `#if 0` code, no added line over the column limit
// where C can break it, and where each change is for a reviewer to find.
import { expect, test } from 'vitest';
import { deadLines, hunkPlaces, withoutDeadHunks, wrapAdded, wrapLine, columns } from '../../src/edits/hunks.js';

const BASE = ['int a;', '#if 0', 'x = y ? "on" : "off";', '#ifdef FOO', 'z;', '#endif', '#else', 'live = 1 ? "on" : "off";', '#endif', 'w = q ? "on" : "off";', ''].join('\n');

test('#if 0 code to its #else or #endif, nested conditionals with it, is dead', () => {
  expect([...deadLines(BASE)]).toEqual([3, 5]);
});

test('a hunk that changes only dead code goes; the others stay', () => {
  const diff = ['--- a/f.c', '+++ b/f.c', '@@ -3,1 +3,1 @@', '-x = y ? "on" : "off";', '+x = str_on_off(y);', '@@ -8,3 +8,3 @@', '-live = 1 ? "on" : "off";', '+live = str_on_off(1);', ' #endif', '-w = q ? "on" : "off";', '+w = str_on_off(q);', ''].join('\n');
  const r = withoutDeadHunks(diff, BASE);
  expect(r.dropped).toEqual([3]);
  expect(r.text).toBe(['--- a/f.c', '+++ b/f.c', '@@ -8,3 +8,3 @@', '-live = 1 ? "on" : "off";', '+live = str_on_off(1);', ' #endif', '-w = q ? "on" : "off";', '+w = str_on_off(q);', ''].join('\n'));
  expect(withoutDeadHunks(['--- a/f.c', '+++ b/f.c', '@@ -3,1 +3,1 @@', '-x = y ? "on" : "off";', '+x = str_on_off(y);', ''].join('\n'), BASE).text).toBe('');
  // Where the kept changes are in the new file.
  expect(hunkPlaces('f.c', r.text)).toBe('f.c:8');
});

test('a long added line breaks after the last comma that fits, aligned under the open parenthesis', () => {
  const line = '\t\t\tnetdev_info(dev, "link is %s and speed %d\\n", str_on_off(on), speed);';
  expect(columns(line)).toBe(93);
  expect(wrapLine(line, 80)).toEqual(['\t\t\tnetdev_info(dev, "link is %s and speed %d\\n",', '\t\t\t\t    str_on_off(on), speed);']);
  // After a binary operator inside the call, the rest under the open parenthesis (tg3.c's flow control line).
  expect(wrapLine('\t\t\t    str_on_off(tp->link_config.active_flowctrl & FLOW_CTRL_TX),', 80)).toEqual(['\t\t\t    str_on_off(tp->link_config.active_flowctrl &', '\t\t\t\t       FLOW_CTRL_TX),']);
  // A comma inside a string is no place to break; a line that cannot be broken stays.
  expect(wrapLine('\t\t\t\t\tpr_info("a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q, r, s, t, u");', 80)).toHaveLength(1);
  const diff = ['--- a/f.c', '+++ b/f.c', '@@ -1,1 +1,1 @@', `-${line.replace('str_on_off(on)', 'on ? "on" : "off"')}`, `+${line}`, ''].join('\n');
  expect(wrapAdded(diff, 80)).toEqual({ text: diff.replace(`+${line}`, '+\t\t\tnetdev_info(dev, "link is %s and speed %d\\n",\n+\t\t\t\t    str_on_off(on), speed);'), wrapped: 1 });
});
