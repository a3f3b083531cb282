import { execute, transitions as t } from '@echo/protocol/queue';
import type { QueueContext } from '../core/context.js';

/** A live worker of a queue, as its last heartbeat described it [TS]. */
export interface WorkerInfo {
  /** The worker's own id, minted when it started. */
  readonly id: string;
  /** The `name` it was started with (default `<host>:<pid>`). */
  readonly name: string;
  /** `worker` for a {@link Worker}, `batch` for a {@link BatchWorker}. */
  readonly kind: 'worker' | 'batch';
  /** The host it runs on (`os.hostname()`). */
  readonly host: string;
  /** Its process id on that host. */
  readonly pid: number;
  /** Its `concurrency` option (batches in flight, for a batch worker). */
  readonly concurrency: number;
  /** Jobs it held at its last beat. */
  readonly active: number;
  /** When it started, epoch ms by its host's clock. */
  readonly startedAt: number;
  /** When its last beat landed, epoch ms by the server's clock. */
  readonly lastBeatAt: number;
  /** When it drops out of the list unless it beats again, epoch ms by the server's clock. */
  readonly lapsesAt: number;
}

/** What a worker writes about itself on each beat; the registry keeps it as JSON. */
export interface WorkerDescription {
  readonly name: string;
  readonly kind: 'worker' | 'batch';
  readonly host: string;
  readonly pid: number;
  readonly concurrency: number;
  readonly active: number;
  readonly startedAt: number;
  /** How long the entry stands without another beat. */
  readonly ttlMs: number;
}

/** The most entries {@link getWorkers} reads unless told otherwise. */
const DEFAULT_LIMIT = 1000;

function num(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** Reads a description defensively: another runtime (or version) may have written it. */
function describe(id: string, lapsesAt: number, info: string | undefined): WorkerInfo {
  let d: Record<string, unknown> = {};
  try {
    const parsed: unknown = info === undefined ? {} : JSON.parse(info);
    if (typeof parsed === 'object' && parsed !== null) d = parsed as Record<string, unknown>;
  } catch {
    // An unreadable description still names a live worker.
  }
  return {
    id,
    name: str(d.name),
    kind: d.kind === 'batch' ? 'batch' : 'worker',
    host: str(d.host),
    pid: num(d.pid),
    concurrency: num(d.concurrency),
    active: num(d.active),
    startedAt: num(d.startedAt),
    lastBeatAt: lapsesAt - num(d.ttlMs),
    lapsesAt,
  };
}

/**
 * The queue's live workers [TS]: every Worker and BatchWorker beats into the queue's registry while
 * it runs, and leaves it on `close()`. One that stopped beating drops out when its entry lapses.
 */
export async function getWorkers<T>(ctx: QueueContext<T>, limit = DEFAULT_LIMIT): Promise<WorkerInfo[]> {
  const list = await execute(ctx.conn, t.workerList({ queue: ctx.name, limit }));
  return list.workers.map((w) => describe(w.id, w.lapsesAt, w.info));
}
