import { hooks } from '@echo/protocol/bus';

/**
 * The bus's side of the `emq.stream.*` telemetry hooks. Every function returns at once when its
 * hook has no listener: no clock read, no payload.
 */

const stream = hooks.stream;

/** A start time for an append, or 0 when nobody listens to `emq.stream.append`. */
export function appendClock(): number {
  return stream.append.hasSubscribers ? performance.now() : 0;
}

/** A start time for a consumer's handler run, or 0 when nobody listens to `emq.stream.consume`. */
export function consumeClock(): number {
  return stream.consume.hasSubscribers ? performance.now() : 0;
}

function elapsed(started: number): number {
  return started === 0 ? 0 : performance.now() - started;
}

/** Emits `emq.stream.append` for records that landed. */
export function appended(queue: string, name: string, ids: readonly string[], started: number): void {
  if (stream.append.hasSubscribers) stream.append.publish({ queue, stream: name, ids, count: ids.length, durationMs: elapsed(started) });
}

/** Who consumed: the consumer's queue, stream, group and name. */
export interface ConsumerLabels {
  readonly queue: string;
  readonly stream: string;
  readonly group: string;
  readonly consumer: string;
}

/** Emits `emq.stream.consume` for the entries a handler ran over. */
export function consumed(who: ConsumerLabels, entries: readonly ({ readonly id: string } | undefined)[], started: number): void {
  if (!stream.consume.hasSubscribers) return;
  const ids: string[] = [];
  for (const e of entries) if (e !== undefined) ids.push(e.id);
  if (ids.length > 0) stream.consume.publish({ queue: who.queue, stream: who.stream, group: who.group, consumer: who.consumer, ids, count: ids.length, durationMs: elapsed(started) });
}

/** Emits `emq.stream.ack` and `emq.stream.dead_letter` for a settlement that was sent. */
export function settledEntries(who: ConsumerLabels, counts: { readonly acked: number; readonly retried: number; readonly deadLettered: number }): void {
  const base = { queue: who.queue, stream: who.stream, group: who.group };
  if (stream.ack.hasSubscribers) stream.ack.publish({ ...base, acked: counts.acked, retried: counts.retried });
  if (counts.deadLettered > 0 && stream.deadLetter.hasSubscribers) stream.deadLetter.publish({ ...base, count: counts.deadLettered });
}
