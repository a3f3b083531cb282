import { type Connection, type Transition, executeAll, writes } from '@echo/protocol/cache';

interface Queued<C> {
  readonly call: C;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Sends the L2 writes asked for in one tick together: the transitions as one pipeline
 * (`executeAll`), the plain writes (a miss's entry lease) as another, so a herd of misses or fills
 * across many keys costs one socket write and one round trip each, not one per key. Members still
 * fail independently.
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
      this.#scripts.push({ call: transition, resolve: resolve as (value: unknown) => void, reject });
      this.#schedule();
    });
  }

  /** Sends a plain write (text replies) in this tick's pipeline of plain commands. */
  write<R>(write: writes.Write<R>): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.#plain.push({ call: write, resolve: resolve as (value: unknown) => void, reject });
      this.#schedule();
    });
  }

  #schedule(): void {
    if (this.#pending) return;
    this.#pending = true;
    queueMicrotask(() => {
      this.#pending = false;
      const plain = this.#plain;
      const scripts = this.#scripts;
      this.#plain = [];
      this.#scripts = [];
      if (plain.length > 0) settle(plain, writes.sendWrites(this.#connection, plain.map((q) => q.call)));
      if (scripts.length > 0) settle(scripts, executeAll(this.#connection, scripts.map((q) => q.call)));
    });
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
