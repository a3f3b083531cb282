import type { Connection } from '../connector/connection.js';
import type { ScriptCall } from '../connector/connection.js';
import { MalformedReplyError } from '../errors/wire.js';
import { ReplyShapeError } from './reply-shape.js';

/**
 * A bound transition: the call to send and how to read its reply. Building one is pure (no I/O),
 * so its KEYS and ARGV can be tested without a server; {@link execute} sends it.
 */
export interface Transition<R> extends ScriptCall {
  /** Reads the script's reply into the typed result. */
  readonly parse: (reply: unknown) => R;
}

/** The outcome of one member of {@link executeAll}; members fail independently. */
export type Settled<R> = { readonly ok: true; readonly value: R } | { readonly ok: false; readonly error: Error };

/**
 * Pairs a bound call with its reply reader. A reply the reader finds of the wrong shape (its
 * checks in reply-shape.ts) raises `MalformedReplyError` naming the script.
 */
export function transition<R>(call: ScriptCall, parse: (reply: unknown) => R): Transition<R> {
  const command = `EVALSHA ${call.script.name}`;
  const checked = (reply: unknown): R => {
    try {
      return parse(reply);
    } catch (error) {
      if (error instanceof ReplyShapeError) throw new MalformedReplyError(command, reply, error.message);
      throw error;
    }
  };
  return { script: call.script, keys: call.keys, args: call.args, parse: checked };
}

/** Sends one transition (EVALSHA, one load on NOSCRIPT) and reads its reply. */
export async function execute<R>(conn: Connection, t: Transition<R>): Promise<R> {
  return t.parse(await conn.run(t.script, t.keys, t.args));
}

/**
 * Sends many transitions in one pipeline and reads each reply; a failing member (or one whose
 * reply does not parse) never fails its neighbours.
 */
export async function executeAll<R>(conn: Connection, ts: readonly Transition<R>[]): Promise<Settled<R>[]> {
  const results = await conn.runBatch(ts);
  return results.map((r, i): Settled<R> => {
    if (!r.ok) return r;
    try {
      return { ok: true, value: (ts[i] as Transition<R>).parse(r.value) };
    } catch (error) {
      return { ok: false, error: error as Error };
    }
  });
}
