import { reads, writes, type EvtId } from '@echo/protocol/bus';
import type { StreamContext } from '../core/context.js';
import { parseEvtId } from '../record/xadd-id.js';

/**
 * Stores the archive watermark W, the highest EVT id folded into the durable archive (bus.md §8),
 * overwriting any previous value. An archive driver must fold first, then put, and only then trim.
 *
 * @throws MalformedIdError or KindError when `watermark` is not an EVT id; nothing is written.
 */
export async function putArchived(ctx: StreamContext, watermark: string): Promise<void> {
  await writes.sendWrite(ctx.conn, writes.bus.putWatermark({ queue: ctx.queue, stream: ctx.name, watermark: parseEvtId(watermark) }));
}

/**
 * Reads the archive watermark. The key is a cache for readers in other languages, never the source
 * of truth; the archive engine's own frontier is.
 *
 * @returns the watermark, or `undefined` when none is set.
 * @throws MalformedIdError or KindError when the key holds something other than an EVT id.
 */
export function getArchived(ctx: StreamContext): Promise<EvtId | undefined> {
  return reads.sendRead(ctx.conn, reads.bus.watermark({ queue: ctx.queue, stream: ctx.name }));
}

/**
 * Deletes the archive watermark, as when the stream is obliterated.
 *
 * @returns `true` when a watermark was there to delete.
 */
export function clearArchived(ctx: StreamContext): Promise<boolean> {
  return writes.sendWrite(ctx.conn, writes.bus.clearWatermark({ queue: ctx.queue, stream: ctx.name }));
}
