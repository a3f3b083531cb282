import { strictOptions } from '@echo/protocol/queue';
import { BullMQInputError } from '../errors.js';
import type { RepeatOptions } from '../job-options.js';

export type { RepeatOptions };

const checkRepeatShape = strictOptions('repeat options', {
  known: ['every', 'pattern', 'tz', 'limit', 'startDate', 'endDate', 'key', 'offset', 'immediately'],
  hints: {
    count: 'the scheduler keeps its own iteration count',
    utc: 'give the time zone as tz',
    cron: 'BullMQ spelling here: pattern',
  },
  bounds: { every: 'span', startDate: 'instant', endDate: 'instant', offset: 'span' },
});

/** Checks `repeat` / a scheduler's repeat options, with BullMQ's refusals and texts. */
export function checkRepeat(repeat: RepeatOptions): void {
  checkRepeatShape(repeat);
  if (repeat.every !== undefined && repeat.pattern !== undefined) throw new BullMQInputError('repeat', 'Both .pattern and .every options are defined for this repeatable job');
  if (repeat.every === undefined && repeat.pattern === undefined) throw new BullMQInputError('repeat', 'Either .pattern or .every options must be defined for this repeatable job');
  if (repeat.immediately === true && repeat.startDate !== undefined) throw new BullMQInputError('repeat', 'Both .immediately and .startDate options are defined for this repeatable job');
  if (repeat.every !== undefined && (!Number.isSafeInteger(repeat.every) || repeat.every < 1)) throw new BullMQInputError('repeat.every', 'every must be an integer number of ms >= 1');
}

/** Epoch ms of a BullMQ date option (a Date, an ISO string or epoch ms). */
export function epochOf(value: Date | string | number | undefined): number | undefined {
  if (value === undefined) return undefined;
  return new Date(value).getTime();
}
