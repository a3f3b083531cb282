import { assertQueueName } from './names.js';

/**
 * The cross-queue reserve prefix. Its hashtag is `emq`, a name no queue may take, so no queue key can
 * share the reserve's slot by accident (protocol.md §3.3).
 */
export const RESERVE_PREFIX = '{emq}:';

/** The version fence key (protocol.md §10); the only reserve key this build ever writes. */
export const VERSION_KEY = '{emq}:version';

/** Reserved, never written; named so that {@link parseKey} classifies it. */
export const LOCKS_KEY = '{emq}:locks';

/** Reserved, never written; named so that {@link parseKey} classifies it. */
export const BUNDLE_KEY = '{emq}:bundle';

/**
 * The reserved per-queue migration key `{emq}:migration:<q>`. Never written; built so that parsing
 * stays total and the round-trip law can be checked.
 *
 * @throws InvalidNameError when `q` is not a valid queue name.
 */
export function migrationKey(q: string): string {
  assertQueueName(q);
  return `${RESERVE_PREFIX}migration:${q}`;
}
