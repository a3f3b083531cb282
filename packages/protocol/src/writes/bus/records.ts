import type { BatchResult } from '../../connector/script-runner.js';
import { InvalidArgumentError } from '../../errors/validation.js';
import { MalformedReplyError } from '../../errors/wire.js';
import type { EvtId } from '../../ids/index.js';
import { textArg } from '../../reads/args.js';
import { write, type Write, type WriteBatch } from '../write.js';

/*
 * The bus record (bus.md §2.1): an entry at the XADD id of its EVT id, whose first field `id`
 * carries the EVT id, then the caller's fields, then any trace fields. The append's hot path: the
 * builders make each command in one array and nothing else per record.
 */

/** The field that carries a record's branded id (bus.md §2.1). */
export const RECORD_ID_FIELD = 'id';

/** A minted record id and its XADD id (`<unix ms>-<node << 12 | seq>`, bus.md §3). */
export interface RecordId {
  /** The record's EVT id, written in its `id` field. */
  readonly id: EvtId;
  /** Its XADD id, where it sits in the stream. */
  readonly xid: string;
}

/** One record to append. */
export interface RecordInput extends RecordId {
  /** The stream key. */
  readonly key: string;
  /** The caller's `field value …`, already checked (no `id` field). */
  readonly fields: readonly string[];
  /** Fields that go last (the trace context); empty for none. */
  readonly extra?: readonly string[];
}

/** The XADD arguments of one record. */
function xaddArgs(key: string, r: RecordId, fields: readonly string[], extra: readonly string[]): string[] {
  // The explicit id, never `*`: the wire never mints, so the record's place is fixed by its id.
  return extra.length === 0 ? [key, r.xid, RECORD_ID_FIELD, r.id, ...fields] : [key, r.xid, RECORD_ID_FIELD, r.id, ...fields, ...extra];
}

/**
 * One record's whole XADD command, for a pipeline batch. @sends XADD (declared here for the ACL
 * generator: a batch builds its commands as data, not through `write`).
 */
function xaddCommand(key: string, r: RecordId, fields: readonly string[], extra: readonly string[]): [string, ...string[]] {
  // The explicit id, never `*`: the wire never mints, so the record's place is fixed by its id.
  return extra.length === 0 ? ['XADD', key, r.xid, RECORD_ID_FIELD, r.id, ...fields] : ['XADD', key, r.xid, RECORD_ID_FIELD, r.id, ...fields, ...extra];
}

/** Why an XADD reply is not the record landing at its id; `undefined` when it is (a string compare, nothing more). */
function mismatch(reply: unknown, r: RecordId): MalformedReplyError | undefined {
  if (reply === r.xid) return undefined;
  return new MalformedReplyError('XADD', reply, `not the id sent, ${r.xid}`);
}

/** `XADD key <xid> id <EVT id> field value … [trace fields]`: appends one record; answers its EVT id. */
export function appendRecord(input: RecordInput): Write<EvtId> {
  return write('XADD', xaddArgs(textArg('key', input.key), input, input.fields, input.extra ?? []), (reply) => {
    const error = mismatch(reply, input);
    if (error !== undefined) throw error;
    return input.id;
  });
}

/** Many records for one stream: parallel lists, so the caller's arrays are used as they are. */
export interface RecordsInput {
  /** The stream key. */
  readonly key: string;
  /** The ids, one per record, in append order. */
  readonly ids: readonly RecordId[];
  /** Each record's `field value …`, already checked, index for index with `ids`. */
  readonly fields: readonly (readonly string[])[];
  /** Fields every record carries last (one producer's trace context); empty for none. */
  readonly extra?: readonly string[];
}

/**
 * What a batch of appends met: `undefined` when every record landed; otherwise, per record, the
 * error it met or `undefined` when it landed.
 */
export type AppendRefusals = readonly (Error | undefined)[] | undefined;

/** One `XADD` per record, all in one pipeline; the parser answers which were refused, if any. */
export function appendRecords(input: RecordsInput): WriteBatch<AppendRefusals> {
  const key = textArg('key', input.key);
  const { ids, fields } = input;
  if (ids.length !== fields.length) throw new InvalidArgumentError('fields', `must have one list per id: ${ids.length} ids, ${fields.length} lists`);
  const extra = input.extra ?? [];
  const commands = new Array<[string, ...string[]]>(ids.length);
  for (let i = 0; i < ids.length; i++) commands[i] = xaddCommand(key, ids[i] as RecordId, fields[i] as readonly string[], extra);
  return {
    commands,
    parse: (replies: readonly BatchResult[]): AppendRefusals => {
      if (replies.length !== ids.length) throw new MalformedReplyError('XADD', replies.length, `expected ${ids.length} replies`);
      // The common case answers nothing per record: the errors are listed only when one was refused.
      let refusals: (Error | undefined)[] | undefined;
      for (let i = 0; i < replies.length; i++) {
        const reply = replies[i] as BatchResult;
        const error = reply.ok ? mismatch(reply.value, ids[i] as RecordId) : reply.error;
        if (error === undefined) continue;
        refusals ??= new Array<Error | undefined>(ids.length).fill(undefined);
        refusals[i] = error;
      }
      return refusals;
    },
  };
}
