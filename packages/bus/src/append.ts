import { IdMinter, mintIdParts, type Connection, type EvtId } from '@echo/protocol';
import { BatchAppendError, type BatchAppendResult } from './errors.js';
import { flattenFields, ID_FIELD, type StreamFields } from './fields.js';
import { streamKey } from './keys.js';
import { appendClock, appended } from './stream-hooks.js';
import { parseEvtId, xaddId, xaddIdOf } from './xadd-id.js';

/**
 * Where appended records get their ids. `IdMinter` from `@echo/protocol` fits as is; inject one with
 * its own clock to mint at chosen instants, or with a configured node.
 */
export interface EvtMinter {
  mint(namespace: 'EVT'): EvtId;
}

/** Options shared by the minting appends. */
export interface AppendOptions {
  /** Mints the record ids. Default: the process-wide minter behind `mintId`. */
  readonly minter?: EvtMinter;
}

/** A freshly minted record id and its XADD id. */
interface Minted {
  readonly id: EvtId;
  readonly xid: string;
}

function mint(minter: EvtMinter | undefined): Minted {
  // Our own minters answer the snowflake's fields beside the id: the XADD id needs no decode.
  if (minter === undefined) {
    const minted = mintIdParts('EVT');
    return { id: minted.id, xid: xaddIdOf(minted) };
  }
  if (minter instanceof IdMinter) {
    const minted = minter.mintParts('EVT');
    return { id: minted.id, xid: xaddIdOf(minted) };
  }
  // A custom minter is checked like any caller-supplied id: a stream admits EVT ids only.
  const id = parseEvtId(minter.mint('EVT'));
  return { id, xid: xaddId(id) };
}

function xaddArgs(key: string, minted: Minted, flat: readonly string[]): [string, ...string[]] {
  // The explicit id, never `*`: the wire never mints, so the record's place is fixed by its id.
  return ['XADD', key, minted.xid, ID_FIELD, minted.id, ...flat];
}

/**
 * Appends a record with an id the caller supplies (bus.md §2.2). The id and the fields are checked
 * before any I/O, so a refused call writes nothing, not even an empty stream.
 *
 * @returns the id, as the receipt.
 * @throws MalformedIdError when `id` is not a branded id; KindError when it is not EVT.
 * @throws InvalidArgumentError when `fields` is not flat strings or uses the reserved `id` field.
 * @throws NonMonotonicError when the stream already holds an id at or above this one; never retried with `*`.
 */
export async function appendId(conn: Connection, queue: string, name: string, id: string, fields: StreamFields = {}): Promise<EvtId> {
  const evt = parseEvtId(id);
  const flat = flattenFields(fields);
  const [command, ...args] = xaddArgs(streamKey(queue, name), { id: evt, xid: xaddId(evt) }, flat);
  const started = appendClock();
  await conn.command(command, ...args);
  appended(queue, name, [evt], started);
  return evt;
}

/**
 * Appends a record under a freshly minted EVT id (bus.md §2.2). Append never trims; retention is
 * {@link trim}'s job.
 *
 * @returns the minted id, as the receipt.
 * @throws InvalidArgumentError when `fields` is not flat strings or uses the reserved `id` field.
 * @throws NonMonotonicError when another writer put a higher id on the stream first.
 */
export async function append(conn: Connection, queue: string, name: string, fields: StreamFields = {}, options: AppendOptions = {}): Promise<EvtId> {
  const key = streamKey(queue, name);
  const flat = flattenFields(fields);
  // Minted last, after every check, so a refused call spends no id.
  const minted = mint(options.minter);
  const [command, ...args] = xaddArgs(key, minted, flat);
  const started = appendClock();
  await conn.command(command, ...args);
  appended(queue, name, [minted.id], started);
  return minted.id;
}

/**
 * Appends many records in one pipeline, minting one id per record in order (bus.md §2.2). Every
 * record is checked before anything is sent.
 *
 * @returns the receipts, in append order.
 * @throws InvalidArgumentError when any record is not flat strings or uses the reserved `id` field.
 * @throws BatchAppendError when any XADD was refused; it says which members landed.
 */
export async function appendBatch(
  conn: Connection,
  queue: string,
  name: string,
  records: readonly StreamFields[],
  options: AppendOptions = {},
): Promise<EvtId[]> {
  const key = streamKey(queue, name);
  const flats = records.map((fields, i) => flattenFields(fields, `records[${i}]`));
  if (flats.length === 0) return [];
  const ids: EvtId[] = new Array<EvtId>(flats.length);
  const commands: [string, ...string[]][] = new Array<[string, ...string[]]>(flats.length);
  for (let i = 0; i < flats.length; i++) {
    const minted = mint(options.minter);
    ids[i] = minted.id;
    commands[i] = xaddArgs(key, minted, flats[i] as string[]);
  }
  const started = appendClock();
  const replies = await conn.pipeline(commands);
  // The results are built only when something was refused: the common case answers the ids as they are.
  if (replies.some((reply) => !reply.ok)) {
    throw new BatchAppendError(replies.map((reply, i): BatchAppendResult => (reply.ok ? { ok: true, id: ids[i] as EvtId } : { ok: false, id: ids[i] as EvtId, error: reply.error })));
  }
  appended(queue, name, ids, started);
  return ids;
}
