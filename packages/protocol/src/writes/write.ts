import type { Arg } from '../connector/call-shape.js';
import type { Connection } from '../connector/connection.js';
import type { BatchResult } from '../connector/script-runner.js';
import { read, sendRead, sendReads, type Read, type ReadsSettled, type ReadTarget } from '../reads/read.js';

/**
 * A typed plain write: a command that changes data outside the Lua transitions (a consumer group's
 * creation, an acknowledgement, a trim, a flag) built by a pure function and paired with the parser of
 * its reply. It has the shape of a {@link Read}, and is sent the same way; the separate name keeps a
 * pillar's call sites honest about which of its commands change data.
 */
export type Write<T> = Read<T>;

/** Builds a {@link Write}: `command` as for {@link read}, a literal, with a container's subcommand (`'XGROUP CREATE'`). */
export function write<T>(command: string, args: readonly Arg[], parse: (reply: unknown) => T): Write<T> {
  return read(command, args, parse);
}

/**
 * Sends one write on `conn` and parses its reply.
 *
 * @throws MalformedReplyError when the reply has not the command's shape; the connection's typed
 *   errors otherwise.
 */
export function sendWrite<T>(conn: ReadTarget, w: Write<T>): Promise<T> {
  return sendRead(conn, w);
}

/** Sends several writes in one pipeline; each member settles on its own, typed as its write parses. */
export function sendWrites<const W extends readonly Write<unknown>[]>(conn: Connection, ws: W): Promise<ReadsSettled<W>> {
  return sendReads(conn, ws);
}

/**
 * Many writes of one kind, built together and read together: the commands of one pipeline and the
 * parser of all its replies. For hot batches (an append of a thousand records) where a
 * {@link Write} per member would cost an object and a settled result per member; the builder makes
 * each command once and the parser walks the replies once.
 */
export interface WriteBatch<T> {
  /** The commands, each `[name, ...args]`, in send order. */
  readonly commands: readonly (readonly [string, ...Arg[]])[];
  /** Reads every member's reply or error, in send order; throws MalformedReplyError for a bad shape. */
  readonly parse: (replies: readonly BatchResult[]) => T;
}

/** Sends a {@link WriteBatch} in one pipeline and parses its replies. */
export async function sendWriteBatch<T>(conn: Connection, batch: WriteBatch<T>): Promise<T> {
  return batch.parse(await conn.pipeline(batch.commands));
}
