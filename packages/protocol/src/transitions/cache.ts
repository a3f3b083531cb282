import type { BrandedId } from '../ids/branded.js';
import { scripts } from '../scripts/catalog.js';
import { bind } from './bind.js';
import { transition, type Transition } from './transition.js';
import { idArg, int } from './values.js';

/**
 * `coherence_drop`: deletes a row's L2 frame only when `version` is newer than the frame's, or the
 * frame is corrupt (cache.md §7.4); answers whether it was dropped.
 */
export function coherenceDrop(input: { readonly table: string; readonly id: BrandedId | string; readonly version: BrandedId | string }): Transition<boolean> {
  const id = idArg(input.id);
  const call = bind(scripts().coherence_drop, { scope: { t: input.table, id }, args: { version: idArg(input.version) } });
  return transition(call, (reply) => int(reply) === 1);
}
