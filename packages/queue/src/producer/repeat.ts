import { execute, InvalidArgumentError, reads, transitions as t } from '@echo/protocol/queue';
import type { QueueContext } from '../core/context.js';
import { checkRepeatOptions } from '../core/option-checks.js';

/** A repeat registration: every `everyMs`, enqueue `template` under a freshly minted id. */
export interface RepeatOptions<T> {
  readonly everyMs: number;
  readonly template: T;
  /** Delay before the first occurrence, from the server's now. Default: one cadence. */
  readonly firstInMs?: number;
}

function whole(name: string, value: number, min: number): number {
  if (!Number.isSafeInteger(value) || value < min) throw new InvalidArgumentError(name, `must be an integer >= ${min}`);
  return value;
}

/** Registers a repeating job; an existing name is left exactly as it is (queue.md §10.1). */
export async function registerRepeat<T>(ctx: QueueContext<T>, name: string, options: RepeatOptions<T>): Promise<'registered' | 'exists'> {
  checkRepeatOptions(options);
  const every = whole('everyMs', options.everyMs, 1);
  const firstInMs = options.firstInMs ?? every;
  return execute(ctx.conn, t.repeatRegister({ queue: ctx.name, name, everyMs: every, template: ctx.codec.encode(options.template), firstInMs }));
}

/** Stops a repeating job. */
export async function cancelRepeat<T>(ctx: QueueContext<T>, name: string): Promise<'cancelled' | 'absent'> {
  return execute(ctx.conn, t.repeatCancel({ queue: ctx.name, name }));
}

/** How many repeats are registered. */
export async function repeatCount<T>(ctx: QueueContext<T>): Promise<number> {
  return reads.sendRead(ctx.conn, reads.queue.repeatCount({ keys: ctx.keys }));
}
