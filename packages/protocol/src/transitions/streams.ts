import { scripts } from '../scripts/catalog.js';
import { bind } from './bind.js';
import { transition, type Transition } from './transition.js';
import { int } from './values.js';

/** `stream_drop` [TS]: deletes a stream log with its consumer groups and its archive watermark. */
export function streamDrop(input: { readonly queue: string; readonly stream: string }): Transition<boolean> {
  return transition(bind(scripts().stream_drop, { scope: { q: input.queue, stream: input.stream } }), (reply) => int(reply) === 1);
}
