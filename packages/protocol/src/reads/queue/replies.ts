import { MalformedReplyError } from '../../errors/wire.js';
import type { JobId } from '../../ids/branded.js';
import { parseId } from '../../ids/guards.js';
import { list, text, texts } from '../../reply-shapes.js';

/*
 * The queue's own reply readers, built on the shared reply-shape checks: sorted-set members with
 * their scores, and members read as job ids.
 */

/** A score: RESP2 sends it as a string, RESP3 as a double. */
function score(command: string, reply: unknown, value: unknown): number {
  const n = typeof value === 'number' ? value : Number(text(command, reply, value));
  if (Number.isNaN(n)) throw new MalformedReplyError(command, reply, 'a score is not a number');
  return n;
}

/**
 * A `WITHSCORES` reply: `[member, score, …]` under RESP2, `[[member, score], …]` under RESP3. Pairs
 * in reply order.
 */
export function scored(command: string, reply: unknown): [string, number][] {
  const items = list(command, reply);
  if (items.length > 0 && Array.isArray(items[0])) {
    return items.map((pair) => {
      if (!Array.isArray(pair) || pair.length !== 2) throw new MalformedReplyError(command, reply, 'a member is not [member, score]');
      const p: readonly unknown[] = pair;
      return [text(command, reply, p[0]), score(command, reply, p[1])];
    });
  }
  if (items.length % 2 !== 0) throw new MalformedReplyError(command, reply, 'not a member/score list');
  const out: [string, number][] = [];
  for (let i = 0; i < items.length; i += 2) out.push([text(command, reply, items[i]), score(command, reply, items[i + 1])]);
  return out;
}

/** A member as a job id, `undefined` when it is not one (a member no Echo writer put there). */
export function jobIdOf(member: string): JobId | undefined {
  try {
    return parseId(member, 'JOB');
  } catch {
    return undefined;
  }
}

/**
 * The job ids of a set read, in reply order. A member that is not a job id names no row, so it is
 * skipped rather than failing the whole read.
 */
export function jobIds(command: string, reply: unknown): JobId[] {
  const out: JobId[] = [];
  for (const member of texts(command, reply)) {
    const id = jobIdOf(member);
    if (id !== undefined) out.push(id);
  }
  return out;
}
