import type { ClaimedJob } from '@echo/queue';
import type { Job } from '../job.js';
import { backoffDelay, customBackoff, type BackoffStrategy } from './backoff.js';

/** Most entries a map here keeps: entries of jobs whose retry never came are dropped past it. */
const MAX_ENTRIES = 10_000;

/**
 * The delays a worker's failed attempts wait before the next one, BullMQ's way, and what each job
 * was last given (its `job.delay` once the attempt failed). Echo's retry takes its delay
 * synchronously; a custom strategy that answers a promise is asked ({@link ask}) while the failed
 * attempt still runs, and its answer is kept for the retry.
 */
export class AttemptDelays {
  readonly #strategy: BackoffStrategy | undefined;
  readonly #running: (echoId: string) => Job | undefined;
  /** Delays the custom strategy answered ahead of the retry, by Echo id. */
  readonly #asked = new Map<string, number>();
  /** The delay each job was last given, by Echo id. */
  readonly #given = new Map<string, number>();

  constructor(strategy: BackoffStrategy | undefined, running: (echoId: string) => Job | undefined) {
    this.#strategy = strategy;
    this.#running = running;
  }

  /** Asks the custom strategy (when the job's backoff is custom and it has attempts left), awaiting it. */
  async ask(claimed: ClaimedJob<unknown>, job: Job, error: unknown): Promise<void> {
    const strategy = this.#strategy;
    const type = customBackoff(claimed.attempts, claimed, strategy);
    if (strategy === undefined || type === undefined) return;
    const ms = await strategy(claimed.attempts, type, error instanceof Error ? error : new Error(String(error)), job);
    remember(this.#asked, claimed.id, Math.round(ms));
  }

  /** The delay before attempt `attempt + 1`: what {@link ask} got, else BullMQ's curve. */
  delay(attempt: number, error: unknown, claimed: ClaimedJob<unknown>): number {
    const asked = this.#asked.get(claimed.id);
    this.#asked.delete(claimed.id);
    const delay = asked ?? backoffDelay(attempt, error, claimed, this.#strategy, this.#running(claimed.id));
    remember(this.#given, claimed.id, delay);
    return delay;
  }

  /** The delay the job was last given, forgotten as it is read. */
  takeGiven(echoId: string): number | undefined {
    const delay = this.#given.get(echoId);
    this.#given.delete(echoId);
    return delay;
  }
}

function remember(map: Map<string, number>, id: string, value: number): void {
  if (map.size >= MAX_ENTRIES) map.clear();
  map.set(id, value);
}
