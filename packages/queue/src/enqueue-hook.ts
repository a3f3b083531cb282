import { hooks } from '@echo/protocol';

const enqueueHook = hooks.job.enqueue;

/** A verdict that names the job it admitted (or found duplicate). */
interface Admitted {
  readonly status: string;
  readonly id: string;
}

/**
 * Runs an admission and emits `emq.job.enqueue` when it lands. With nobody listening it is a plain
 * call of `admit`: no clock read, no payload. A refused admission emits nothing.
 */
export async function heardAdmission<R extends Admitted | readonly Admitted[]>(queue: string, delayed: boolean, admit: () => Promise<R>): Promise<R> {
  if (!enqueueHook.hasSubscribers) return admit();
  const started = performance.now();
  const result = await admit();
  const all: readonly Admitted[] = isMany(result) ? result : [result];
  const jobIds = all.filter((r) => r.status !== 'failed').map((r) => r.id);
  if (jobIds.length > 0) enqueueHook.publish({ queue, jobIds, count: jobIds.length, durationMs: performance.now() - started, delayed });
  return result;
}

function isMany(result: Admitted | readonly Admitted[]): result is readonly Admitted[] {
  return Array.isArray(result);
}
