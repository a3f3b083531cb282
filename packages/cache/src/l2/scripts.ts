import { type Connection, type Transition, executeAll } from '@echo/protocol/cache';

interface Queued {
  readonly transition: Transition<unknown>;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Sends the transitions asked for in one tick as one pipeline (`executeAll`): a herd of misses or
 * fills across many keys costs one socket write and one round trip, not one each. Members still
 * fail independently.
 */
export class ScriptBatch {
  readonly #connection: Connection;
  #queued: Queued[] = [];

  constructor(connection: Connection) {
    this.#connection = connection;
  }

  send<R>(transition: Transition<R>): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      if (this.#queued.push({ transition, resolve: resolve as (value: unknown) => void, reject }) === 1) queueMicrotask(() => void this.#flush());
    });
  }

  async #flush(): Promise<void> {
    const batch = this.#queued;
    this.#queued = [];
    try {
      const settled = await executeAll(this.#connection, batch.map((q) => q.transition));
      settled.forEach((result, i) => {
        const q = batch[i] as Queued;
        if (result.ok) q.resolve(result.value);
        else q.reject(result.error);
      });
    } catch (error) {
      for (const q of batch) q.reject(error);
    }
  }
}
