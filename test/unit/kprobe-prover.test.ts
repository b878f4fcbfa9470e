// The kprobe-post prover: a patch's post_handler-only kprobes on functions of the same file, judged on the object.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from 'vitest';
import { kprobePostProver, postOnlyProbes } from '../../src/kprobe/prover.js';
import { readObjectCode } from '../../src/tools/binutils.js';

const PATCH = `diff --git a/lib/probe_me.c b/lib/probe_me.c
--- a/lib/probe_me.c
+++ b/lib/probe_me.c
@@ -1,2 +1,20 @@
 #include <linux/kprobes.h>
+static struct kprobe kp_mov = {
+	.symbol_name = "t_safe",
+	.post_handler = count_post,
+};
+static struct kprobe kp_je = {
+	.symbol_name = "t_branch",
+	.offset = 0x2,
+	.post_handler = count_post,
+};
+static struct kprobe kp_both = {
+	.symbol_name = "t_safe",
+	.pre_handler = count_pre,
+	.post_handler = count_post,
+};
+static struct kprobe kp_elsewhere = { .symbol_name = "kernel_clone", .post_handler = count_post };
`;

const ASM = [
  '.text',
  '.globl t_safe', '.type t_safe,@function', 't_safe:', '  movl $1, %eax', '  addl $2, %eax', '  ret', '.size t_safe, .-t_safe',
  '.globl t_branch', '.type t_branch,@function', 't_branch:', '  test %edi, %edi', '  je 1f', '  movl $1, %eax', '1:', '  ret', '.size t_branch, .-t_branch',
  '',
].join('\n');

test('which kprobes a patch adds with only a post_handler', () => {
  expect(postOnlyProbes(PATCH).map((p) => `${p.name} ${p.symbol}+${p.offset} ${p.object}`)).toEqual([
    'kp_mov t_safe+0 lib/probe_me.o',
    'kp_je t_branch+2 lib/probe_me.o',
    'kp_elsewhere kernel_clone+0 lib/probe_me.o',
  ]);
  expect(kprobePostProver.objectsToProve(PATCH)).toEqual(['lib/probe_me.o']);
});

test('on the built object: the mov may move to the next instruction, the je needs its single-step', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-prover-'));
  fs.writeFileSync(path.join(dir, 'p.S'), ASM);
  execFileSync('gcc', ['-c', '-o', path.join(dir, 'p.o'), path.join(dir, 'p.S')]);
  const compiled = await readObjectCode(path.join(dir, 'p.o'), { contents: ['.altinstructions'] });
  const proofs = kprobePostProver.prove(PATCH, new Map([['lib/probe_me.o', { compiled }]]));
  expect(proofs.map((p) => [p.ok, p.summary])).toEqual([
    [true, 't_safe+0x0: may move'],
    [true, 't_branch+0x2: stays (control-transfer)'],
  ]);
  expect(proofs[0]!.claim).toMatch(/may move to a pre_handler on t_safe\+0x5/);
  fs.rmSync(dir, { recursive: true, force: true });
});
