import { assertRepeatName } from '../keys/names.js';
import { scripts } from '../scripts/catalog.js';
import { bind } from './bind.js';
import { checkedTransition, transition, type Transition } from './transition.js';
import { idArg, int, whole } from './values.js';
import { finiteNumber, list, text, texts, tuple } from '../reply-shapes.js';

/** What every repeat transition names. */
export interface RepeatInput {
  readonly queue: string;
  /** The repeat's name. */
  readonly name: string;
}

function scope(input: RepeatInput): { q: string; name: string } {
  assertRepeatName(input.name);
  return { q: input.queue, name: input.name };
}

/** `repeat_register`: registers a repeating job; an existing name is left as it is (queue.md §10.1). */
export function repeatRegister(
  input: RepeatInput & { readonly everyMs: number; readonly template: string; readonly firstInMs: number },
): Transition<'registered' | 'exists'> {
  const call = bind(scripts().repeat_register, {
    scope: scope(input),
    args: { name: input.name, every_ms: whole('everyMs', input.everyMs, 1), template: input.template, first_in_ms: whole('firstInMs', input.firstInMs, 0) },
  });
  return transition(call, (reply) => (int(reply) === 1 ? 'registered' : 'exists'));
}

/** `repeat_cancel`: stops a repeating job. */
export function repeatCancel(input: RepeatInput): Transition<'cancelled' | 'absent'> {
  return transition(bind(scripts().repeat_cancel, { scope: scope(input), args: { name: input.name } }), (reply) => (int(reply) === 1 ? 'cancelled' : 'absent'));
}

/** `repeat_advance`: moves a fired repeat to its next run; `gone` when its record vanished. */
export function repeatAdvance(input: RepeatInput & { readonly everyMs: number | string }): Transition<'advanced' | 'gone'> {
  const every = typeof input.everyMs === 'string' ? whole('everyMs', Number(input.everyMs), 1) : whole('everyMs', input.everyMs, 1);
  const call = bind(scripts().repeat_advance, { scope: scope(input), args: { name: input.name, every_ms: every } });
  return transition(call, (reply) => (int(reply) === 1 ? 'advanced' : 'gone'));
}

/** `repeat_due`: the names of up to `limit` due repeats, oldest first. */
export function repeatDue(input: { readonly queue: string; readonly limit: number }): Transition<string[]> {
  return checkedTransition(bind(scripts().repeat_due, { scope: { q: input.queue }, args: { limit: whole('batch', input.limit, 1) } }), (command, reply) => texts(command, reply, reply, 'the reply'));
}

/** When a scheduler's occurrences fall: a fixed cadence, or a cron pattern in a time zone. */
export type SchedulerCadence =
  | { readonly everyMs: number; readonly cron?: never; readonly tz?: never }
  | { readonly cron: string; readonly tz?: string; readonly everyMs?: never };

/** Input of {@link schedulerUpsert}. */
export interface SchedulerUpsertInput extends RepeatInput {
  readonly cadence: SchedulerCadence;
  /** The encoded payload each occurrence is enqueued with. */
  readonly template: string;
  /** The first occurrence: ms from the server's now, or an absolute epoch ms (a cron's next match). */
  readonly first: { readonly inMs: number } | { readonly at: number };
  /** No occurrence before this epoch ms. */
  readonly startAt?: number;
  /** No occurrence after this epoch ms. */
  readonly endAt?: number;
  /** At most this many occurrences in all. */
  readonly limit?: number;
}

const optional = (name: string, value: number | undefined, min: number): number | '' => (value === undefined ? '' : whole(name, value, min));

/** `scheduler_upsert` [TS]: creates or updates a job scheduler; an unchanged cadence keeps its next run. */
export function schedulerUpsert(input: SchedulerUpsertInput): Transition<'created' | 'updated'> {
  const c = input.cadence;
  const every = c.everyMs === undefined ? '' : whole('everyMs', c.everyMs, 1);
  const [mode, first] = 'at' in input.first ? ['at', whole('first', input.first.at, 0)] : ['in', whole('first', input.first.inMs, 0)];
  const call = bind(scripts().scheduler_upsert, {
    scope: scope(input),
    args: {
      name: input.name,
      every_ms: every,
      cron: c.cron ?? '',
      tz: c.tz ?? '',
      template: input.template,
      mode,
      first,
      start_ms: optional('startAt', input.startAt, 0),
      end_ms: optional('endAt', input.endAt, 0),
      limit: optional('limit', input.limit, 1),
    },
  });
  return transition(call, (reply) => (int(reply) === 1 ? 'created' : 'updated'));
}

/** One due scheduler and the occurrence (epoch ms) it is due for. */
export interface DueScheduler {
  readonly name: string;
  readonly due: number;
}

/** `scheduler_due` [TS]: up to `limit` due schedulers with their due occurrence, oldest first. */
export function schedulerDue(input: { readonly queue: string; readonly limit: number }): Transition<DueScheduler[]> {
  return checkedTransition(bind(scripts().scheduler_due, { scope: { q: input.queue }, args: { limit: whole('batch', input.limit, 1) } }), (command, reply) => {
    const flat = list(command, reply, reply, 'the reply');
    // RESP3 may pair each member with its score; RESP2 interleaves them.
    const pairs = flat.length > 0 && Array.isArray(flat[0]) ? flat.map((p) => tuple(command, reply, p, 2, 'a scheduler')) : [];
    if (pairs.length === 0) for (let i = 0; i < flat.length; i += 2) pairs.push([flat[i], flat[i + 1]]);
    return pairs.map(([name, due]) => ({ name: text(command, reply, name, 'the name'), due: finiteNumber(command, reply, due, 'the due time') }));
  });
}

/** The verdict of one firing: enqueued, lost the race (or retired), or the record was gone. */
export type FireOutcome = 'fired' | 'skipped' | 'gone';

/**
 * `scheduler_fire` [TS]: fires one due occurrence under `id` only while `name` is still due for
 * `due`, and moves it to its next occurrence (`nextAt` for a cron scheduler) or retires it.
 */
export function schedulerFire(input: RepeatInput & { readonly due: number; readonly id: string; readonly nextAt?: number }): Transition<FireOutcome> {
  const id = idArg(input.id);
  const call = bind(scripts().scheduler_fire, {
    scope: { ...scope(input), id },
    args: { name: input.name, due: String(input.due), id, next_at: optional('nextAt', input.nextAt, 0) },
  });
  return transition(call, (reply) => {
    const n = int(reply);
    return n === 1 ? 'fired' : n === -1 ? 'gone' : 'skipped';
  });
}
