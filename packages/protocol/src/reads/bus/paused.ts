import { queueKeys } from '../../keys/index.js';
import { read, type Read } from '../read.js';
import { flag } from '../../reply-shapes.js';
import { textArg } from '../args.js';

/** `HEXISTS emq:{q}:stream:<name>:paused <group>` [TS]: whether the group is paused. */
export function groupPaused(input: { readonly queue: string; readonly stream: string; readonly group: string }): Read<boolean> {
  return read('HEXISTS', [queueKeys(input.queue).streamPart(input.stream, 'paused'), textArg('group', input.group)], (reply) => flag('HEXISTS', reply));
}
