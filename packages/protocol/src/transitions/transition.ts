import type { Connection } from '../connector/connection.js';
import type { ScriptCall } from '../connector/connection.js';

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
 * Pairs a bound call with its reply reader. The reader checks the reply's shape rather than casting
 * it: a reply of another shape is a `MalformedReplyError`, never a value read from the wrong type.
 */
export function transition<R>(call: ScriptCall, parse: (reply: unknown) => R): Transition<R> {
  return { script: call.script, keys: call.keys, args: call.args, parse };
}

/**
 * A {@link transition} whose reader is given the command its reply answers, `EVALSHA <script>`, for
 * the reply-shape checks (reply-shapes.ts) to name when they refuse it: a reply of another shape
 * comes from an older or foreign script under the same SHA, or a proxy that mangles replies, so the
 * error says which script it was.
 */
export function checkedTransition<R>(call: ScriptCall, read: (command: string, reply: unknown) => R): Transition<R> {
  const command = `EVALSHA ${call.script.name}`;
  return transition(call, (reply) => read(command, reply));
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
