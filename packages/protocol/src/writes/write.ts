import type { Arg } from '../connector/call-shape.js';
import type { Connection } from '../connector/connection.js';
import { read, sendRead, sendReads, type Read, type ReadsSettled } from '../reads/read.js';

/**
 * A typed plain write: a command that changes data outside the Lua transitions (a consumer group's
 * creation, an acknowledgement, a trim, a flag) built by a pure function and paired with the parser of
 * its reply. It has the shape of a {@link Read}, and is sent the same way; the separate name keeps a
 * pillar's call sites honest about which of its commands change data.
 */
export type Write<T> = Read<T>;

/** Builds a {@link Write}. */
export function write<T>(command: string, args: readonly Arg[], parse: (reply: unknown) => T): Write<T> {
  return read(command, args, parse);
}

/**
 * Sends one write on `conn` and parses its reply.
 *
 * @throws MalformedReplyError when the reply has not the command's shape; the connection's typed
 *   errors otherwise.
 */
export function sendWrite<T>(conn: Connection, w: Write<T>): Promise<T> {
  return sendRead(conn, w);
}

/** Sends several writes in one pipeline; each member settles on its own, typed as its write parses. */
export function sendWrites<const W extends readonly Write<unknown>[]>(conn: Connection, ws: W): Promise<ReadsSettled<W>> {
  return sendReads(conn, ws);
}
