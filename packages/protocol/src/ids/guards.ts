import { MalformedIdError, InvalidArgumentError } from '../errors/validation.js';
import { KindError } from '../errors/wire.js';
import type { BrandedId } from './branded.js';
import { decodeId, idDefect, isNamespace } from './codec.js';
import { describeValue } from './describe-value.js';
import { ID_EPOCH_MS } from './snowflake.js';

/** True when `value` is a valid branded id of any namespace (protocol.md §4.2, decode rules). */
export function isBrandedId(value: unknown): value is BrandedId {
  return idDefect(value) === null;
}

/**
 * Narrows `value` to a branded id of any namespace, for code that receives ids from outside the type
 * system (plain JavaScript callers, casts, stored data).
 *
 * @throws MalformedIdError naming the failed check.
 */
export function assertBrandedId(value: unknown): asserts value is BrandedId {
  const defect = idDefect(value);
  if (defect !== null) throw new MalformedIdError(describeValue(value), defect);
}

/**
 * Checks a string and returns it as a branded id. With `namespace`, the id must also carry that
 * namespace, the host-side twin of the scripts' `EMQKIND` check.
 *
 * @throws MalformedIdError when `value` is not a branded id.
 * @throws KindError when `value` is valid but of another namespace.
 * @throws InvalidArgumentError when `namespace` is not three `A`–`Z` bytes, since no id could match it.
 */
export function parseId<NS extends string = string>(value: string, namespace?: NS): BrandedId<NS> {
  if (namespace !== undefined && !isNamespace(namespace)) {
    throw new InvalidArgumentError('namespace', `must be exactly three bytes A-Z, got ${JSON.stringify(describeValue(namespace))}`);
  }
  assertBrandedId(value);
  if (namespace !== undefined && !value.startsWith(namespace)) {
    throw new KindError(`expected ${namespace} id, got ${value}`);
  }
  return value as BrandedId<NS>;
}

/**
 * The Unix milliseconds at which `id` was minted, read from its snowflake.
 *
 * @throws MalformedIdError when `id` is not a branded id.
 */
export function idUnixMs(id: string): number {
  return Number(decodeId(id).snowflake >> 22n) + ID_EPOCH_MS;
}
