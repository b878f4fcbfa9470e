// The configuration a message names: the base, what kseries switched on, what came with it, and CONFIG_WERROR off.
import { expect, test } from 'vitest';
import { configLine } from '../../src/build/config-line.js';

test.each([
  [{ base: 'x86_64 defconfig', on: [], pulledIn: 0, off: ['WERROR'] }, 'x86_64 defconfig, CONFIG_WERROR off'],
  [{ base: 'x86_64 defconfig', on: ['MEMCG'], pulledIn: 0, off: ['WERROR'] }, 'x86_64 defconfig plus CONFIG_MEMCG, CONFIG_WERROR off'],
  [{ base: 'x86_64 defconfig', on: ['MEMCG', 'SLAB_OBJ_EXT'], pulledIn: 2, off: ['WERROR'] }, 'x86_64 defconfig plus CONFIG_MEMCG and CONFIG_SLAB_OBJ_EXT (and 2 symbols olddefconfig switched on with them), CONFIG_WERROR off'],
  [{ base: 'x86_64 defconfig', on: ['A', 'B', 'C'], pulledIn: 1, off: ['WERROR'] }, 'x86_64 defconfig plus CONFIG_A, CONFIG_B and CONFIG_C (and 1 symbol olddefconfig switched on with them), CONFIG_WERROR off'],
  [{ base: 'x86_64 defconfig', on: [], pulledIn: 3, off: ['WERROR'] }, 'x86_64 defconfig plus 3 symbols that earlier builds in its directory switched on, CONFIG_WERROR off'],
  [{ base: 'my.config', on: ['X'], pulledIn: 0, off: ['DEBUG_INFO', 'WERROR'] }, 'my.config plus CONFIG_X, CONFIG_DEBUG_INFO and CONFIG_WERROR off'],
])('%j', (c, line) => expect(configLine(c)).toBe(line));
