import type { Envelope } from '../envelope.js';
import { ECHO_STALLED, STALLED_REASON } from '../stalled-reason.js';
import { keyOfChild } from './child-keys.js';

/**
 * Echo's failure text on a parent a fail-parent child killed: `child <Echo id> failed`, or
 * `child <Echo queue>:<Echo id> failed` for a child in another queue.
 */
const KILLED_BY = /^child (?:(\S+):)?(JOB[0-9A-Za-z]+) failed$/;

/**
 * The failure text of a job as BullMQ shows it (its first line): a flow parent a child killed
 * names that child by BullMQ's key, `child <prefix>:<queue>:<id> failed`; a stalled death reads as
 * BullMQ words it.
 */
export function failedReasonOf(queueName: string, envelope: Envelope, lastError: string): string {
  if (lastError === ECHO_STALLED) return STALLED_REASON;
  const end = lastError.indexOf('\n');
  const line = end === -1 ? lastError : lastError.slice(0, end);
  const killer = KILLED_BY.exec(line);
  const [, childQueue, childId] = killer ?? [];
  return childId === undefined ? line : `child ${keyOfChild(childQueue ?? queueName, envelope, childId)} failed`;
}
