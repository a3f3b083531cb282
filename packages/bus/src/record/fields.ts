import { InvalidArgumentError, MalformedIdError, type EvtId } from '@echo/protocol/bus';
import { parseEvtId } from './xadd-id.js';

/**
 * A record's caller fields: flat string pairs only (bus.md §2.1, "claims only"). Nested values
 * have no codec on purpose: readers in other languages must see exactly what was written.
 */
export type StreamFields = Readonly<Record<string, string>>;

/** One record read back: the branded id recovered from its `id` field, and the other fields. */
export type StreamEntry = readonly [id: EvtId, fields: StreamFields];

/** The field that carries the branded id; callers may not use it. */
export const ID_FIELD = 'id';

/**
 * Checks a record's fields and flattens them to `field value …` for XADD. Runs before any I/O so a
 * refused record writes nothing.
 *
 * @throws InvalidArgumentError when `fields` is not a plain object of strings, or uses `id`.
 */
export function flattenFields(fields: StreamFields, argument = 'fields'): string[] {
  const flat: string[] = [];
  flattenInto(flat, fields, argument);
  return flat;
}

function argumentName(argument: string | number): string {
  return typeof argument === 'number' ? `records[${argument}]` : argument;
}

/**
 * {@link flattenFields} onto the end of `out` (a batch's one argument list), answering the UTF-16
 * length of what it pushed, for the entry cap's cheap first check. No array per record; `argument`
 * as a number names the record `records[<n>]`, a string built only for an error.
 *
 * @throws InvalidArgumentError when `fields` is not a plain object of strings, or uses `id`.
 */
export function flattenInto(out: unknown[], fields: StreamFields, argument: string | number): number {
  // Checked at run time too: JavaScript callers are not held to the type.
  const value_: unknown = fields;
  if (typeof value_ !== 'object' || value_ === null || Array.isArray(value_)) {
    throw new InvalidArgumentError(argumentName(argument), 'must be a flat object of string fields');
  }
  const record = fields as Readonly<Record<string, unknown>>;
  let units = 0;
  // Object.keys, not entries: one array per record instead of one more per field.
  for (const name of Object.keys(record)) {
    const value = record[name];
    if (name === ID_FIELD) throw new InvalidArgumentError(argumentName(argument), 'the field name "id" is reserved for the branded id');
    if (typeof value !== 'string') {
      throw new InvalidArgumentError(argumentName(argument), `field ${JSON.stringify(name)} must be a string, got ${value === null ? 'null' : typeof value}`);
    }
    out.push(name, value);
    units += name.length + value.length;
  }
  return units;
}

/**
 * Turns one raw entry's `field value …` list into a {@link StreamEntry}. The branded id comes from
 * the `id` field, never from the XADD id (bus.md §2.1): only the writer knows the id it minted.
 *
 * @throws MalformedIdError when the entry has no `id` field or it holds no EVT id.
 */
export function entryFromPairs(xid: string, pairs: readonly unknown[]): StreamEntry {
  return [recordIdOf(xid, pairs), payloadOf(pairs)];
}

/**
 * The branded id of one raw entry: its first `id` field, checked (bus.md §2.1). With
 * {@link payloadOf}, a consumer reads a record with no tuple per entry.
 *
 * @throws MalformedIdError when the entry has no `id` field or it holds no EVT id.
 */
export function recordIdOf(xid: string, pairs: readonly unknown[]): EvtId {
  for (let i = 0; i + 1 < pairs.length; i += 2) {
    if (text(pairs[i]) === ID_FIELD) return parseEvtId(text(pairs[i + 1]));
  }
  throw new MalformedIdError('', `stream entry ${xid} has no "id" field`);
}

/** One raw entry's fields, all but its first `id` field: the record's payload. */
export function payloadOf(pairs: readonly unknown[]): StreamFields {
  let seenId = false;
  // Filled in place, no pair per field: this runs once per consumed record.
  const rest: Record<string, string> = {};
  for (let i = 0; i + 1 < pairs.length; i += 2) {
    const name = text(pairs[i]);
    const value = text(pairs[i + 1]);
    if (name === ID_FIELD && !seenId) seenId = true;
    // Defined as an own property, so a field named `__proto__` reads back as written.
    else if (name === '__proto__') Object.defineProperty(rest, name, { value, enumerable: true, writable: true, configurable: true });
    else rest[name] = value;
  }
  return rest;
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : String(value);
}
