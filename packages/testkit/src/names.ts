import { randomBytes } from 'node:crypto';

/** What a generated name always matches; safe as a queue, stream or key-segment name. */
export const NAME_PATTERN = /^[A-Za-z0-9._-]{1,128}$/;

/**
 * A name no other test will pick: `${prefix}-${random base36}` (about 64 random bits).
 * Per-test names let test files share one server in parallel without FLUSHALL or collisions.
 *
 * @throws RangeError when `prefix` would make the name violate {@link NAME_PATTERN}.
 */
export function uniqueName(prefix = 't'): string {
  const name = `${prefix}-${randomBytes(8).readBigUInt64BE().toString(36)}`;
  if (!NAME_PATTERN.test(name)) throw new RangeError(`uniqueName prefix ${JSON.stringify(prefix)} must match ${String(NAME_PATTERN)} (max 114 chars).`);
  return name;
}
