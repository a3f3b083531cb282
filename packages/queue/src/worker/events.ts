import { TypedEmitter, type JobId } from '@echo/protocol/queue';
import type { ClaimedJob } from '../core/job.js';

/** What a worker reports about its own work, by event name (`worker.on('completed', …)`). */
export interface WorkerEvents<T> {
  /** A job this worker ran was completed; `result` is what the handler returned. */
  completed: { readonly job: ClaimedJob<T>; readonly result: unknown };
  /** An attempt failed: `scheduled` for another attempt, or `dead` at its cap (or unrecoverable). */
  failed: { readonly job: ClaimedJob<T>; readonly error: unknown; readonly outcome: 'scheduled' | 'dead' };
  /** This worker's pump found a job whose lease lapsed: handed on, or dead-lettered. */
  stalled: { readonly id: JobId; readonly outcome: 'recovered' | 'dead' };
  /**
   * The worker ran out of work: it had run jobs, and now none of its handlers is running or
   * settling, it holds nothing ahead, and its claim found nothing. Once per busy spell; never while
   * a job it took is still unsettled, nor while paused or closing.
   */
  drained: undefined;
  /** An error the worker reported (the same ones `onError` gets, outages folded into one report). */
  error: { readonly error: unknown; readonly job: ClaimedJob<unknown> | undefined };
  /** `close()` finished, or the worker stopped itself (see `fatalError`). */
  closed: undefined;
}

/** The worker's emitter: the protocol's typed emitter, fired from inside the worker. */
export class WorkerEmitter<T> extends TypedEmitter<WorkerEvents<T>> {
  /** Calls the listeners of `event`; a listener that throws is reported, never thrown at the worker. */
  fire<K extends keyof WorkerEvents<T>>(event: K, payload: WorkerEvents<T>[K]): void {
    this.emit(event, payload);
  }
}
