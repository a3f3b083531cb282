import { execute, transitions } from '@echo/protocol/bus';
import type { StreamContext } from '../core/context.js';

/**
 * Deletes a stream log in one atomic step: its entries, its consumer groups and its archive
 * watermark (script `stream_drop` [TS]). Answers whether there was a stream.
 */
export function dropStream(ctx: StreamContext): Promise<boolean> {
  return execute(ctx.conn, transitions.streamDrop({ queue: ctx.queue, stream: ctx.name }));
}
