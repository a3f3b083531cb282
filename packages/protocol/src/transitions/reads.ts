import type { JobId } from '../ids/branded.js';
import { UnknownStateError } from '../errors/validation.js';
import { scripts } from '../scripts/catalog.js';
import { bind } from './bind.js';
import { keysOf } from './key-shapes.js';
import { checkedTransition, transition, type Transition } from './transition.js';
import { idArg, int, whole } from './values.js';
import { decimals, word } from '../reply-shapes.js';

/**
 * The names `counts` accepts: the four sets, the two metrics counters (queue.md §9.1), [TS]
 * `awaiting_children`, the parents held until their children settle (the index of waiting parents),
 * [TS] `retained`, the number of completed jobs kept by retention, and [TS] `expired`, the jobs a claim
 * met past their deadline that retention keeps, and [TS] `lanes`, the jobs pending in every lane (not in
 * `pending`, and served only by a lane claim).
 */
export type CountName = 'pending' | 'lanes' | 'active' | 'schedule' | 'dead' | 'completed' | 'failed' | 'awaiting_children' | 'retained' | 'expired';

type Target = 'pending' | 'active' | 'schedule' | 'dead' | 'completed' | 'metricsCompleted' | 'metricsFailed' | 'waitingChildren' | 'expired';

const TARGETS: Readonly<Record<Exclude<CountName, 'lanes'>, readonly ['z' | 'm' | 's', Target]>> = {
  retained: ['z', 'completed'],
  expired: ['z', 'expired'],
  pending: ['z', 'pending'],
  active: ['z', 'active'],
  schedule: ['z', 'schedule'],
  dead: ['z', 'dead'],
  completed: ['m', 'metricsCompleted'],
  failed: ['m', 'metricsFailed'],
  awaiting_children: ['s', 'waitingChildren'],
};

/**
 * `counts`: reads several counters in one atomic step, in request order. An unknown name is refused
 * with UnknownStateError before anything is sent.
 */
export function counts<N extends CountName>(input: { readonly queue: string; readonly names: readonly N[] }): Transition<Record<N, number>> {
  const k = keysOf(input.queue);
  const keys: string[] = [];
  const kinds: string[] = [];
  for (const name of input.names as readonly string[]) {
    if (name === 'lanes') {
      // The five keys the script finds the lanes through (the four after the ring: kind "-", no answer of their own).
      keys.push(k.ring, k.paused, k.glimit, k.gactive, k.gweight);
      kinds.push('g', '-', '-', '-', '-');
      continue;
    }
    const target = Object.hasOwn(TARGETS, name) ? TARGETS[name as Exclude<CountName, 'lanes'>] : undefined;
    if (target === undefined) throw new UnknownStateError(name);
    kinds.push(target[0]);
    keys.push(k[target[1]]);
  }
  return checkedTransition(bind(scripts().counts, { scope: { q: input.queue }, restKeys: keys, restArgs: kinds }), (command, reply) => {
    const values = decimals(command, reply, reply, 'the reply');
    const out = {} as Record<N, number>;
    input.names.forEach((name, i) => (out[name] = values[i] ?? 0));
    return out;
  });
}

/** Where a job sits, as `state_lookup` answers (protocol.md §5.3); [TS] `completed` is a finished row kept by the queue's retention; [TS] `expired` a job a claim met past its deadline. */
export type JobPosition = 'pending' | 'active' | 'scheduled' | 'dead' | 'awaiting_children' | 'completed' | 'expired' | 'unknown' | 'absent';

const JOB_POSITIONS: readonly JobPosition[] = ['pending', 'active', 'scheduled', 'dead', 'awaiting_children', 'completed', 'expired', 'unknown', 'absent'];

/** `state_lookup`: where a job sits right now. */
export function stateLookup(input: { readonly queue: string; readonly id: JobId | string }): Transition<JobPosition> {
  const id = idArg(input.id);
  return checkedTransition(bind(scripts().state_lookup, { scope: { q: input.queue, id }, args: { id } }), (command, reply) => word(command, reply, reply, JOB_POSITIONS, 'the reply'));
}

/** `is_maxed`: resolves when there is room to claim; the script's RateError says the queue is at its ceiling. */
export function isMaxed(input: { readonly queue: string }): Transition<void> {
  return transition(bind(scripts().is_maxed, { scope: { q: input.queue } }), () => undefined);
}

/** `rate_ttl`: ms the rate window still refuses work; 0 when not limited (queue.md §9.3). */
export function rateTtl(input: { readonly queue: string; readonly max: number }): Transition<number> {
  return transition(bind(scripts().rate_ttl, { scope: { q: input.queue }, args: { max: whole('max', input.max, 0) } }), int);
}

/** `lane_counts`: pending depth per lane, in request order. */
export function laneCounts(input: { readonly queue: string; readonly groups: readonly string[] }): Transition<number[]> {
  const groups = input.groups.map((g) => idArg(g));
  return checkedTransition(bind(scripts().lane_counts, { scope: { q: input.queue }, restArgs: groups }), (command, reply) => decimals(command, reply, reply, 'the reply'));
}
