import { InvalidArgumentError, strictOptions } from '@echo/protocol/queue';
import type { SchedulerCadence, SchedulerOptions } from '@echo/queue';
import type { RepeatOptions } from './job-options.js';

export type { RepeatOptions };

const checkRepeatShape = strictOptions('repeat options', {
  known: ['every', 'pattern', 'tz', 'limit', 'startDate', 'endDate', 'key'],
  hints: {
    immediately: 'not supported: an every-scheduler fires its first job after one period',
    offset: 'not supported: an every-scheduler counts from when it was upserted',
    count: 'not supported: the scheduler keeps its own run count',
    utc: 'give the time zone as tz',
    cron: 'BullMQ spelling here: pattern',
  },
  bounds: { every: 'span', startDate: 'instant', endDate: 'instant' },
});

/** Checks `repeat` / a scheduler's repeat options: exactly one of `every` and `pattern`. */
export function checkRepeat(repeat: RepeatOptions): void {
  checkRepeatShape(repeat);
  if ((repeat.every === undefined) === (repeat.pattern === undefined)) throw new InvalidArgumentError('repeat', 'needs exactly one of every and pattern');
  if (repeat.tz !== undefined && repeat.pattern === undefined) throw new InvalidArgumentError('repeat.tz', 'applies to a pattern');
}

/** Echo's cadence for BullMQ's repeat options. */
export function schedulerCadence(repeat: RepeatOptions): SchedulerCadence {
  if (repeat.pattern !== undefined) return { cron: repeat.pattern, ...(repeat.tz === undefined ? {} : { tz: repeat.tz }) };
  return { everyMs: repeat.every as number };
}

/** Echo's window and run limit for BullMQ's repeat options. */
export function schedulerOptions(repeat: RepeatOptions): SchedulerOptions {
  return {
    ...(repeat.limit === undefined ? {} : { limit: repeat.limit }),
    ...(repeat.startDate === undefined ? {} : { startAt: new Date(repeat.startDate) }),
    ...(repeat.endDate === undefined ? {} : { endAt: new Date(repeat.endDate) }),
  };
}
