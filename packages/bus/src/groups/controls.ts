import { ServerError, execute, reads, transitions, writes } from '@echo/protocol/bus';
import type { StreamContext } from '../core/context.js';
import { assertMemberName, startId, type GroupStart } from './open.js';

/*
 * The operator's verbs on a consumer group (JetStream's consumer pause, reset and delete): what
 * every consumer of the group sees, kept on the server beside the stream, so they act on consumers
 * in any process.
 */

/**
 * Pauses a group: its consumers, in every process, stop reading and claiming within a beat or
 * two (`beatMs`); handlers already running finish and are settled. Nothing is lost: entries stay
 * in the stream and in the group's pending list until {@link resumeGroup}.
 *
 * @throws InvalidArgumentError for a bad group name; InvalidNameError for a bad stream name.
 */
export async function pauseGroup(ctx: StreamContext, group: string): Promise<void> {
  assertMemberName(group, 'group');
  await writes.sendWrite(ctx.conn, writes.bus.pauseGroup({ queue: ctx.queue, stream: ctx.name, group, atMs: Date.now() }));
}

/**
 * Resumes a paused group; its consumers pick up where the group stood within a beat.
 *
 * @returns false when the group was not paused.
 * @throws InvalidArgumentError for a bad group name.
 */
export async function resumeGroup(ctx: StreamContext, group: string): Promise<boolean> {
  assertMemberName(group, 'group');
  return writes.sendWrite(ctx.conn, writes.bus.resumeGroup({ queue: ctx.queue, stream: ctx.name, group }));
}

/** True when the group is paused. */
export async function isGroupPaused(ctx: StreamContext, group: string): Promise<boolean> {
  assertMemberName(group, 'group');
  return reads.sendRead(ctx.conn, reads.bus.groupPaused({ queue: ctx.queue, stream: ctx.name, group }));
}

/**
 * Moves a group's position (`XGROUP SETID`): it delivers next the entries after `to`, any
 * {@link GroupStart} (`'head'` to replay everything, `'new'` to skip to the end, `{ at }` an
 * instant, `{ after }` an entry). Entries pending in the group stay pending; an ordered group's
 * registration follows the new position.
 *
 * @throws InvalidArgumentError for a bad group name or position.
 * @throws ServerError when the group does not exist (`NOGROUP`).
 */
export async function resetGroup(ctx: StreamContext, group: string, to: GroupStart): Promise<void> {
  const { conn, key } = ctx;
  assertMemberName(group, 'group');
  await writes.sendWrite(conn, writes.xgroupSetid({ key, group, id: startId(to) }));
  // An ordered group registers entries in stream order from its watermark: move it with the group,
  // so entries delivered again are registered again in order, whoever reads them first.
  const position = (await reads.sendRead(conn, reads.xinfoGroups({ key }))).find((g) => g.name === group)?.lastDeliveredId;
  if (position !== undefined) await execute(conn, transitions.streamGroupForget({ queue: ctx.queue, stream: ctx.name, group, position }));
}

/**
 * Deletes a group (`XGROUP DESTROY`) with its pending list, then what the stream kept for it (its
 * paused flag, its order registry). The stream and other groups are untouched; running consumers
 * of the group report `NOGROUP` to `onError` until closed.
 *
 * @returns false when there was no such group.
 * @throws InvalidArgumentError for a bad group name.
 */
export async function deleteGroup(ctx: StreamContext, group: string): Promise<boolean> {
  const { conn, key } = ctx;
  assertMemberName(group, 'group');
  let destroyed: boolean;
  try {
    destroyed = await writes.sendWrite(conn, writes.xgroupDestroy({ key, group }));
  } catch (error) {
    // No stream at all: no group to delete either.
    if (!(error instanceof ServerError) || !/no such key|requires the key to exist/i.test(error.message)) throw error;
    destroyed = false;
  }
  await execute(conn, transitions.streamGroupForget({ queue: ctx.queue, stream: ctx.name, group }));
  return destroyed;
}
