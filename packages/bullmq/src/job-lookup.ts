import { MalformedIdError } from '@echo/protocol/queue';
import type { JobRecord, Queue as EchoQueue } from '@echo/queue';
import type { Envelope } from './envelope.js';
import { keyOfJobId } from './ids.js';

/**
 * The stored job a BullMQ job id names: a `jobId` the app gave is found through its key, any other
 * id is Echo's own; an id that is neither reads as absent.
 */
export async function recordOfJobId(queue: EchoQueue<Envelope>, jobId: string): Promise<JobRecord<Envelope> | undefined> {
  const byKey = await queue.getJobByKey(keyOfJobId(jobId));
  if (byKey !== undefined) return byKey;
  try {
    return await queue.getJob(jobId);
  } catch (error) {
    if (error instanceof MalformedIdError) return undefined;
    throw error;
  }
}
