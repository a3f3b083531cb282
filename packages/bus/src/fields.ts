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
  // Checked at run time too: JavaScript callers are not held to the type.
  const value_: unknown = fields;
  if (typeof value_ !== 'object' || value_ === null || Array.isArray(value_)) {
    throw new InvalidArgumentError(argument, 'must be a flat object of string fields');
  }
  const flat: string[] = [];
  for (const [name, value] of Object.entries(fields as Readonly<Record<string, unknown>>)) {
    if (name === ID_FIELD) throw new InvalidArgumentError(argument, 'the field name "id" is reserved for the branded id');
    if (typeof value !== 'string') {
      throw new InvalidArgumentError(argument, `field ${JSON.stringify(name)} must be a string, got ${value === null ? 'null' : typeof value}`);
    }
    flat.push(name, value);
  }
  return flat;
}

/**
 * Turns one raw entry's `field value …` list into a {@link StreamEntry}. The branded id comes from
 * the `id` field, never from the XADD id (bus.md §2.1): only the writer knows the id it minted.
 *
 * @throws MalformedIdError when the entry has no `id` field or it holds no EVT id.
 */
export function entryFromPairs(xid: string, pairs: readonly unknown[]): StreamEntry {
  let id: EvtId | undefined;
  // Filled in place, no pair per field: this runs once per consumed record.
  const rest: Record<string, string> = {};
  for (let i = 0; i + 1 < pairs.length; i += 2) {
    const rawName = pairs[i];
    const rawValue = pairs[i + 1];
    const name = typeof rawName === 'string' ? rawName : String(rawName);
    const value = typeof rawValue === 'string' ? rawValue : String(rawValue);
    if (name === ID_FIELD && id === undefined) id = parseEvtId(value);
    // Defined as an own property, so a field named `__proto__` reads back as written.
    else if (name === '__proto__') Object.defineProperty(rest, name, { value, enumerable: true, writable: true, configurable: true });
    else rest[name] = value;
  }
  if (id === undefined) throw new MalformedIdError('', `stream entry ${xid} has no "id" field`);
  return [id, rest];
}
