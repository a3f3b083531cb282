import { InvalidArgumentError } from '../../errors/validation.js';
import { queueKeys } from '../../keys/index.js';
import { count, flag } from '../../reply-shapes.js';
import { textArg } from '../../reads/args.js';
import { write, type Write } from '../write.js';

/** One consumer group of a stream, for the paused-groups hash `emq:{q}:stream:<name>:paused` [TS]. */
export interface PausedGroupInput {
  /** The queue (hashtag) the stream lives under. */
  readonly queue: string;
  /** The stream's name. */
  readonly stream: string;
  /** The group's name. */
  readonly group: string;
}

/** `HSET …:paused <group> <ms>`: marks the group paused since `atMs` (Unix ms). */
export function pauseGroup(input: PausedGroupInput & { readonly atMs: number }): Write<void> {
  if (!Number.isSafeInteger(input.atMs) || input.atMs < 0) throw new InvalidArgumentError('atMs', 'must be a non-negative integer');
  return write('HSET', [queueKeys(input.queue).streamPart(input.stream, 'paused'), textArg('group', input.group), String(input.atMs)], (reply) => {
    count('HSET', reply);
  });
}

/** `HDEL …:paused <group>`: lifts the group's pause; answers whether it was paused. */
export function resumeGroup(input: PausedGroupInput): Write<boolean> {
  return write('HDEL', [queueKeys(input.queue).streamPart(input.stream, 'paused'), textArg('group', input.group)], (reply) => flag('HDEL', reply));
}
