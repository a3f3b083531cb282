import { describe, expect, it } from 'vitest';
import { InvalidArgumentError, MalformedIdError } from '../../src/index.js';
import * as t from '../../src/transitions/index.js';
import { J, P, G, q, shapes } from './shape.js';

const shape = shapes('admission');

describe('admission', () => {
  it('enqueue, with and without the wake list', () => {
    expect(shape(t.enqueue({ queue: 'orders', id: J, payload: 'p' }))).toEqual({ script: 'enqueue', keys: [q(`job:${J}`), q('pending'), q('events'), q('meta'), q('journal')], args: [J, 'p'] });
    expect(shape(t.enqueue({ queue: 'orders', id: J, payload: 'p', wake: true })).keys).toEqual([q(`job:${J}`), q('pending'), q('events'), q('meta'), q('journal'), q('wake')]);
  });
  it('per-job option fields travel as trailing field/value pairs of every single admission [TS]', () => {
    const options = { name: 'ship', maxAttempts: 4, backoff: '{"type":"fixed","ms":5}', timeoutMs: 250 };
    const pairs = ['name', 'ship', 'max_attempts', '4', 'backoff', '{"type":"fixed","ms":5}', 'timeout_ms', '250'];
    expect(shape(t.enqueue({ queue: 'orders', id: J, payload: 'p', options })).args).toEqual([J, 'p', ...pairs]);
    expect(shape(t.schedule({ queue: 'orders', id: J, payload: 'p', inMs: 7, options: { name: 'n' } })).args).toEqual([J, 'p', 'in', 7, 'name', 'n']);
    expect(shape(t.enqueueDedup({ queue: 'orders', id: J, payload: 'p', dedupId: 'd', options: { timeoutMs: 3 } })).args).toEqual([J, 'p', '', 'timeout_ms', '3', 'dedup', 'd']);
    expect(shape(t.laneEnqueue({ queue: 'orders', id: J, payload: 'p', group: G, options: { maxAttempts: 1 } })).args).toEqual([J, 'p', G, 'max_attempts', '1']);
    expect(() => t.enqueue({ queue: 'orders', id: J, payload: 'p', options: { name: '' } })).toThrow(InvalidArgumentError);
    expect(() => t.enqueue({ queue: 'orders', id: J, payload: 'p', options: { name: 'x'.repeat(257) } })).toThrow(InvalidArgumentError);
    expect(() => t.enqueue({ queue: 'orders', id: J, payload: 'p', options: { maxAttempts: 0 } })).toThrow(InvalidArgumentError);
    expect(() => t.enqueue({ queue: 'orders', id: J, payload: 'p', options: { timeoutMs: 1.5 } })).toThrow(InvalidArgumentError);
  });
  it('the producer trace context travels as traceparent/tracestate pairs, checked before anything is sent [TS]', () => {
    const tp = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    expect(shape(t.enqueue({ queue: 'orders', id: J, payload: 'p', options: { name: 'n', trace: { traceparent: tp } } })).args).toEqual([J, 'p', 'name', 'n', 'traceparent', tp]);
    expect(shape(t.schedule({ queue: 'orders', id: J, payload: 'p', at: 5, options: { trace: { traceparent: tp, tracestate: 'ro=1' } } })).args).toEqual([J, 'p', 'at', 5, 'traceparent', tp, 'tracestate', 'ro=1']);
    expect(shape(t.laneEnqueue({ queue: 'orders', id: J, payload: 'p', group: G, options: { trace: { traceparent: tp, tracestate: '' } } })).args).toEqual([J, 'p', G, 'traceparent', tp]);
    expect(() => t.enqueue({ queue: 'orders', id: J, payload: 'p', options: { trace: { traceparent: 'nope' } } })).toThrow(InvalidArgumentError);
    expect(() => t.enqueue({ queue: 'orders', id: J, payload: 'p', options: { trace: { traceparent: tp.toUpperCase() } } })).toThrow(InvalidArgumentError);
    expect(() => t.enqueue({ queue: 'orders', id: J, payload: 'p', options: { trace: { traceparent: tp, tracestate: 'x'.repeat(513) } } })).toThrow(InvalidArgumentError);
    expect(() => t.enqueue({ queue: 'orders', id: J, payload: 'p', options: { trace: { traceparent: tp, tracestate: 'a=\n' } } })).toThrow(InvalidArgumentError);
  });
  it('enqueue_many: rooted rows, items as trailing values, the wake list optional', () => {
    expect(shape(t.enqueueMany({ queue: 'orders', items: [{ id: J, payload: 'a' }, { id: P, payload: 'b' }] }))).toEqual({
      script: 'enqueue_many',
      keys: [q('job:'), q('pending'), q('events'), q('meta'), q('journal')],
      args: [J, 'a', P, 'b'],
    });
    expect(shape(t.enqueueMany({ queue: 'orders', items: [{ id: J, payload: 'a' }], wake: true })).keys).toEqual([q('job:'), q('pending'), q('events'), q('meta'), q('journal'), q('wake')]);
    expect(t.enqueueMany({ queue: 'orders', items: [] }).parse([1, 0, -1, -2])).toEqual(['enqueued', 'duplicate', 'kind', 'malformed']);
    expect(() => t.enqueueMany({ queue: 'orders', items: [{ id: 'nope', payload: 'a' }] })).toThrow(MalformedIdError);
  });
  it('enqueue_many_with: per item its time mode and its option pairs, counted', () => {
    const items = [
      { id: J, payload: 'a', options: { name: 'n', priority: 3 } },
      { id: P, payload: 'b', inMs: 50 },
      { id: J, payload: 'c', at: 9, options: { maxAttempts: 2 } },
      { id: P, payload: 'd', inMs: 0 },
    ];
    expect(shape(t.enqueueManyWith({ queue: 'orders', items, wake: true }))).toEqual({
      script: 'enqueue_many_with',
      keys: [q('job:'), q('pending'), q('schedule'), q('events'), q('meta'), q('journal'), q('wake')],
      args: [J, 'a', '', '0', '4', 'name', 'n', 'priority', '3', P, 'b', 'in', '50', '0', J, 'c', 'at', '9', '2', 'max_attempts', '2', P, 'd', '', '0', '0'],
    });
    expect(t.enqueueManyWith({ queue: 'orders', items: [] }).parse([1, 0, -1, -2])).toEqual(['enqueued', 'duplicate', 'kind', 'malformed']);
    expect(() => t.enqueueManyWith({ queue: 'orders', items: [{ id: J, payload: 'a', inMs: -1 }] })).toThrow(InvalidArgumentError);
  });
  it('enqueue_dedup', () => {
    expect(shape(t.enqueueDedup({ queue: 'orders', id: J, payload: 'p', dedupId: 'd1', ttlMs: 500, wake: true }))).toEqual({
      script: 'enqueue_dedup',
      keys: [q(`job:${J}`), q('pending'), q('de:d1'), q('events'), q('meta'), q('journal'), q('job:'), q('de:'), q('wake')],
      args: [J, 'p', 500, 'dedup', 'd1'],
    });
  });
  it('a keyed admission names its key in the row [TS]: dedup, and dedup_keep for a business key', () => {
    expect(shape(t.enqueueDedup({ queue: 'orders', id: J, payload: 'p', dedupId: 'order-42', keepMs: 60000 })).args).toEqual([J, 'p', '', 'dedup', 'order-42', 'dedup_keep', '60000']);
    expect(shape(t.scheduleDedup({ queue: 'orders', id: J, payload: 'p', inMs: 5, dedupId: 'k', keepMs: 9 })).args).toEqual([J, 'p', 'in', 5, '', 'dedup', 'k', 'dedup_keep', '9']);
    expect(() => t.enqueueDedup({ queue: 'orders', id: J, payload: 'p', dedupId: 'k', ttlMs: 5, keepMs: 9 })).toThrow(InvalidArgumentError);
    expect(() => t.enqueueDedup({ queue: 'orders', id: J, payload: 'p', dedupId: 'k', keepMs: 0 })).toThrow(InvalidArgumentError);
  });
  it('a business key beside the dedup id rides in the option pairs [TS]: idkey and idkey_keep, held code 3 a duplicate', () => {
    expect(shape(t.enqueueDedup({ queue: 'orders', id: J, payload: 'p', dedupId: 'd', idKey: 'a1', idKeyKeepMs: 60000 })).args).toEqual([J, 'p', '', 'dedup', 'd', 'idkey', 'a1', 'idkey_keep', '60000']);
    expect(shape(t.scheduleDedup({ queue: 'orders', id: J, payload: 'p', inMs: 5, dedupId: 'd', idKey: 'a1', idKeyKeepMs: 9 })).args).toEqual([J, 'p', 'in', 5, '', 'dedup', 'd', 'idkey', 'a1', 'idkey_keep', '9']);
    expect(() => t.enqueueDedup({ queue: 'orders', id: J, payload: 'p', dedupId: 'd', idKey: 'a1' })).toThrow(InvalidArgumentError);
    expect(() => t.enqueueDedup({ queue: 'orders', id: J, payload: 'p', dedupId: 'd', idKey: 'a:1', idKeyKeepMs: 9 })).toThrow();
    expect(() => t.enqueueDedup({ queue: 'orders', id: J, payload: 'p', dedupId: 'd', keepMs: 9, idKey: 'a1', idKeyKeepMs: 9 })).toThrow(InvalidArgumentError);
    expect(t.enqueueDedup({ queue: 'orders', id: J, payload: 'p', dedupId: 'd' }).parse([3, P])).toEqual({ status: 'duplicate', existingId: P });
  });
  it('a dedup mode rides in the option pairs [TS]: dedup_mode, and dedup_ttl for the window it restarts', () => {
    expect(shape(t.enqueueDedup({ queue: 'orders', id: J, payload: 'p', dedupId: 'k', ttlMs: 50, mode: 'debounce' })).args).toEqual([J, 'p', 50, 'dedup', 'k', 'dedup_mode', 'debounce', 'dedup_ttl', '50']);
    expect(shape(t.scheduleDedup({ queue: 'orders', id: J, payload: 'p', inMs: 5, dedupId: 'k', mode: 'replace' })).args).toEqual([J, 'p', 'in', 5, '', 'dedup', 'k', 'dedup_mode', 'replace']);
    expect(() => t.enqueueDedup({ queue: 'orders', id: J, payload: 'p', dedupId: 'k', mode: 'extend' })).toThrow(InvalidArgumentError);
    expect(() => t.enqueueDedup({ queue: 'orders', id: J, payload: 'p', dedupId: 'k', keepMs: 9, mode: 'replace' })).toThrow(InvalidArgumentError);
  });
  it('schedule at and in', () => {
    expect(shape(t.schedule({ queue: 'orders', id: J, payload: 'p', at: 5 }))).toEqual({ script: 'schedule', keys: [q(`job:${J}`), q('schedule'), q('events'), q('meta'), q('journal')], args: [J, 'p', 'at', 5] });
    expect(shape(t.schedule({ queue: 'orders', id: J, payload: 'p', inMs: 7 })).args).toEqual([J, 'p', 'in', 7]);
    expect(shape(t.schedule({ queue: 'orders', id: J, payload: 'p', inMs: 7, wake: true })).keys).toEqual([q(`job:${J}`), q('schedule'), q('events'), q('meta'), q('journal'), q('wake')]);
  });
  it('schedule_dedup [TS]: the schedule keys plus the dedup key, the schedule args plus the TTL, then option pairs', () => {
    expect(shape(t.scheduleDedup({ queue: 'orders', id: J, payload: 'p', inMs: 7, dedupId: 'd1', ttlMs: 500, options: { name: 'n' } }))).toEqual({
      script: 'schedule_dedup',
      keys: [q(`job:${J}`), q('schedule'), q('de:d1'), q('events'), q('meta'), q('journal'), q('job:'), q('de:')],
      args: [J, 'p', 'in', 7, 500, 'name', 'n', 'dedup', 'd1'],
    });
    expect(shape(t.scheduleDedup({ queue: 'orders', id: J, payload: 'p', at: 5, dedupId: 'd1' })).args).toEqual([J, 'p', 'at', 5, '', 'dedup', 'd1']);
    // [TS] With wake, the wake list follows: a job that became the schedule's head pushes a due hint.
    expect(shape(t.scheduleDedup({ queue: 'orders', id: J, payload: 'p', at: 5, dedupId: 'd1', wake: true })).keys).toEqual([q(`job:${J}`), q('schedule'), q('de:d1'), q('events'), q('meta'), q('journal'), q('job:'), q('de:'), q('wake')]);
    expect(t.scheduleDedup({ queue: 'orders', id: J, payload: 'p', at: 5, dedupId: 'd1' }).parse([2, P])).toEqual({ status: 'duplicate', existingId: P });
  });
  it('genqueue', () => {
    expect(shape(t.laneEnqueue({ queue: 'orders', id: J, payload: 'p', group: G }))).toEqual({
      script: 'genqueue',
      keys: [q(`job:${J}`), q(`g:${G}:pending`), q('ring'), q('paused'), q('glimit'), q('gactive'), q('wake'), q('events'), q('meta'), q('journal')],
      args: [J, 'p', G],
    });
  });
});
