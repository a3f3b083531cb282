import type { Connection, EvtId } from '@echo/protocol';
import { archivedKey } from './keys.js';
import { parseEvtId } from './xadd-id.js';

/**
 * Stores the archive watermark W, the highest EVT id folded into the durable archive (bus.md §8),
 * overwriting any previous value. An archive driver must fold first, then put, and only then trim.
 *
 * @throws MalformedIdError or KindError when `watermark` is not an EVT id; nothing is written.
 */
export async function putArchived(conn: Connection, queue: string, name: string, watermark: string): Promise<void> {
  const key = archivedKey(queue, name);
  const w = parseEvtId(watermark);
  await conn.command('SET', key, w);
}

/**
 * Reads the archive watermark. The key is a cache for readers in other languages, never the source
 * of truth; the archive engine's own frontier is.
 *
 * @returns the watermark, or `undefined` when none is set.
 * @throws MalformedIdError or KindError when the key holds something other than an EVT id.
 */
export async function getArchived(conn: Connection, queue: string, name: string): Promise<EvtId | undefined> {
  const value = await conn.command('GET', archivedKey(queue, name));
  if (value === null) return undefined;
  return parseEvtId(typeof value === 'string' ? value : JSON.stringify(value));
}

/**
 * Deletes the archive watermark, as when the stream is obliterated.
 *
 * @returns `true` when a watermark was there to delete.
 */
export async function clearArchived(conn: Connection, queue: string, name: string): Promise<boolean> {
  return Number(await conn.command('DEL', archivedKey(queue, name))) === 1;
}
