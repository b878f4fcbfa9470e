// A tree's rules as check applies them to a range's mails: added lines over the column limit, the tree's tag.
import { expect, test } from 'vitest';
import { longLines, mailFiles, treeRuleProblems, treeRules } from '../../src/check/tree-rules.js';
import { rulesOf } from '../../src/subsystems/profile.js';

const MAIL = `Subject: [PATCH net-next] r8169: Use str_on_off()

---
diff --git a/drivers/net/ethernet/realtek/r8169_main.c b/drivers/net/ethernet/realtek/r8169_main.c
--- a/drivers/net/ethernet/realtek/r8169_main.c
+++ b/drivers/net/ethernet/realtek/r8169_main.c
@@ -10,3 +10,3 @@ static void f(void)
 \tint a;
-\tnetdev_info(dev, "%s\\n", on ? "on" : "off");
+\t\t\t\tnetdev_info(dev, "link is %s, and this line is long enough\\n", str_on_off(on));
 \treturn;
`;

test('added lines over the column limit, tabs counted to 8, at their new line', () => {
  expect(mailFiles(MAIL)).toEqual(['drivers/net/ethernet/realtek/r8169_main.c']);
  expect(longLines(MAIL, 80)).toEqual([{ file: 'drivers/net/ethernet/realtek/r8169_main.c', line: 11, columns: 111 }]);
  expect(longLines(MAIL, 120)).toEqual([]);
});

test("netdev's rules on a mailed patch: the column limit and the [PATCH net-next] tag", async () => {
  const route = { tree: 'netdev/net-next', slug: 'net-next', lists: [] };
  const found = { route, rules: rulesOf(route)! };
  const tree = async () => undefined;
  const tagged = await treeRuleProblems(tree, found, [MAIL], ['[PATCH net-next] r8169: Use str_on_off()']);
  expect(tagged.patches[0]!.map((p) => p.kind)).toEqual(['tree-columns']);
  expect(tagged.patches[0]![0]!.message).toMatch(/r8169_main.c:11: 111 columns, over the 80 netdev\/net-next applies: NIPA runs checkpatch.pl with --max-line-length=80 \(https:/);
  const untagged = await treeRuleProblems(tree, found, [MAIL], ['[PATCH] r8169: Use str_on_off()']);
  expect(untagged.patches[0]!.map((p) => p.kind)).toEqual(['tree-columns', 'tree-tag']);
  // A series of commits, not mailed: no subject to judge.
  expect((await treeRuleProblems(tree, found, [MAIL], [undefined])).patches[0]!.map((p) => p.kind)).toEqual(['tree-columns']);
  const many = await treeRuleProblems(tree, found, Array(16).fill(MAIL), []);
  expect(many.series.map((p) => p.kind)).toEqual(['series-length']);
  expect(many.series[0]!.message).toMatch(/^16 patches for netdev\/net-next, over its limit of 15: "Avoid sending series longer than 15 patches" \(Documentation\/process\/maintainer-netdev.rst\)$/);
});

test('a tree the table does not know: the general rules only, submitting-patches.rst\'s length among them', async () => {
  const tree = async () => undefined;
  expect(treeRules().map((r) => r.kind)).toEqual(['tree-columns', 'tree-tag', 'series-length']);
  const none = await treeRuleProblems(tree, undefined, Array(16).fill(MAIL), Array(16).fill('[PATCH] r8169: x'));
  expect(none.patches.flat()).toEqual([]);
  expect(none.series.map((p) => p.message)).toEqual(['16 patches: post about 15 at a time (submitting-patches.rst, "Separate your changes")']);
  expect((await treeRuleProblems(tree, undefined, Array(15).fill(MAIL), [])).series).toEqual([]);
});
