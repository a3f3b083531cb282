import { InvalidArgumentError, ServerError, writes, type EvtId } from '@echo/protocol/bus';
import type { StreamContext } from '../core/context.js';
import { checkPosition } from '../core/option-checks.js';
import { instantMs, MAX_TAIL, type Instant } from '../record/instant.js';
import { xaddId } from '../record/xadd-id.js';

/**
 * Where a new group starts reading (bus.md §7.1). There is deliberately no default.
 *
 * - `new` sees only entries appended after it was created (`$`);
 * - `head` sees the whole stream (`0`);
 * - `{ at }` [TS] sees the entries minted at or after an instant, to the millisecond;
 * - `{ after }` [TS] sees the entries after an EVT id (not the id itself), e.g. the last one a
 *   previous reader handled.
 */
export type GroupStart = 'new' | 'head' | { readonly at: Instant } | { readonly after: EvtId };

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
 * The group's last-delivered id for a start: the group then delivers every entry above it.
 *
 * @throws InvalidArgumentError for anything but the four forms of {@link GroupStart}.
 */
export function startId(start: GroupStart): string {
  // Checked at run time too: JavaScript callers are not held to the type, and there is no default.
  const value: unknown = start;
  if (value === 'new') return '$';
  if (value === 'head') return '0';
  if (typeof value === 'object' && value !== null) {
    checkPosition(value);
    if ('at' in value && 'after' in value) throw new InvalidArgumentError('start', 'give { at } or { after }, not both');
    if ('at' in value) {
      const ms = instantMs(value.at as Instant, 'start.at');
      // Everything minted in an earlier millisecond is below `<ms-1>-<max tail>`; `0` when there is none.
      return ms === 0 ? '0' : `${ms - 1}-${MAX_TAIL}`;
    }
    if ('after' in value && typeof value.after === 'string') {
      try {
        return xaddId(value.after);
      } catch (error) {
        throw new InvalidArgumentError('start.after', `must be an EVT id: ${(error as Error).message}`);
      }
    }
  }
  throw new InvalidArgumentError('start', `must be "new", "head", { at } or { after }, got ${JSON.stringify(value)}`);
}

/**
 * Opens a consumer group: `XGROUP CREATE key group <start> MKSTREAM`. A group that already exists
 * (`BUSYGROUP`) is accepted and left as it is, so every consumer may open its group on start.
 * There is no verb to destroy a group.
 *
 * @throws InvalidArgumentError when `start` is not a {@link GroupStart}, or `group` is not a usable name.
 * @throws ServerError for any other refusal, such as `WRONGTYPE`.
 */
export async function openGroup(ctx: StreamContext, group: string, start: GroupStart): Promise<OpenGroupResult> {
  assertMemberName(group, 'group');
  const id = startId(start);
  try {
    await writes.sendWrite(ctx.conn, writes.xgroupCreate({ key: ctx.key, group, id, mkstream: true }));
    return 'created';
  } catch (error) {
    if (error instanceof ServerError && error.message.startsWith('BUSYGROUP')) return 'exists';
    throw error;
  }
}
