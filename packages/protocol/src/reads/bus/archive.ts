import type { EvtId } from '../../ids/index.js';
import { parseId } from '../../ids/index.js';
import { queueKeys } from '../../keys/index.js';
import { read, type Read } from '../read.js';
import { text } from '../../reply-shapes.js';

/**
 * `GET emq:{q}:stream:<name>:archived`: the archive watermark W (bus.md §8), `undefined` when none
 * is set. The parser throws MalformedIdError or KindError when the key holds something other than
 * an EVT id, MalformedReplyError when the reply is not a string at all.
 */
export function watermark(input: { readonly queue: string; readonly stream: string }): Read<EvtId | undefined> {
  return read('GET', [queueKeys(input.queue).archived(input.stream)], (reply) => (reply === null ? undefined : parseId(text('GET', reply), 'EVT')));
}
