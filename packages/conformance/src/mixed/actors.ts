/**
 * The two kinds of actor a mixed scenario splits its steps between: Echo (its real `Queue`, leases
 * and bus) and the spec-only runtime. Both speak the same small verbs on the same queue, with raw
 * payloads on both sides, so a byte that crosses is compared as it was written.
 */
import type { Bus } from '@echo/bus';
import type { Queue } from '@echo/queue';
import type { SpecQueue } from '../spec-runtime/index.js';

/** A claimed job as either runtime hands it back. */
export interface ActorClaim {
  readonly id: string;
  readonly payload: string;
  readonly token: number;
  readonly group: string | undefined;
}

/** What one side of a mixed scenario can do to the shared queue. */
export interface Actor {
  /** `echo` or `spec`, for the scenario's name and failure lines. */
  readonly kind: 'echo' | 'spec';
  enqueue(payload: string): Promise<string>;
  laneEnqueue(group: string, payload: string): Promise<string>;
  claim(leaseMs?: number): Promise<ActorClaim | undefined>;
  laneClaim(leaseMs?: number): Promise<ActorClaim | undefined>;
  complete(job: ActorClaim): Promise<void>;
  retry(job: ActorClaim, delayMs: number, maxAttempts: number, error: string): Promise<'scheduled' | 'dead'>;
  delay(job: ActorClaim, ms: number): Promise<void>;
  promote(): Promise<number>;
  /** Recovers leases past their deadline. */
  reap(): Promise<number>;
  laneLimit(group: string, limit: number): Promise<void>;
  lanePause(group: string): Promise<void>;
  laneResume(group: string): Promise<void>;
  reprocess(id: string): Promise<void>;
  remove(id: string): Promise<void>;
  /** Pauses the queue and obliterates it (force). */
  obliterate(): Promise<void>;
  append(stream: string, fields: Readonly<Record<string, string>>): Promise<string>;
  read(stream: string): Promise<{ id: string; fields: Record<string, string> }[]>;
}

const LEASE = 30_000;

/** Echo's side: the real queue (opened with the raw codec) and its bus; settlements publish their events as a worker's do. */
export function echoActor(queue: Queue<string>, bus: Bus): Actor {
  const held = (job: ActorClaim): { id: never; attempts: number } => ({ id: job.id as never, attempts: job.token });
  const claimed = (job: { id: string; rawPayload: string; attempts: number; group: string | undefined } | undefined): ActorClaim | undefined =>
    job === undefined ? undefined : { id: job.id, payload: job.rawPayload, token: job.attempts, group: job.group };
  return {
    kind: 'echo',
    enqueue: async (payload) => (await queue.enqueue(payload)).id,
    laneEnqueue: async (group, payload) => (await queue.enqueueInLane(group, payload)).id,
    claim: async (leaseMs = LEASE) => claimed(await queue.leases().claim(leaseMs)),
    laneClaim: async (leaseMs = LEASE) => claimed(await queue.leases().laneClaim(leaseMs)),
    complete: (job) => queue.leases().complete(held(job), undefined, { publish: true }),
    retry: (job, delayMs, max, error) => queue.leases().retry(held(job), delayMs, max, error, { publish: true }),
    delay: (job, ms) => queue.leases().delay(held(job), ms),
    promote: () => queue.maintenance().promote(),
    reap: () => queue.maintenance().reap(),
    laneLimit: (group, limit) => queue.laneLimit(group, limit),
    lanePause: (group) => queue.lanePause(group),
    laneResume: (group) => queue.laneResume(group),
    reprocess: (id) => queue.reprocess(id),
    remove: (id) => queue.remove(id),
    async obliterate() {
      await queue.pause();
      await queue.obliterate({ force: true });
    },
    append: (stream, fields) => bus.stream(stream).append(fields),
    read: async (stream) => (await bus.stream(stream).read()).map(([id, fields]) => ({ id, fields: { ...fields } })),
  };
}

/** The spec-only runtime's side. */
export function specActor(queue: SpecQueue): Actor {
  return {
    kind: 'spec',
    enqueue: (payload) => queue.enqueue(payload),
    laneEnqueue: (group, payload) => queue.laneEnqueue(group, payload),
    claim: (leaseMs = LEASE) => queue.claim(leaseMs),
    laneClaim: (leaseMs = LEASE) => queue.laneClaim(leaseMs),
    complete: (job) => queue.complete(job.id, job.token),
    retry: (job, delayMs, max, error) => queue.retry(job.id, job.token, delayMs, max, error),
    delay: (job, ms) => queue.delay(job.id, job.token, ms),
    promote: () => queue.promote(),
    reap: () => queue.reap(),
    laneLimit: (group, limit) => queue.laneLimit(group, limit),
    lanePause: (group) => queue.lanePause(group),
    laneResume: (group) => queue.laneResume(group),
    async reprocess(id) {
      await queue.reprocess(id);
    },
    async remove(id) {
      await queue.remove(id);
    },
    obliterate: () => queue.obliterate({ force: true }),
    append: (stream, fields) => queue.append(stream, fields),
    read: (stream) => queue.read(stream),
  };
}
