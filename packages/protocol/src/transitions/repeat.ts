import { assertRepeatName } from '../keys/names.js';
import { scripts } from '../scripts/catalog.js';
import { bind } from './bind.js';
import { transition, type Transition } from './transition.js';
import { int, strings, whole } from './values.js';

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
  return transition(bind(scripts().repeat_due, { scope: { q: input.queue }, args: { limit: whole('batch', input.limit, 1) } }), strings);
}
