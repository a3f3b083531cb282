import { reads, writes, type Connection, type EvtId } from '@echo/protocol/bus';
import { parseEvtId } from './xadd-id.js';

/**
 * Stores the archive watermark W, the highest EVT id folded into the durable archive (bus.md §8),
 * overwriting any previous value. An archive driver must fold first, then put, and only then trim.
 *
 * @throws MalformedIdError or KindError when `watermark` is not an EVT id; nothing is written.
 */
export async function putArchived(conn: Connection, queue: string, name: string, watermark: string): Promise<void> {
  await writes.sendWrite(conn, writes.bus.putWatermark({ queue, stream: name, watermark: parseEvtId(watermark) }));
}

/**
 * Reads the archive watermark. The key is a cache for readers in other languages, never the source
 * of truth; the archive engine's own frontier is.
 *
 * @returns the watermark, or `undefined` when none is set.
 * @throws MalformedIdError or KindError when the key holds something other than an EVT id.
 */
export function getArchived(conn: Connection, queue: string, name: string): Promise<EvtId | undefined> {
  return reads.sendRead(conn, reads.bus.watermark({ queue, stream: name }));
}

/**
 * Deletes the archive watermark, as when the stream is obliterated.
 *
 * @returns `true` when a watermark was there to delete.
 */
export function clearArchived(conn: Connection, queue: string, name: string): Promise<boolean> {
  return writes.sendWrite(conn, writes.bus.clearWatermark({ queue, stream: name }));
}
