/**
 * BullMQ's failure text for a job that stalled more often than `maxStalledCount` allows. Echo's
 * records and events carry the spec's `stalled` for it; the drop-in shows BullMQ's words instead.
 */
export const STALLED_REASON = 'job stalled more than allowable limit';

/** Echo's recorded failure text of a stalled death (the spec's `stalled`). */
export const ECHO_STALLED = 'stalled';
