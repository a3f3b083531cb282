import { TypedEmitter, type JobId } from '@echo/protocol';
import type { ClaimedJob } from '../job.js';

/** What a worker reports about its own work, by event name (`worker.on('completed', …)`). */
export interface WorkerEvents<T> {
  /** A job this worker ran was completed; `result` is what the handler returned. */
  completed: { readonly job: ClaimedJob<T>; readonly result: unknown };
  /** An attempt failed: `scheduled` for another attempt, or `dead` at its cap (or unrecoverable). */
  failed: { readonly job: ClaimedJob<T>; readonly error: unknown; readonly outcome: 'scheduled' | 'dead' };
  /** This worker's pump found a job whose lease lapsed: handed on, or dead-lettered. */
  stalled: { readonly id: JobId; readonly outcome: 'recovered' | 'dead' };
  /** The worker was busy and found nothing more to claim. */
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
