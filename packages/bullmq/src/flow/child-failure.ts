import type { Envelope } from '../envelope.js';
import { keyOfChild } from './dependencies.js';

/** Echo's failure text on a parent a fail-parent child killed: `child <Echo id> failed`. */
const KILLED_BY = /^child (JOB[0-9A-Za-z]+) failed$/;

/**
 * The failure text of a job as BullMQ shows it (its first line): a flow parent a child killed
 * names that child by BullMQ's key, `child <prefix>:<queue>:<id> failed`.
 */
export function failedReasonOf(queueName: string, envelope: Envelope, lastError: string): string {
  const end = lastError.indexOf('\n');
  const line = end === -1 ? lastError : lastError.slice(0, end);
  const killer = KILLED_BY.exec(line)?.[1];
  return killer === undefined ? line : `child ${keyOfChild(queueName, envelope.k ?? [], killer)} failed`;
}
