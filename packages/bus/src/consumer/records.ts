import { execute, transitions, type EvtId, type TraceContext } from '@echo/protocol/bus';
import type { StreamContext } from '../core/context.js';
import { payloadOf, recordIdOf, type StreamFields } from '../record/fields.js';
import { tracedEntryFromPairs } from '../record/trace-fields.js';
import { HeldEntry, type EntryHolder } from './held-entry.js';
import type { ConsumerSettings } from './options.js';
import type { Delivered, Item } from './ordered.js';

/**
 * Reading delivered entries as records: the entry a handler gets, with its trace context and
 * order key. Each reader throws on an entry this bus did not write; the delivery counts and reports
 * it and leaves the entry pending (at least once, even for it; past `maxDeliveries` a claim moves
 * it to the dead-letter stream).
 */

/** The entry a handler gets from a delivered entry's fields. */
export function heldEntryOf(xid: string, attempts: number, pairs: readonly unknown[], group: string, holder: EntryHolder): HeldEntry {
  return new HeldEntry(recordIdOf(xid, pairs), payloadOf(pairs), attempts, group, xid, holder);
}

/** A delivered entry as a round's item: the record, its trace context (when the stream carries them) and its order key. */
export function itemOf(d: Delivered, settings: Pick<ConsumerSettings, 'traceContext' | 'orderBy'>, group: string, holder: EntryHolder): Item {
  let id: EvtId;
  let payload: StreamFields;
  let context: TraceContext | undefined;
  if (settings.traceContext) {
    const read = tracedEntryFromPairs(d.xid, d.pairs);
    [id, payload] = read.entry;
    context = read.trace;
  } else {
    id = recordIdOf(d.xid, d.pairs);
    payload = payloadOf(d.pairs);
  }
  const key = settings.orderBy === undefined ? undefined : payload[settings.orderBy];
  return { d, entry: new HeldEntry(id, payload, d.attempts, group, d.xid, holder), context, key };
}

/** The holder a consumer's entries share: it resets an entry's idle time while the consumer still holds it. */
export function entryHolder(ctx: StreamContext, group: string, consumer: string): EntryHolder {
  return {
    touch: async (xid) => {
      const held = await execute(ctx.conn, transitions.streamTouch({ queue: ctx.queue, stream: ctx.name, group, consumer, xids: [xid] }));
      return held > 0;
    },
  };
}
