import { Cron } from 'croner';
import { InvalidArgumentError } from '@echo/protocol/queue';
import type { RepeatOptions } from '../job-options.js';
import { epochOf } from './repeat-options.js';

/**
 * BullMQ's custom repeat strategy (Queue `settings.repeatStrategy`): the next run (epoch ms) of a
 * pattern scheduler after `millis`, or undefined for none.
 */
export type RepeatStrategy = (millis: number, opts: RepeatOptions, name?: string) => number | undefined;

/**
 * The next run of an `every` scheduler, BullMQ's way: the first run is now (or `startDate`, or the
 * next slot at `offset` within the period); later runs follow the previous one by `every`, and a
 * missed stretch jumps to the next slot after now instead of firing a burst. Answers the run and
 * the offset the scheduler keeps.
 */
export function nextEvery(prev: number | undefined, every: number, now: number, offset: number | undefined, startDate: number | undefined): { next: number; offset: number } {
  let next: number;
  if (prev === undefined) {
    if (startDate !== undefined) next = Math.max(startDate, now);
    else if (offset !== undefined && offset > 0) {
      next = Math.floor(now / every) * every + offset;
      if (next <= now) next += every;
    } else next = now;
  } else {
    next = prev + every;
    if (next < now) {
      const aligned = Math.floor(now / every) * every + (offset ?? 0);
      next = aligned <= now ? aligned + every : aligned;
    }
  }
  const kept = offset === undefined || offset === 0 ? next - Math.floor(next / every) * every : offset;
  return { next: Math.floor(next), offset: Math.floor(kept) };
}

/** BullMQ's default strategy for a pattern: the next cron match after `millis` (from `startDate` when later), now with `immediately`. */
export const defaultRepeatStrategy: RepeatStrategy = (millis, opts) => {
  if (opts.immediately === true) return Date.now();
  const start = epochOf(opts.startDate);
  const from = start !== undefined && start > millis ? start : millis;
  let cron: Cron;
  try {
    cron = new Cron(opts.pattern ?? '', { paused: true, ...(opts.tz === undefined ? {} : { timezone: opts.tz }) });
  } catch (error) {
    throw new InvalidArgumentError('repeat.pattern', (error as Error).message);
  }
  return cron.nextRun(new Date(from))?.getTime();
};

/**
 * BullMQ's exported `getNextMillis`: the run after `millis` for a scheduler's options, `every`
 * (the next multiple of the period, or this one with `immediately`) or a cron `pattern`.
 */
export function getNextMillis(millis: number, opts: RepeatOptions): number | undefined {
  if (opts.pattern !== undefined && opts.every !== undefined) throw new InvalidArgumentError('repeat', 'Both .pattern and .every options are defined for this repeatable job');
  if (opts.every !== undefined) return Math.floor(millis / opts.every) * opts.every + (opts.immediately === true ? 0 : opts.every);
  return defaultRepeatStrategy(millis, opts);
}
