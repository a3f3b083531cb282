import { MalformedReplyError } from '../errors/wire.js';

/**
 * A record of a stream's dead-letter stream `emq:{q}:stream:<name>:dead` [TS], as `lib/streams.lua`
 * (`dead_letter`) writes it: `id <EVT> xid <xid> group <g> consumer <c> reason <text> attempts <n>`,
 * then the entry's own fields. Read by position, never by name, so an entry field named like a head
 * field cannot shadow it.
 */
export interface DeadLetterRecord {
  /** The record's own id in the dead-letter stream (server-minted). */
  readonly record: string;
  /** The entry's `id` field as it carried it (a foreign entry may have none: empty). */
  readonly id: string;
  /** The entry's XADD id in its stream. */
  readonly xid: string;
  /** The group that gave up on it. */
  readonly group: string;
  /** The consumer that moved it. */
  readonly consumer: string;
  /** Why it was moved. */
  readonly reason: string;
  /** Its delivery count when it was moved. */
  readonly attempts: number;
  /** When it was moved, Unix ms (server clock): the record id's time part. */
  readonly deadAt: number;
  /** The entry's other fields, flat `field value …`, in their order. */
  readonly fields: readonly string[];
}

const HEAD = ['id', 'xid', 'group', 'consumer', 'reason', 'attempts'] as const;

/**
 * Reads one dead-letter record from its stream entry.
 *
 * @throws MalformedReplyError when the head is not the six named fields in order.
 */
export function parseDeadLetterRecord(record: string, fields: readonly string[]): DeadLetterRecord {
  const at = (i: number): string => fields[i] ?? '';
  const wellFormed = fields.length >= HEAD.length * 2 && fields.length % 2 === 0 && HEAD.every((name, i) => fields[i * 2] === name);
  if (!wellFormed) throw new MalformedReplyError('XRANGE', [record, fields], 'not a dead-letter record');
  return {
    record,
    id: at(1),
    xid: at(3),
    group: at(5),
    consumer: at(7),
    reason: at(9),
    attempts: Number(at(11)),
    deadAt: Number(record.slice(0, record.indexOf('-'))),
    fields: fields.slice(HEAD.length * 2),
  };
}
