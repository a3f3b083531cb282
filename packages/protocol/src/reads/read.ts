import type { Arg } from '../connector/call-shape.js';
import type { Connection } from '../connector/connection.js';
import { InvalidArgumentError } from '../errors/validation.js';

/**
 * A typed read: the command and its arguments, built by a pure function, paired with the parser of
 * its reply. The twin of a transition for the plain commands a pillar reads with, so the argument
 * shape is testable without a server and the reply's shape is checked in one place.
 */
export interface Read<T> {
  /** The command name, e.g. `XRANGE`. */
  readonly command: string;
  /** Its arguments, checked when the read was built. */
  readonly args: readonly Arg[];
  /** Checks the reply's shape and turns it into `T`; throws MalformedReplyError otherwise. */
  readonly parse: (reply: unknown) => T;
  /** Bulk replies arrive as `Buffer`s (opaque payload bytes) instead of strings. */
  readonly buffers?: boolean;
}

/**
 * Builds a {@link Read}; `buffers` asks for bulk replies as `Buffer`s. `command` is a literal at every
 * builder, a container command with its subcommand (`'XINFO STREAM'`): that literal is the builder's
 * declaration of what it sends, which the ACL rules are generated from (scripts/gen-acl.ts).
 */
export function read<T>(command: string, args: readonly Arg[], parse: (reply: unknown) => T, options: { readonly buffers?: boolean } = {}): Read<T> {
  const space = command.indexOf(' ');
  // `XINFO STREAM key` goes out as the command `XINFO` and the arguments `STREAM key`.
  if (space !== -1) return read(command.slice(0, space), [command.slice(space + 1), ...args], parse, options);
  return options.buffers === true ? { command, args, parse, buffers: true } : { command, args, parse };
}

/**
 * What a read is sent on: a {@link Connection}, or one master of it (`connection.masters()`, for the
 * per-node commands such as `SCAN`), which answers text replies only.
 */
export interface ReadTarget {
  command(name: string, ...args: Arg[]): Promise<unknown>;
  commandBuffer?(name: string, ...args: Arg[]): Promise<unknown>;
}

/**
 * Sends one read on `conn` (or one master of it) and parses its reply.
 *
 * @throws MalformedReplyError when the reply has not the command's shape; the connection's typed
 *   errors otherwise.
 */
export async function sendRead<T>(conn: ReadTarget, r: Read<T>): Promise<T> {
  if (r.buffers !== true) return r.parse(await conn.command(r.command, ...r.args));
  if (conn.commandBuffer === undefined) throw new InvalidArgumentError('read', `${r.command} answers buffers, which this target cannot send`);
  return r.parse(await conn.commandBuffer(r.command, ...r.args));
}

/** One member of {@link sendReads}: its parsed reply, or the error it alone met. */
export type ReadSettled<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: Error };

/** The settled members of {@link sendReads}, typed member by member. */
export type ReadsSettled<R extends readonly Read<unknown>[]> = { -readonly [K in keyof R]: ReadSettled<R[K] extends Read<infer T> ? T : never> };

/**
 * Sends several reads in one pipeline; each member settles on its own (a malformed or failed reply
 * fails only its member), typed as its read parses.
 */
export async function sendReads<const R extends readonly Read<unknown>[]>(conn: Connection, rs: R): Promise<ReadsSettled<R>> {
  // The pipeline answers text replies only; a buffer read parsed from text would be wrong, not slow.
  for (const r of rs) if (r.buffers === true) throw new InvalidArgumentError('reads', `${r.command} answers buffers: send it with sendRead`);
  const replies = await conn.pipeline(rs.map((r) => [r.command, ...r.args] as const));
  const settled = replies.map((reply, i): ReadSettled<unknown> => {
    if (!reply.ok) return reply;
    try {
      return { ok: true, value: (rs[i] as Read<unknown>).parse(reply.value) };
    } catch (error) {
      return { ok: false, error: error instanceof Error ? error : new Error(String(error)) };
    }
  });
  // Member i settled from rs[i]'s parser, which is what the mapped type says.
  return settled as ReadsSettled<R>;
}
