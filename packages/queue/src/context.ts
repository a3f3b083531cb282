import type { Connection, QueueKeys } from '@echo/protocol';
import type { Codec } from './codec.js';

/** What every verb family needs to speak for one queue: its name, keys, connection and codec. */
export interface QueueContext<T> {
  readonly name: string;
  readonly keys: QueueKeys;
  readonly conn: Connection;
  readonly codec: Codec<T>;
}


const contexts = new WeakMap<object, QueueContext<unknown>>();

/** Records the context behind a queue handle, so this package's workers reach it and nothing else does. */
export function registerContext<T>(queue: object, ctx: QueueContext<T>): void {
  contexts.set(queue, ctx);
}

/** The context behind a queue handle; package-internal (not exported from the entry point). */
export function contextOf(queue: object): QueueContext<unknown> {
  const ctx = contexts.get(queue);
  if (ctx === undefined) throw new TypeError('not a queue opened by Queue.open');
  return ctx;
}
