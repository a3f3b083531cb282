import { assertRepeatName, InvalidArgumentError, mintId, scripts } from '@echo/protocol';
import type { QueueContext } from './context.js';

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
  assertRepeatName(name);
  const every = whole('everyMs', options.everyMs, 1);
  const first = whole('firstInMs', options.firstInMs ?? every, 0);
  const reply = await ctx.conn.run(scripts().repeat_register, [ctx.keys.repeat, ctx.keys.repeatRecord(name)], [name, every, ctx.codec.encode(options.template), first]);
  return reply === 1 ? 'registered' : 'exists';
}

/** Stops a repeating job. */
export async function cancelRepeat<T>(ctx: QueueContext<T>, name: string): Promise<'cancelled' | 'absent'> {
  assertRepeatName(name);
  const reply = await ctx.conn.run(scripts().repeat_cancel, [ctx.keys.repeat, ctx.keys.repeatRecord(name)], [name]);
  return reply === 1 ? 'cancelled' : 'absent';
}

/** How many repeats are registered. */
export async function repeatCount<T>(ctx: QueueContext<T>): Promise<number> {
  return (await ctx.conn.command('ZCARD', ctx.keys.repeat)) as number;
}

/**
 * Fires every due repeat once (queue.md §10.2): a fresh id per occurrence, straight to pending,
 * then the cadence advances. A crash between the two fires the occurrence again under a new id,
 * so occurrences are at-least-once. Answers how many fired.
 */
export async function fireDueRepeats<T>(ctx: QueueContext<T>, batch = 100, onError?: (name: string, error: unknown) => void): Promise<number> {
  const k = ctx.keys;
  const names = (await ctx.conn.run(scripts().repeat_due, [k.repeat], [whole('batch', batch, 1)])) as string[];
  let fired = 0;
  for (const name of names) {
    try {
      const record = k.repeatRecord(name);
      const [every, template] = (await ctx.conn.command('HMGET', record, 'every_ms', 'template')) as [string | null, string | null];
      if (every === null || template === null) {
        await ctx.conn.run(scripts().repeat_cancel, [k.repeat, record], [name]);
        continue;
      }
      const id = mintId('JOB');
      await ctx.conn.run(scripts().enqueue, [k.job(id), k.pending, k.wake], [id, template]);
      await ctx.conn.run(scripts().repeat_advance, [k.repeat, record], [name, every]);
      fired++;
    } catch (error) {
      onError?.(name, error);
    }
  }
  return fired;
}
