import { queueKeys } from '../../keys/index.js';
import { parseId } from '../../ids/index.js';
import { flag, ok } from '../../reply-shapes.js';
import type { EvtId } from '../../ids/index.js';
import { write, type Write } from '../write.js';

/** Which stream's archive watermark (`emq:{q}:stream:<name>:archived`, bus.md §8). */
export interface WatermarkInput {
  /** The queue (hashtag) the stream lives under. */
  readonly queue: string;
  /** The stream's name. */
  readonly stream: string;
}

/**
 * `SET …:archived <W>`: stores the archive watermark, overwriting any previous one.
 *
 * @throws MalformedIdError or KindError when `watermark` is not an EVT id.
 */
export function putWatermark(input: WatermarkInput & { readonly watermark: EvtId }): Write<void> {
  const watermark = parseId(input.watermark, 'EVT');
  return write('SET', [queueKeys(input.queue).archived(input.stream), watermark], (reply) => ok('SET', reply));
}

/** `DEL …:archived`: deletes the archive watermark; answers whether there was one. */
export function clearWatermark(input: WatermarkInput): Write<boolean> {
  return write('DEL', [queueKeys(input.queue).archived(input.stream)], (reply) => flag('DEL', reply));
}
