import type { Connection, QueueKeys } from '@echo/protocol';
import type { Codec } from './codec.js';

/** What every verb family needs to speak for one queue: its name, keys, connection and codec. */
export interface QueueContext<T> {
  readonly name: string;
  readonly keys: QueueKeys;
  readonly conn: Connection;
  readonly codec: Codec<T>;
}

/** The five lane-bookkeeping keys (LB in protocol.md), in their declared order. */
export function laneBookkeeping(keys: QueueKeys): string[] {
  return [keys.gactive, keys.glimit, keys.ring, keys.wake, keys.paused];
}
