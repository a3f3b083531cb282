import { channel, tracingChannel } from 'node:diagnostics_channel';
import { InvalidArgumentError } from '@echo/protocol';
import { describe, expect, it } from 'vitest';
import { instrumentEcho } from '../src/index.js';

/** Whether anything listens on the hooks instrumentEcho subscribes to (nothing, in this file). */
function listening(): boolean {
  return channel('emq.job.complete').hasSubscribers || tracingChannel('emq.job.enqueue').start.hasSubscribers;
}

const rows: readonly [string, Record<string, unknown>, string][] = [
  ['a tracer provider with no getTracer', { tracerProvider: {}, meterProvider: false }, 'tracerProvider'],
  ['a meter provider with no getMeter (after a valid tracer side)', { meterProvider: { meter: 1 } }, 'meterProvider'],
  ['queues that are not a list', { tracerProvider: false, meterProvider: false, queues: 'orders' }, 'queues'],
  ['a queue without counts()', { tracerProvider: false, meterProvider: false, queues: [{ name: 'orders' }] }, 'queues[0]'],
  ['lag that is not a function', { tracerProvider: false, meterProvider: false, lag: [] }, 'lag'],
  ['a limit that is not a positive integer', { tracerProvider: false, meterProvider: false, limits: { produced: 0 } }, 'limits.produced'],
];

describe('instrumentEcho checks its option values before subscribing to anything', () => {
  it.each(rows)('refuses %s', (_label, options, option) => {
    expect(listening()).toBe(false);
    let caught: unknown;
    try {
      instrumentEcho(options);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(InvalidArgumentError);
    expect((caught as InvalidArgumentError).argument).toBe(`instrumentEcho options.${option}`);
    expect(listening()).toBe(false);
  });
});
