import { type Connection, type Transition, executeAll, writes } from '@echo/protocol/cache';

/**
 * Members per pipeline. A pipeline goes out as soon as it holds this many, the rest of the tick's at
 * the tick's end, for the reason plain reads go out in `MGET`s of 8 (see `MGET_KEYS`): 50 misses
 * answered together keep every caller waiting for the slowest step of all 50, and on a loaded
 * machine 8 per pipeline measured about 1.5x the fills per second of one pipeline per tick.
 */
export const PIPELINE_MEMBERS = 8;

interface Queued<C> {
  readonly call: C;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Sends the L2 writes asked for in one tick together: the transitions as pipelines (`executeAll`),
 * the plain writes (a miss's entry lease) as others, up to {@link PIPELINE_MEMBERS} each, so a herd
 * of misses or fills across many keys costs one socket write and one round trip per 8, not one per
 * key. Members still fail independently.
 */
export class ScriptBatch {
  readonly #connection: Connection;
  #scripts: Queued<Transition<unknown>>[] = [];
  #plain: Queued<writes.Write<unknown>>[] = [];
  #pending = false;

  constructor(connection: Connection) {
    this.#connection = connection;
  }

  /** Runs `transition` in this tick's pipeline of scripts. */
  send<R>(transition: Transition<R>): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      if (this.#scripts.push({ call: transition, resolve: resolve as (value: unknown) => void, reject }) === PIPELINE_MEMBERS) this.#flushScripts();
      else this.#schedule();
    });
  }

  /** Sends a plain write (text replies) in this tick's pipeline of plain commands. */
  write<R>(write: writes.Write<R>): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      if (this.#plain.push({ call: write, resolve: resolve as (value: unknown) => void, reject }) === PIPELINE_MEMBERS) this.#flushPlain();
      else this.#schedule();
    });
  }

  #schedule(): void {
    if (this.#pending) return;
    this.#pending = true;
    queueMicrotask(() => {
      this.#pending = false;
      this.#flushPlain();
      this.#flushScripts();
    });
  }

  #flushPlain(): void {
    const plain = this.#plain;
    this.#plain = [];
    if (plain.length > 0) settle(plain, writes.sendWrites(this.#connection, plain.map((q) => q.call)));
  }

  #flushScripts(): void {
    const scripts = this.#scripts;
    this.#scripts = [];
    if (scripts.length > 0) settle(scripts, executeAll(this.#connection, scripts.map((q) => q.call)));
  }
}

/** Settles each queued member from its own result, or all of them with the batch's error. */
function settle(batch: readonly Queued<unknown>[], sent: Promise<readonly ({ readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: unknown })[]>): void {
  sent.then(
    (settled) => {
      settled.forEach((result, i) => {
        const q = batch[i] as Queued<unknown>;
        if (result.ok) q.resolve(result.value);
        else q.reject(result.error);
      });
    },
    (error: unknown) => {
      for (const q of batch) q.reject(error);
    },
  );
}
