import { InvalidArgumentError, ServerError, type Connection } from '@echo/protocol';
import { streamKey } from './keys.js';

/**
 * Where a new group starts reading (bus.md §7.1): `new` sees only entries appended after it was
 * created (`$`), `head` sees the whole stream (`0`). There is deliberately no default.
 */
export type GroupStart = 'new' | 'head';

/** Whether {@link openGroup} created the group or found it already there. */
export type OpenGroupResult = 'created' | 'exists';

/**
 * Checks a group or consumer name. The protocol gives them no grammar; the server accepts any
 * bytes, so only what would break the wire form is refused here.
 *
 * @throws InvalidArgumentError for a non-string, an empty name, or one with whitespace or control bytes.
 */
export function assertMemberName(value: unknown, argument: string): asserts value is string {
  if (typeof value !== 'string' || value.length === 0 || value.length > 255 || /[\s\p{Cc}]/u.test(value)) {
    throw new InvalidArgumentError(argument, `must be 1..255 characters without whitespace or control bytes, got ${JSON.stringify(value)}`);
  }
}

/**
 * Opens a consumer group: `XGROUP CREATE key group <$|0> MKSTREAM`. A group that already exists
 * (`BUSYGROUP`) is accepted and left as it is, so every consumer may open its group on start.
 * There is no verb to destroy a group.
 *
 * @throws InvalidArgumentError when `start` is not `new` or `head`, or `group` is not a usable name.
 * @throws ServerError for any other refusal, such as `WRONGTYPE`.
 */
export async function openGroup(conn: Connection, queue: string, name: string, group: string, start: GroupStart): Promise<OpenGroupResult> {
  const key = streamKey(queue, name);
  assertMemberName(group, 'group');
  // Checked at run time too: JavaScript callers are not held to the type, and there is no default.
  const start_: unknown = start;
  if (start_ !== 'new' && start_ !== 'head') throw new InvalidArgumentError('start', `must be "new" or "head", got ${JSON.stringify(start_)}`);
  try {
    await conn.command('XGROUP', 'CREATE', key, group, start === 'new' ? '$' : '0', 'MKSTREAM');
    return 'created';
  } catch (error) {
    if (error instanceof ServerError && error.message.startsWith('BUSYGROUP')) return 'exists';
    throw error;
  }
}
