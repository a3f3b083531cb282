import { execute, transitions, type Connection } from '@echo/protocol/bus';

/**
 * Deletes a stream log in one atomic step: its entries, its consumer groups and its archive
 * watermark (script `stream_drop` [TS]). Answers whether there was a stream.
 *
 * @throws InvalidNameError for a bad queue or stream name.
 */
export function dropStream(conn: Connection, queue: string, name: string): Promise<boolean> {
  return execute(conn, transitions.streamDrop({ queue, stream: name }));
}
