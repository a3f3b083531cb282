import type { Arg } from '../connector/call-shape.js';
import type { BatchResult, Connection } from '../connector/connection.js';

/**
 * A typed read: the command and its arguments, built by a pure function, paired with the parser of
 * its reply. The twin of a transition for the plain commands a pillar reads with, so the argument
 * shape is testable without a server and the reply's shape is checked in one place.
 */
export interface Read<T> {
  readonly command: string;
  readonly args: readonly Arg[];
  readonly parse: (reply: unknown) => T;
}

/** Builds a {@link Read}. */
export function read<T>(command: string, args: readonly Arg[], parse: (reply: unknown) => T): Read<T> {
  return { command, args, parse };
}

/**
 * Sends one read on `conn` and parses its reply.
 *
 * @throws MalformedReplyError when the reply has not the command's shape; the connection's typed
 *   errors otherwise.
 */
export async function sendRead<T>(conn: Connection, r: Read<T>): Promise<T> {
  return r.parse(await conn.command(r.command, ...r.args));
}

/**
 * Sends several reads in one pipeline; each member settles on its own (a malformed or failed reply
 * fails only its member).
 */
export async function sendReads(conn: Connection, rs: readonly Read<unknown>[]): Promise<BatchResult[]> {
  const replies = await conn.pipeline(rs.map((r) => [r.command, ...r.args] as const));
  return replies.map((reply, i): BatchResult => {
    if (!reply.ok) return reply;
    try {
      return { ok: true, value: (rs[i] as Read<unknown>).parse(reply.value) };
    } catch (error) {
      return { ok: false, error: error instanceof Error ? error : new Error(String(error)) };
    }
  });
}
