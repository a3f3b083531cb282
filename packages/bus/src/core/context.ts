import type { Connection, EvtId } from '@echo/protocol/bus';

/**
 * Where appended records get their ids. `IdMinter` from `@echo/protocol` fits as is; inject one with
 * its own clock to mint at chosen instants, or with a configured node.
 */
export interface EvtMinter {
  /** A fresh EVT id, above every id this minter answered before. */
  mint(namespace: 'EVT'): EvtId;
}

/**
 * What every verb family needs to speak for one stream, built once by `Stream` (and by a consumer,
 * on its own connection): the connection, the names, the keys and the stream's options, checked.
 */
export interface StreamContext {
  readonly conn: Connection;
  /** The hashtag `q` of the keys: the stream's queue, or its own name on a bus without a queue. */
  readonly queue: string;
  /** The stream name. */
  readonly name: string;
  /** `emq:{q}:stream:<name>`. */
  readonly key: string;
  /** `emq:{q}:stream:<name>:dead` [TS]. */
  readonly deadLettersKey: string;
  /** True when records carry trace context (`_tp`/`_ts`) [TS]. */
  readonly traceContext: boolean;
  /** The byte cap on one entry (field names and values, UTF-8). */
  readonly maxEntryBytes: number;
  /** How long a publish message id is remembered, in ms. */
  readonly dedupWindowMs: number;
  /** Mints the ids of the minting appends; undefined: the process-wide minter. */
  readonly minter: EvtMinter | undefined;
}

/** The same stream spoken to over another connection (a consumer's or a tail's own). */
export function onConnection(ctx: StreamContext, conn: Connection): StreamContext {
  return { ...ctx, conn };
}
