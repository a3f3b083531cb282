import { channel, tracingChannel } from 'node:diagnostics_channel';
import { RenamedError, UnknownOptionError } from '@echo/protocol';
import { describe, expect, it } from 'vitest';
import { instrumentEcho } from '../src/index.js';

/** Whether anything listens on the hooks instrumentEcho subscribes to (nothing, in this file). */
function listening(): boolean {
  return channel('emq.job.complete').hasSubscribers || tracingChannel('emq.job.enqueue').start.hasSubscribers;
}

const rows: readonly { readonly options: Record<string, unknown>; readonly key: string; readonly hint?: string }[] = [
  { options: { enabled: true }, key: 'enabled', hint: 'close()' },
  { options: { traces: false }, key: 'traces', hint: 'tracerProvider: false' },
  { options: { metrics: false }, key: 'metrics', hint: 'meterProvider: false' },
  { options: { tracer: {} }, key: 'tracer', hint: 'tracerProvider' },
  { options: { meter: {} }, key: 'meter', hint: 'meterProvider' },
  { options: { requireParentSpan: true }, key: 'requireParentSpan', hint: 'producer context' },
  { options: { queue: [] }, key: 'queue' },
  { options: { limits: { produced: 10, spans: 5 } }, key: 'spans' },
];

describe('instrumentEcho refuses options it does not read, before subscribing to anything', () => {
  it.each(rows)('$key', ({ options, key, hint }) => {
    expect(listening()).toBe(false);
    let caught: unknown;
    try {
      instrumentEcho({ tracerProvider: false, meterProvider: false, ...options });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(UnknownOptionError);
    expect((caught as UnknownOptionError).option).toBe(key);
    if (hint !== undefined) expect((caught as UnknownOptionError).hint).toContain(hint);
    expect(listening()).toBe(false);
  });

  it('takes the options it reads', () => {
    const otel = instrumentEcho({ tracerProvider: false, meterProvider: false, limits: { produced: 10, open: 10 }, queues: [] });
    otel.close();
  });

  it('closes with close() like every handle; the old stop() is refused and unsubscribes nothing', () => {
    const otel = instrumentEcho({ tracerProvider: false, queues: [] });
    expect(listening()).toBe(true);
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- the refused name is what this test calls
    expect(() => otel.stop()).toThrow(RenamedError);
    expect(listening()).toBe(true);
    expect(otel.closed).toBe(false);
    otel.close();
    otel.close();
    expect(otel.closed).toBe(true);
    expect(listening()).toBe(false);
  });
});
