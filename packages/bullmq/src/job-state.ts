/** A job's state, as BullMQ names them. */
export type JobState = 'waiting' | 'prioritized' | 'active' | 'delayed' | 'completed' | 'failed' | 'waiting-children' | 'unknown';

/**
 * BullMQ's name for where Echo says a job is: a pending job is `prioritized` when it has a BullMQ
 * priority (Echo keeps both kinds in one pending set), `waiting` otherwise.
 */
export function bullmqState(position: string | undefined, priority: number | undefined): JobState {
  switch (position) {
    case 'pending':
      return priority !== undefined && priority > 0 ? 'prioritized' : 'waiting';
    case 'active':
      return 'active';
    case 'scheduled':
      return 'delayed';
    case 'completed':
      return 'completed';
    case 'dead':
      return 'failed';
    case 'awaiting_children':
      return 'waiting-children';
    default:
      return 'unknown';
  }
}
