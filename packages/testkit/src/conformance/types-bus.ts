/** The structural shapes of the bus side (bus.md): streams, the events listener, id helpers. */
import type { LifecycleEventLike } from './types.js';

/** Mints ids with an injected clock, so records can be placed at chosen instants. */
export interface MinterLike {
  mint(namespace: 'EVT'): string;
}

/** Id helpers the stream scenarios need. */
export interface IdKit {
  minter(options: { readonly node: number; readonly now: () => number }): MinterLike;
  /** The mint instant of a branded id, in epoch ms. */
  unixMs(id: string): number;
  /** The XADD id a record's branded id maps to (bus.md §3). */
  xaddId(id: string): string;
}

/** A stream record read back: its branded id and its fields. */
export type StreamEntryLike = readonly [id: string, fields: Readonly<Record<string, string>>];

/** One stream log of a queue (bus.md §2). */
export interface StreamLike {
  readonly key: string;
  append(fields?: Readonly<Record<string, string>>): Promise<string>;
  appendId(id: string, fields?: Readonly<Record<string, string>>): Promise<string>;
  appendBatch(records: readonly Readonly<Record<string, string>>[]): Promise<readonly string[]>;
  read(): Promise<readonly StreamEntryLike[]>;
  readWindow(t0: number, t1: number): Promise<readonly StreamEntryLike[]>;
  readSince(t0: number): Promise<readonly StreamEntryLike[]>;
  trim(window: { readonly maxlen: number; readonly approx?: boolean } | { readonly minid: number; readonly approx?: boolean }): Promise<number>;
  putArchived(watermark: string): Promise<void>;
  getArchived(): Promise<string | undefined>;
  clearArchived(): Promise<boolean>;
  openGroup(group: string, start: 'head' | 'new'): Promise<string>;
}

/** A bus events listener on its own subscribed connection. */
export interface EventsListenerLike {
  on(listener: (event: LifecycleEventLike) => void): () => void;
  close(): Promise<void>;
}

/** The bus of one queue (bus.md). */
export interface BusLike {
  readonly channel: string;
  stream(name: string): StreamLike;
  events(options?: { connectionName?: string }): Promise<EventsListenerLike>;
  publish(event: string, job: string, extra?: Readonly<Record<string, string>>): Promise<void>;
}
