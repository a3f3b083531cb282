import { InvalidArgumentError } from '../errors/validation.js';
import { scripts } from '../scripts/catalog.js';
import { bind } from './bind.js';
import { checkedTransition, transition, type Transition } from './transition.js';
import { idArg, int, tokenArg, whole } from './values.js';
import { texts, tuple } from '../reply-shapes.js';
import type { JobId } from '../ids/branded.js';
import type { HeldJob } from './settlement.js';

/** The longest worker id or description the registry takes, in characters. */
const MAX_WORKER_ID = 256;
const MAX_WORKER_INFO = 4096;

/** One live entry of a queue's worker registry, as `worker_list` answers it. */
export interface WorkerEntry {
  /** The worker's id. */
  readonly id: string;
  /** Server ms at which the entry lapses unless the worker beats again. */
  readonly lapsesAt: number;
  /** The description the worker wrote, opaque to the protocol; `undefined` when missing. */
  readonly info: string | undefined;
}

/** What `worker_list` answers: the server's now and the live entries, soonest to lapse first. */
export interface WorkerList {
  /** The server's clock when it read, epoch ms. */
  readonly now: number;
  /** The entries whose lapse time is after `now`. */
  readonly workers: WorkerEntry[];
}

function workerId(id: string): string {
  // Checked as unknown: JavaScript callers are not held to the type.
  const value: unknown = id;
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_WORKER_ID) {
    throw new InvalidArgumentError('id', `must be a string of 1 to ${MAX_WORKER_ID} characters`);
  }
  return value;
}

/**
 * `worker_beat` [TS]: a worker's heartbeat in the queue's registry; its entry lapses `ttlMs` after
 * the server's now unless it beats again. Answers the lapse time in server ms.
 */
export function workerBeat(input: { readonly queue: string; readonly id: string; readonly ttlMs: number; readonly info: string }): Transition<number> {
  if (typeof input.info !== 'string' || input.info.length > MAX_WORKER_INFO) {
    throw new InvalidArgumentError('info', `must be a string of at most ${MAX_WORKER_INFO} characters`);
  }
  const args = { id: workerId(input.id), ttl_ms: whole('ttlMs', input.ttlMs, 1), info: input.info };
  return transition(bind(scripts().worker_beat, { scope: { q: input.queue }, args }), int);
}

/** `worker_leave` [TS]: removes a worker's registry entry at once; answers whether it was there. */
export function workerLeave(input: { readonly queue: string; readonly id: string }): Transition<boolean> {
  return transition(bind(scripts().worker_leave, { scope: { q: input.queue }, args: { id: workerId(input.id) } }), (reply) => Number(reply) === 1);
}

/** `worker_list` [TS]: the live registry entries under the server's clock, at most `limit`. */
export function workerList(input: { readonly queue: string; readonly limit: number }): Transition<WorkerList> {
  const call = bind(scripts().worker_list, { scope: { q: input.queue }, args: { limit: whole('limit', input.limit, 1) } });
  return checkedTransition(call, (command, reply) => {
    const flat = tuple(command, reply, reply, 1, 'the reply');
    const workers: WorkerEntry[] = [];
    for (let i = 1; i + 2 < flat.length; i += 3) {
      const info = flat[i + 2];
      workers.push({ id: String(flat[i]), lapsesAt: Number(flat[i + 1]), info: typeof info === 'string' ? info : undefined });
    }
    return { now: Number(flat[0]), workers };
  });
}

/**
 * `give_back` [TS]: hands back jobs a worker claimed and will not run (paused, or closing with jobs
 * claimed ahead), in one step: each job still held under its token goes back where a claim finds it,
 * as if never claimed, without counting a failure; a job held under another token, not active or
 * gone is left alone. Answers the ids given back, in input order.
 */
export function giveBack(input: { readonly queue: string; readonly jobs: readonly HeldJob[] }): Transition<JobId[]> {
  const pairs: string[] = [];
  for (const job of input.jobs) pairs.push(idArg(job.id), tokenArg(job.attempts));
  const call = bind(scripts().give_back, { scope: { q: input.queue }, args: {}, restArgs: pairs });
  return checkedTransition(call, (command, reply) => texts(command, reply, reply, 'the reply') as JobId[]);
}
