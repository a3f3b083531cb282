import type { Connection, QueueKeys } from '@echo/protocol/queue';
import type { Codec } from './codec.js';

/** What every verb family needs to speak for one queue: its name, keys, connection and codec. */
export interface QueueContext<T> {
  readonly name: string;
  readonly keys: QueueKeys;
  readonly conn: Connection;
  readonly codec: Codec<T>;
}
