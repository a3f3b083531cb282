import { afterAll, describe, expect, it } from 'vitest';
import { InvalidArgumentError, MalformedIdError, UnknownStateError, type JobId } from '../index.js';
import { SCRIPT_NAMES, scripts } from '../scripts/catalog.js';
import { bind } from './bind.js';
import * as t from './index.js';

// Argument-shape tests: each transition's KEYS and ARGV, written out literally, with no server. The
// literals are the wire: swapping two `@key` lines in a header, or two values in a binding, fails here.
const J = 'JOB0Nb1VTbfnu4';
const P = 'JOB0Nb1VTbfnu5' as JobId;
const G = 'USR0Nb1VTbfnu4';
const q = (type: string): string => `emq:{orders}:${type}`;
const LB = [q('gactive'), q('glimit'), q('ring'), q('wake'), q('paused')];

const seen = new Set<string>();

function shape(tr: { keys: readonly string[]; args: readonly unknown[]; script: { name: string } }): { script: string; keys: string[]; args: unknown[] } {
  seen.add(tr.script.name);
  return { script: tr.script.name, keys: [...tr.keys], args: [...tr.args] };
}

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
      keys: [q(`job:${J}`), q('pending'), q('de:d1'), q('events'), q('meta'), q('journal'), q('job:'), q('wake')],
      args: [J, 'p', 500, 'dedup', 'd1'],
    });
  });
  it('a keyed admission names its key in the row [TS]: dedup, and dedup_keep for a business key', () => {
    expect(shape(t.enqueueDedup({ queue: 'orders', id: J, payload: 'p', dedupId: 'order-42', keepMs: 60000 })).args).toEqual([J, 'p', '', 'dedup', 'order-42', 'dedup_keep', '60000']);
    expect(shape(t.scheduleDedup({ queue: 'orders', id: J, payload: 'p', inMs: 5, dedupId: 'k', keepMs: 9 })).args).toEqual([J, 'p', 'in', 5, '', 'dedup', 'k', 'dedup_keep', '9']);
    expect(() => t.enqueueDedup({ queue: 'orders', id: J, payload: 'p', dedupId: 'k', ttlMs: 5, keepMs: 9 })).toThrow(InvalidArgumentError);
    expect(() => t.enqueueDedup({ queue: 'orders', id: J, payload: 'p', dedupId: 'k', keepMs: 0 })).toThrow(InvalidArgumentError);
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
      keys: [q(`job:${J}`), q('schedule'), q('de:d1'), q('events'), q('meta'), q('journal'), q('job:')],
      args: [J, 'p', 'in', 7, 500, 'name', 'n', 'dedup', 'd1'],
    });
    expect(shape(t.scheduleDedup({ queue: 'orders', id: J, payload: 'p', at: 5, dedupId: 'd1' })).args).toEqual([J, 'p', 'at', 5, '', 'dedup', 'd1']);
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

describe('claims', () => {
  const flat = [q('pending'), q('active'), q('meta'), q('job:'), q('limiter'), q('events'), q('journal'), q('expired'), q('de:')];
  const lane = [q('ring'), q('active'), q('meta'), q('gactive'), q('glimit'), q('job:'), q('g:')];
  it('claim and bclaim, with and without markers', () => {
    expect(shape(t.claim({ queue: 'orders', leaseMs: 100 }))).toEqual({ script: 'claim', keys: flat, args: [100] });
    expect(shape(t.claim({ queue: 'orders', leaseMs: 100, markerTtlMs: 200 })).args).toEqual([100, 200]);
    expect(shape(t.claimBatch({ queue: 'orders', leaseMs: 100, size: 5 }))).toEqual({ script: 'bclaim', keys: flat, args: [100, 5] });
  });
  it('claim tickets ride after the marker slot, which reads 0 when no marker was asked for', () => {
    expect(shape(t.claim({ queue: 'orders', leaseMs: 100, ticket: 'w.1' })).args).toEqual([100, 0, 'w.1']);
    expect(shape(t.claimBatch({ queue: 'orders', leaseMs: 100, size: 5, markerTtlMs: 7, ticket: 'w.2' })).args).toEqual([100, 5, 7, 'w.2']);
    expect(shape(t.laneClaim({ queue: 'orders', leaseMs: 100, ticket: 'w.3' })).args).toEqual([100, 0, 'w.3']);
    expect(shape(t.laneBatchClaim({ queue: 'orders', leaseMs: 100, ticket: 'w.4' })).args).toEqual([100, 0, '', 'w.4']);
    expect(shape(t.laneBatchClaim({ queue: 'orders', leaseMs: 100, size: 3, ticket: 'w.4' })).args).toEqual([100, 0, 3, 'w.4']);
    expect(shape(t.recoverClaims({ queue: 'orders', ticket: 'w.1', sinceMs: 12, leaseMs: 100 }))).toEqual({ script: 'claim_recover', keys: [q('active'), q('job:')], args: ['w.1', 12, 100] });
  });
  it('lane claims', () => {
    const ev = [q('events'), q('journal'), q('expired'), q('de:')];
    expect(shape(t.laneClaim({ queue: 'orders', leaseMs: 100 }))).toEqual({ script: 'gclaim', keys: [...lane, q('limiter'), q('grate'), ...ev], args: [100] });
    expect(shape(t.laneWeightedClaim({ queue: 'orders', leaseMs: 100 }))).toEqual({ script: 'gwclaim', keys: [...lane, q('gweight'), q('limiter'), q('grate'), ...ev], args: [100] });
    expect(shape(t.laneBatchClaim({ queue: 'orders', leaseMs: 100, markerTtlMs: 9 }))).toEqual({ script: 'gbclaim', keys: [...lane, q('limiter'), q('grate'), q('gweight'), ...ev], args: [100, 9] });
    expect(shape(t.laneBatchClaim({ queue: 'orders', leaseMs: 100, size: 5 })).args).toEqual([100, 0, 5]);
    expect(shape(t.laneBatchClaim({ queue: 'orders', leaseMs: 100, markerTtlMs: 9, size: 5 })).args).toEqual([100, 9, 5]);
    expect(() => t.laneBatchClaim({ queue: 'orders', leaseMs: 100, size: 0 })).toThrow(InvalidArgumentError);
  });
  it('reads claim replies into rows with their flow link', () => {
    const row = t.claim({ queue: 'orders', leaseMs: 100 }).parse([J, 'p', 2, P, null, 'id']);
    expect(row).toEqual({ id: J, payload: 'p', attempts: 2, group: undefined, parent: { id: P, queue: 'orders', policy: 'id' }, options: {} });
    expect(t.claim({ queue: 'orders', leaseMs: 100 }).parse([])).toBeUndefined();
    expect(t.laneClaim({ queue: 'orders', leaseMs: 1 }).parse([J, 'p', 1, G])).toMatchObject({ group: G, parent: undefined, options: {} });
  });
  it('reads the per-job option fields after the spec fields, false meaning absent', () => {
    const full = t.claim({ queue: 'orders', leaseMs: 1 }).parse([J, 'p', 1, false, false, false, 'ship', '4', '{"type":"fixed","ms":5}', '250']);
    expect(full?.options).toEqual({ name: 'ship', maxAttempts: 4, backoff: '{"type":"fixed","ms":5}', timeoutMs: 250 });
    expect(t.claim({ queue: 'orders', leaseMs: 1 }).parse([J, 'p', 1, false, false, false, false, false, false, false])?.options).toEqual({});
    expect(t.laneClaim({ queue: 'orders', leaseMs: 1 }).parse([J, 'p', 1, G, 'ship', false, false, '9'])?.options).toEqual({ name: 'ship', timeoutMs: 9 });
    const tp = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    expect(t.claim({ queue: 'orders', leaseMs: 1 }).parse([J, 'p', 1, false, false, false, false, false, false, false, tp, 'ro=1'])?.options).toEqual({ trace: { traceparent: tp, tracestate: 'ro=1' } });
    expect(t.laneClaim({ queue: 'orders', leaseMs: 1 }).parse([J, 'p', 1, G, false, false, false, false, tp, false])?.options).toEqual({ trace: { traceparent: tp } });
  });
});

describe('settlement', () => {
  const settle = (metric: string): string[] => [q('active'), q('pending'), q('schedule'), q('dead'), q(`job:${J}`), q(`metrics:${metric}`), ...LB, q('g:')];
  it('complete: plain, same-queue parent, cross-queue parent', () => {
    expect(shape(t.complete({ queue: 'orders', job: { id: J, attempts: 3 }, publish: true }))).toEqual({
      script: 'complete',
      keys: [...settle('completed'), q('job:'), q('events'), q('meta'), q('completed'), q('de:'), q('journal'), q('outcomes')],
      args: [J, '3', '', '', '', '', '1'],
    });
    const same = t.complete({ queue: 'orders', job: { id: J, attempts: 1, parent: { id: P, queue: 'orders', policy: 'fp' } }, result: 'r' });
    expect(shape(same).keys.slice(19)).toEqual([q(`job:${P}:dependencies`), q(`job:${P}:processed`), q(`job:${P}`), q('waiting-children')]);
    expect(shape(same).args).toEqual([J, '1', 'sq', P, 'r', '']);
    const cross = t.complete({ queue: 'orders', job: { id: J, attempts: 1, parent: { id: P, queue: 'billing', policy: 'fp' } } });
    expect(shape(cross).keys.slice(19)).toEqual([q('flow:outbox')]);
    expect(shape(cross).args).toEqual([J, '1', 'xq', P, '', 'billing']);
  });
  it('complete_batch', () => {
    expect(shape(t.completeBatch({ queue: 'orders', jobs: [{ id: J, attempts: 1 }, { id: P, attempts: 2, result: '{"n":1}' }] }))).toEqual({
      script: 'complete_batch',
      keys: [q('active'), q('pending'), q('schedule'), q('dead'), q('metrics:completed'), ...LB, q('g:'), q('job:'), q('events'), q('meta'), q('completed'), q('de:'), q('journal'), q('outcomes')],
      args: ['', J, '1', '', P, '2', '{"n":1}'],
    });
    expect(t.completeBatch({ queue: 'orders', jobs: [] }).parse([1, -1, -2, -3])).toEqual(['ok', 'gone', 'stale', 'flow']);
  });
  it('complete_claim: the complete_batch keys plus meta and limiter, then publish, lease, size, marker and the pairs', () => {
    expect(shape(t.completeAndClaim({ queue: 'orders', jobs: [{ id: J, attempts: 1 }], size: 4, leaseMs: 100, markerTtlMs: 200, publish: true }))).toEqual({
      script: 'complete_claim',
      keys: [q('active'), q('pending'), q('schedule'), q('dead'), q('metrics:completed'), ...LB, q('g:'), q('job:'), q('events'), q('meta'), q('limiter'), q('completed'), q('de:'), q('journal'), q('outcomes'), q('expired')],
      args: ['1', 100, 4, 200, '', J, '1', ''],
    });
    expect(shape(t.completeAndClaim({ queue: 'orders', jobs: [], size: 0, leaseMs: 5 })).args).toEqual(['', 5, 0, 0, '']);
    expect(shape(t.completeAndClaim({ queue: 'orders', jobs: [], size: 1, leaseMs: 5, ticket: 'w.1' })).args).toEqual(['', 5, 1, 0, 'w.1']);
    const round = t.completeAndClaim({ queue: 'orders', jobs: [], size: 1, leaseMs: 5 }).parse([[1, -3], [[J, 'p', 1, P, 'billing', null]]]);
    expect(round).toEqual({
      completions: ['ok', 'flow'],
      claimed: [{ id: J, payload: 'p', attempts: 1, group: undefined, parent: { id: P, queue: 'billing', policy: 'fp' }, options: {} }],
      limitedMs: 0,
    });
    expect(t.completeAndClaim({ queue: 'orders', jobs: [], size: 1, leaseMs: 5 }).parse([[], [], 250]).limitedMs).toBe(250);
    expect(() => t.completeAndClaim({ queue: 'orders', jobs: [], size: -1, leaseMs: 5 })).toThrow(InvalidArgumentError);
  });
  it('retry: plain and with a parent', () => {
    expect(shape(t.retry({ queue: 'orders', job: { id: J, attempts: 2 }, delayMs: 10, maxAttempts: 3, error: 'boom' }))).toEqual({
      script: 'retry',
      keys: [...settle('failed'), q('job:'), q('meta'), q('dead:at'), q('de:'), q('events'), q('journal')],
      args: [J, '2', 10, 3, 'boom', '', '', ''],
    });
    expect(shape(t.retry({ queue: 'orders', job: { id: J, attempts: 2 }, delayMs: 10, maxAttempts: 3, error: 'boom', publish: true })).args).toEqual([J, '2', 10, 3, 'boom', '', '', '', '1']);
    const child = t.retry({ queue: 'orders', job: { id: J, attempts: 2, parent: { id: P, queue: 'orders', policy: 'id' } }, delayMs: 0, maxAttempts: 1, error: 'e' });
    expect(shape(child).keys.slice(18)).toEqual([q(`job:${P}:failed`), q(`job:${P}:unsuccessful`), q(`job:${P}:dependencies`), q(`job:${P}`), q('waiting-children')]);
    expect(shape(child).args.slice(5)).toEqual(['sq:id', P, '']);
  });
  it('step jobs: add_children and wait_children', () => {
    const held = { id: J, attempts: 2 };
    expect(shape(t.addChildren({ queue: 'orders', job: held, local: [{ id: P, payload: 'c', policy: 'id' }], remote: 1 }))).toEqual({
      script: 'add_children',
      keys: [q(`job:${J}`), q('active'), q(`job:${J}:dependencies`), q('pending'), q('events'), q('meta'), q('journal'), q(`job:${P}`)],
      args: [J, '2', '1', P, 'c', 'id'],
    });
    expect(shape(t.addChildren({ queue: 'orders', job: held, local: [], remote: -2 })).args).toEqual([J, '2', '-2']);
    expect(t.addChildren({ queue: 'orders', job: held, local: [], remote: 0 }).parse(3)).toEqual({ open: 3 });
    expect(t.addChildren({ queue: 'orders', job: held, local: [], remote: 0 }).parse(-1)).toBe('duplicate');
    expect(() => t.addChildren({ queue: 'orders', job: held, local: [], remote: 0.5 })).toThrow(InvalidArgumentError);
    expect(shape(t.waitChildren({ queue: 'orders', job: held }))).toEqual({
      script: 'wait_children',
      keys: [q('active'), q(`job:${J}`), q(`job:${J}:dependencies`), q('waiting-children'), q('job:')],
      args: [J, '2'],
    });
  });
  it('delay and lease extensions', () => {
    expect(shape(t.delay({ queue: 'orders', job: { id: J, attempts: 1 }, until: 50 }))).toEqual({
      script: 'delay',
      keys: [q('active'), q('schedule'), q(`job:${J}`), ...LB, q('g:'), q('job:'), q('events'), q('meta'), q('journal')],
      args: [J, '1', 'in', 50],
    });
    expect(shape(t.delay({ queue: 'orders', job: { id: J, attempts: 1 }, until: 50, publish: true })).args).toEqual([J, '1', 'in', 50, '1']);
    expect(shape(t.extendLock({ queue: 'orders', job: { id: J, attempts: 4 }, leaseMs: 9 }))).toEqual({ script: 'extend_lock', keys: [q('active'), q(`job:${J}`)], args: [J, '4', 9] });
    expect(shape(t.extendLocks({ queue: 'orders', jobs: [{ id: J, attempts: 4 }], leaseMs: 9, markerTtlMs: 18 }))).toEqual({
      script: 'extend_locks',
      keys: [q('active'), q('job:')],
      args: [9, 18, J, '4'],
    });
    expect(shape(t.giveBack({ queue: 'orders', jobs: [{ id: J, attempts: 4 }] }))).toEqual({
      script: 'give_back',
      keys: [q('active'), q('pending'), ...LB, q('job:'), q('g:'), q('events'), q('meta'), q('journal')],
      args: [J, '4'],
    });
  });
});

describe('recovery, operator, lanes, reads, repeat, flows, cache', () => {
  it('recovery', () => {
    expect(shape(t.promote({ queue: 'orders', limit: 5 }))).toEqual({ script: 'promote', keys: [q('schedule'), q('pending'), ...LB, q('job:'), q('g:'), q('events'), q('meta'), q('journal')], args: [5] });
    expect(shape(t.promoteNext({ queue: 'orders', limit: 5 }))).toEqual({ script: 'promote_next', keys: [q('schedule'), q('pending'), ...LB, q('job:'), q('g:'), q('events'), q('meta'), q('journal')], args: [5] });
    expect(t.promoteNext({ queue: 'orders', limit: 5 }).parse([2, -1])).toEqual({ moved: 2, nextInMs: -1 });
    expect(shape(t.rescheduleJob({ queue: 'orders', id: J }))).toEqual({ script: 'reschedule_job', keys: [q('schedule'), q('pending'), ...LB, q(`job:${J}`), q('g:'), q('events'), q('meta'), q('journal')], args: [J, 'now', 0] });
    expect(shape(t.rescheduleJob({ queue: 'orders', id: J, inMs: 250 })).args).toEqual([J, 'in', 250]);
    expect(t.rescheduleJob({ queue: 'orders', id: J }).parse(0)).toBe('not_scheduled');
    expect(() => t.rescheduleJob({ queue: 'orders', id: J, inMs: -1 })).toThrow(InvalidArgumentError);
    expect(shape(t.retryDead({ queue: 'orders', limit: 7 }))).toEqual({ script: 'retry_dead', keys: [q('dead'), q('pending'), ...LB, q('job:'), q('g:'), q('dead:at'), q('events'), q('meta'), q('journal')], args: [7] });
    expect(() => t.retryDead({ queue: 'orders', limit: 0 })).toThrow(InvalidArgumentError);
    expect(shape(t.cleanDead({ queue: 'orders', ids: [J, P] }))).toEqual({ script: 'clean_dead', keys: [q('dead'), q('job:'), q('dead:at'), q('de:')], args: [J, P] });
    expect(shape(t.cleanCompleted({ queue: 'orders', ids: [J] }))).toEqual({ script: 'clean_completed', keys: [q('completed'), q('job:')], args: [J] });
    expect(() => t.cleanCompleted({ queue: 'orders', ids: ['nope'] })).toThrow(MalformedIdError);
    expect(() => t.cleanDead({ queue: 'orders', ids: ['nope'] })).toThrow(MalformedIdError);
    expect(shape(t.reap({ queue: 'orders', limit: 5 }))).toEqual({ script: 'reap', keys: [q('active'), q('pending'), ...LB, q('job:'), q('g:'), q('events'), q('meta'), q('journal')], args: [5] });
    const ended = [q('waiting-children'), q('meta'), q('dead:at'), q('de:'), q('events'), q('journal')];
    expect(shape(t.sweepStalled({ queue: 'orders', maxStalled: 1, limit: 5 })).keys).toEqual([q('active'), q('pending'), q('dead'), q('metrics:failed'), ...LB, q('job:'), q('g:'), ...ended]);
    expect(shape(t.sweepStalled({ queue: 'orders', maxStalled: 1, limit: 5, outbox: true })).keys).toEqual([q('active'), q('pending'), q('dead'), q('metrics:failed'), ...LB, q('job:'), q('g:'), ...ended, q('flow:outbox')]);
    expect(shape(t.reapGroup({ queue: 'orders', group: G, limit: 2 }))).toEqual({
      script: 'greap_group',
      keys: [q('active'), q(`g:${G}:pending`), ...LB, q('job:')],
      args: [G, 2],
    });
    expect(shape(t.reprocess({ queue: 'orders', id: J })).keys).toEqual([q(`job:${J}`), q('dead'), q('pending'), ...LB, q('g:'), q('dead:at'), q('events'), q('meta'), q('journal')]);
  });
  it('operator', () => {
    expect(shape(t.drain({ queue: 'orders', includeScheduled: true })).keys).toEqual([q('job:'), q('pending'), q('waiting-children'), q('de:'), q('schedule')]);
    expect(shape(t.retentionSet({ queue: 'orders', completed: { count: 100, ageMs: 5000 }, failed: { count: Number.POSITIVE_INFINITY } }))).toEqual({
      script: 'retention_set',
      keys: [q('meta')],
      args: ['100', '5000', '-1', ''],
    });
    expect(shape(t.retentionSet({ queue: 'orders' })).args).toEqual(['0', '', '', '']);
    // An age bound alone keeps completed jobs that young, with no count bound (not none).
    expect(shape(t.retentionSet({ queue: 'orders', completed: { ageMs: 60_000 } })).args).toEqual([String(Number.MAX_SAFE_INTEGER), '60000', '', '']);
    expect(() => t.retentionSet({ queue: 'orders', completed: { count: -2 } })).toThrow(InvalidArgumentError);
    expect(shape(t.removeJob({ queue: 'orders', id: J, dedupId: 'd' }))).toEqual({
      script: 'remove_job',
      keys: [q('pending'), q('active'), q('schedule'), q('dead'), ...LB, q('job:'), q('g:'), q('waiting-children'), q('de:'), q('completed'), q('dead:at'), q('events'), q('meta'), q('journal'), q('de:d')],
      args: [J, 'd'],
    });
    expect(shape(t.addLog({ queue: 'orders', id: J, line: 'l', keep: 2 }))).toEqual({ script: 'add_log', keys: [q(`job:${J}`), q(`job:${J}:logs`)], args: ['l', 2] });
    expect(shape(t.updateProgress({ queue: 'orders', id: J, progress: '5' })).keys).toEqual([q(`job:${J}`), q('events'), q('meta'), q('journal')]);
    expect(shape(t.updateProgress({ queue: 'orders', id: J, progress: '5' })).args).toEqual([J, '5']);
    expect(shape(t.updateProgress({ queue: 'orders', id: J, progress: '5', kind: 'string' })).args).toEqual([J, '5', 'string']);
    const ob = shape(t.obliterate({ queue: 'orders', budget: 10, repeatNames: ['r1'] }));
    expect(ob.keys.at(-1)).toBe(q('repeat:r1'));
    expect(ob.keys).toHaveLength(31);
    expect(ob.keys[20]).toBe(q('waiting-children'));
    expect(ob.keys.slice(21, 24)).toEqual([q('workers'), q('workers:info'), q('grate')]);
    expect(ob.keys.slice(24, 30)).toEqual([q('completed'), q('dead:at'), q('de:'), q('journal'), q('outcomes'), q('expired')]);
    expect(ob.args).toEqual(['', 10, 'r1']);
  });
  it('lanes', () => {
    expect(shape(t.laneLimit({ queue: 'orders', group: G, limit: 2 }))).toEqual({
      script: 'glimit',
      keys: [q('glimit'), q('gactive'), q('ring'), q('paused'), q('wake'), q(`g:${G}:pending`)],
      args: [G, 2],
    });
    expect(shape(t.laneReassign({ queue: 'orders', id: J, to: G })).keys.slice(0, 2)).toEqual([q(`job:${J}`), q(`g:${G}:pending`)]);
    expect(t.laneReassign({ queue: 'orders', id: J, to: G }).parse(-1)).toBe('not_found');
    expect(shape(t.laneReassign({ queue: 'orders', id: J, to: G, toName: 'tenantA' })).args).toEqual([J, G, 'tenantA']);
  });
  it('reads', () => {
    expect(shape(t.counts({ queue: 'orders', names: ['dead', 'completed'] }))).toEqual({ script: 'counts', keys: [q('g:'), q('dead'), q('metrics:completed')], args: ['z', 'm'] });
    expect(shape(t.counts({ queue: 'orders', names: ['lanes', 'dead'] }))).toEqual({
      script: 'counts',
      keys: [q('g:'), q('ring'), q('paused'), q('glimit'), q('gactive'), q('gweight'), q('dead')],
      args: ['g', '-', '-', '-', '-', 'z'],
    });
    expect(t.counts({ queue: 'orders', names: ['lanes', 'dead'] }).parse([3, 1])).toEqual({ lanes: 3, dead: 1 });
    expect(t.counts({ queue: 'orders', names: ['dead', 'completed'] }).parse([1, 2])).toEqual({ dead: 1, completed: 2 });
    expect(() => t.counts({ queue: 'orders', names: ['toString' as 'dead'] })).toThrow(UnknownStateError);
    expect(shape(t.counts({ queue: 'orders', names: ['awaiting_children'] }))).toEqual({ script: 'counts', keys: [q('g:'), q('waiting-children')], args: ['s'] });
    expect(shape(t.stateLookup({ queue: 'orders', id: J })).keys).toEqual([q('pending'), q('active'), q('schedule'), q('dead'), q(`job:${J}`), q('g:')]);
  });
  it('repeat and flows', () => {
    expect(shape(t.repeatRegister({ queue: 'orders', name: 'r', everyMs: 5, template: 'p', firstInMs: 0 }))).toEqual({
      script: 'repeat_register',
      keys: [q('repeat'), q('repeat:r')],
      args: ['r', 5, 'p', 0],
    });
    expect(shape(t.enqueueFlow({ queue: 'orders', parent: { id: P, payload: 'pp' }, children: [{ id: J, payload: 'c', policy: 'fp' }] }))).toEqual({
      script: 'enqueue_flow',
      keys: [q(`job:${P}`), q(`job:${P}:dependencies`), q('pending'), q('waiting-children'), q('events'), q('meta'), q('journal'), q(`job:${J}`)],
      args: [P, 'pp', '1', J, 'c', 'fp'],
    });
    expect(shape(t.enqueueFlowChild({ queue: 'billing', id: J, payload: 'c', parent: { id: P, queue: 'orders', policy: 'fp' } }))).toEqual({
      script: 'enqueue_flow_child',
      keys: ['emq:{billing}:job:' + J, 'emq:{billing}:pending'],
      args: [J, 'c', P, 'orders', 'fp'],
    });
    expect(shape(t.flowFailDeliver({ parentQueue: 'orders', parentId: P, childId: J, error: 'e', policy: 'fp' })).keys).toEqual([
      q(`job:${P}:dependencies`),
      q(`job:${P}:failed`),
      q(`job:${P}:unsuccessful`),
      q(`job:${P}`),
      q('pending'),
      q('dead'),
      q('waiting-children'),
      q('events'),
      q('meta'),
      q('journal'),
      q('job:'),
      q('dead:at'),
      q('de:'),
    ]);
  });
  it('flow outbox trim', () => {
    expect(shape(t.flowOutboxTrim({ queue: 'orders', delivered: 3 }))).toEqual({ script: 'flow_outbox_trim', keys: [q('flow:outbox')], args: [3] });
  });
  it('flow re-emit', () => {
    expect(shape(t.flowReemit({ queue: 'orders', id: J, error: 'e' }))).toEqual({ script: 'flow_reemit', keys: [q(`job:${J}`), q('flow:outbox')], args: [J, 'orders', 'e'] });
  });
  it('streams', () => {
    expect(shape(t.streamDrop({ queue: 'orders', stream: 'audit' }))).toEqual({
      script: 'stream_drop',
      keys: ['', ':archived', ':msgids', ':msgids:until', ':order', ':paused'].map((part) => q(`stream:audit${part}`)),
      args: [],
    });
    const dl = [q('stream:audit'), q('stream:audit:dead')];
    expect(
      shape(t.streamClaim({ queue: 'orders', stream: 'audit', group: 'g', consumer: 'c', mode: 'idle', cursor: '0-0', count: 100, minIdleMs: 30_000, maxDeliveries: 5 })),
    ).toEqual({ script: 'stream_claim', keys: dl, args: ['g', 'c', 'idle', '0-0', 100, 30_000, 5] });
    expect(() => t.streamClaim({ queue: 'orders', stream: 'audit', group: 'g', consumer: 'c', mode: 'self', cursor: '0-0', count: 0, minIdleMs: 0, maxDeliveries: 0 })).toThrow(/count/);
    expect(shape(t.streamRedrive({ queue: 'orders', stream: 'audit', records: ['5-0', '6-0'] }))).toEqual({ script: 'stream_redrive', keys: dl, args: ['5-0', '6-0'] });
    expect(() => t.streamRedrive({ queue: 'orders', stream: 'audit', records: [] })).toThrow(/records/);
    const settle = { queue: 'orders', stream: 'audit', group: 'g', consumer: 'c', minIdleMs: 30_000, maxDeliveries: 5 };
    const entries = [
      { kind: 'ack', xid: '1-1', attempts: 1 },
      { kind: 'retry', xid: '1-2', attempts: 2, delayMs: 5_000, reason: 'boom', key: 'a' },
      { kind: 'dead', xid: '1-3', attempts: 1, reason: 'bad' },
    ] as const;
    expect(shape(t.streamSettle({ ...settle, entries }))).toEqual({
      script: 'stream_settle',
      keys: [...dl, q('stream:audit:order')],
      args: ['g', 'c', 30_000, 5, 'ack', '1-1', '', '1', '', '', 'retry', '1-2', 'a', '2', '5000', 'boom', 'dead', '1-3', '', '1', '', 'bad'],
    });
    expect(() => t.streamSettle({ ...settle, entries: [] })).toThrow(/entries/);
    expect(() => t.streamSettle({ ...settle, entries: [{ kind: 'retry', xid: '1-1', attempts: 1, delayMs: -1 }] })).toThrow(/delayMs/);
    expect(() => t.streamSettle({ ...settle, entries: [{ kind: 'nack' as 'ack', xid: '1-1', attempts: 1 }] })).toThrow(/kind/);
  });
  it('stream dedup, progress and order [TS]', () => {
    expect(shape(t.streamAppend({ queue: 'orders', stream: 'audit', windowMs: 120_000, records: [{ msgId: 'm1', xid: '1-1', fields: ['id', 'EVT', 'a', '1'] }] }))).toEqual({
      script: 'stream_append',
      keys: [q('stream:audit'), q('stream:audit:msgids'), q('stream:audit:msgids:until')],
      args: [120_000, 'm1', '1-1', '4', 'id', 'EVT', 'a', '1'],
    });
    expect(() => t.streamAppend({ queue: 'orders', stream: 'audit', windowMs: 0, records: [{ msgId: 'm', xid: '1-1', fields: ['id', 'E'] }] })).toThrow(/windowMs/);
    expect(() => t.streamAppend({ queue: 'orders', stream: 'audit', windowMs: 1, records: [{ msgId: 'm', xid: '1-1', fields: ['a', '1'] }] })).toThrow(/fields/);
    const batch = { queue: 'orders', stream: 'audit', records: ['1-1', 'EVT1', 2, 'a', '1', '1-2', 'EVT2', 0], count: 2 };
    expect(shape(t.streamAppendBatch({ ...batch, extra: [] }))).toEqual({ script: 'stream_append_batch', keys: [q('stream:audit')], args: [0, ...batch.records] });
    expect(shape(t.streamAppendBatch({ ...batch, extra: ['_tp', 'x'] }))).toEqual({ script: 'stream_append_batch', keys: [q('stream:audit')], args: [2, ...batch.records, '_tp', 'x'] });
    expect(() => t.streamAppendBatch({ ...batch, count: 0, extra: [] })).toThrow(/records/);
    expect(() => t.streamAppendBatch({ ...batch, extra: ['_tp'] })).toThrow(/extra/);
    expect(shape(t.streamTouch({ queue: 'orders', stream: 'audit', group: 'g', consumer: 'c', xids: ['1-1'] }))).toEqual({ script: 'stream_touch', keys: [q('stream:audit')], args: ['g', 'c', '1-1'] });
    const order = [q('stream:audit'), q('stream:audit:order')];
    expect(shape(t.streamOrderAdmit({ queue: 'orders', stream: 'audit', group: 'g', consumer: 'c', orderBy: 'acct', last: '1-2', entries: [{ xid: '1-2', key: 'a' }] }))).toEqual({
      script: 'stream_order_admit',
      keys: order,
      args: ['g', 'c', 'acct', '1-2', '1-2', 'a'],
    });
    expect(shape(t.streamGroupForget({ queue: 'orders', stream: 'audit', group: 'g' }))).toEqual({ script: 'stream_group_forget', keys: [q('stream:audit:order'), q('stream:audit:paused')], args: ['g', ''] });
    expect(shape(t.streamGroupForget({ queue: 'orders', stream: 'audit', group: 'g', position: '5-0' })).args).toEqual(['g', '5-0']);
  });
  it('cache', () => {
    expect(shape(t.coherenceDrop({ table: 'users', id: G, version: J }))).toEqual({ script: 'coherence_drop', keys: [`ecc:{users}:${G}`], args: [J] });
  });
  it('keyed cache entries [TS]', () => {
    const e = (k: string): string => `ecc:{users}:k:${k}`;
    expect(shape(t.cacheRead({ namespace: 'users', key: 'user:42', token: 'tok', leaseMs: 500 }))).toEqual({
      script: 'cache_read',
      keys: [e('user:42'), 'ecc:{users}:l:user:42'],
      args: ['tok', 500, '0', ''],
    });
    expect(shape(t.cacheRead({ namespace: 'users', key: 'a', leaseMs: 1, hex: true })).args).toEqual(['', 1, '1', '']);
    expect(shape(t.cacheRead({ namespace: 'users', key: 'a', token: 'tok', leaseMs: 1, deadline: 1_700_000_000_000 })).args).toEqual(['tok', 1, '0', '1700000000000']);
    expect(() => t.cacheRead({ namespace: 'users', key: 'a', leaseMs: 1, deadline: 1 })).toThrow(InvalidArgumentError);
    expect(shape(t.cacheWrite({ namespace: 'users', key: 'a', frame: 'F', px: 0, maxlen: 100, tags: ['x', 'y'] }))).toEqual({
      script: 'cache_write',
      keys: [e('a'), 'ecc:{users}:l:a', 'ecc:{users}:log', 'ecc:{users}:tag:x', 'ecc:{users}:tag:y'],
      args: ['F', 0, '', 100, 'a', 0, '0'],
    });
    expect(shape(t.cacheWrite({ namespace: 'users', key: 'a', frame: 'F', px: 5, maxlen: 100, graceMs: 3 })).args).toEqual(['F', 5, '', 100, 'a', 3, '0']);
    expect(shape(t.cacheWrite({ namespace: 'users', key: 'a', frame: 'F', px: 5, token: 'tok', maxlen: 100, entryLease: { graceMs: 7 } })).args).toEqual(['F', 5, 'tok', 100, 'a', 7, '1']);
    expect(() => t.cacheWrite({ namespace: 'users', key: 'a', frame: 'F', px: 5, maxlen: 100, graceMs: -1 })).toThrow(InvalidArgumentError);
    expect(() => t.cacheWrite({ namespace: 'users', key: 'a', frame: 'F', px: 5, maxlen: 100, entryLease: { graceMs: 7 } })).toThrow(InvalidArgumentError);
    expect(shape(t.cacheRelease({ namespace: 'users', key: 'a', token: 'tok', maxlen: 9 }))).toEqual({
      script: 'cache_release',
      keys: ['ecc:{users}:l:a', 'ecc:{users}:log', e('a')],
      args: ['tok', 9, 'a', '0'],
    });
    expect(shape(t.cacheDelete({ namespace: 'users', keys: ['a', 'b'], version: J, maxlen: 9 }))).toEqual({
      script: 'cache_delete',
      keys: ['ecc:{users}:log', e('a'), e('b')],
      args: [J, 9, '1', 'a', 'b'],
    });
    expect(shape(t.cacheDelete({ namespace: 'users', keys: ['a'], version: J, maxlen: 9, announce: false })).args[2]).toBe('0');
    expect(shape(t.cacheTagDelete({ namespace: 'users', tag: 'x', keys: ['a'], version: J, maxlen: 9 }))).toEqual({
      script: 'cache_tag_delete',
      keys: ['ecc:{users}:log', 'ecc:{users}:tag:x', e('a')],
      args: [J, 9, 'a'],
    });
    expect(shape(t.cacheClear({ namespace: 'users', version: J, maxlen: 9 }))).toEqual({ script: 'cache_clear', keys: ['ecc:{users}:log'], args: [J, 9] });
    expect(shape(t.cachePull({ namespace: 'users', key: 'a', version: J, maxlen: 9 }))).toEqual({
      script: 'cache_pull',
      keys: [e('a'), 'ecc:{users}:log'],
      args: [J, 9, 'a', '0'],
    });
    expect(shape(t.cachePull({ namespace: 'users', key: 'a', version: J, maxlen: 9, hex: true })).args[3]).toBe('1');
    expect(shape(t.cacheExpire({ namespace: 'users', key: 'a', version: J, grace: 500, maxlen: 9 }))).toEqual({
      script: 'cache_expire',
      keys: [e('a'), 'ecc:{users}:log'],
      args: [J, 500, 9, 'a'],
    });
  });
  it('keyed cache keys are validated before anything is built', () => {
    expect(() => t.cacheRead({ namespace: 'users', key: 'a{b}', leaseMs: 1 })).toThrow(InvalidArgumentError);
    expect(() => t.cacheRead({ namespace: 'users', key: '', leaseMs: 1 })).toThrow(InvalidArgumentError);
    expect(() => t.cacheRead({ namespace: 'users', key: 'a\nb', leaseMs: 1 })).toThrow(InvalidArgumentError);
    expect(() => t.cacheWrite({ namespace: 'users', key: 'a', frame: 'F', px: 0, maxlen: 1, tags: ['t}'] })).toThrow(InvalidArgumentError);
    expect(() => t.cacheDelete({ namespace: 'users', keys: [], version: J, maxlen: 1 })).toThrow(InvalidArgumentError);
    expect(() => t.cacheRelease({ namespace: 'users', key: 'a', token: '', maxlen: 1 })).toThrow(InvalidArgumentError);
    expect(() => t.cachePull({ namespace: 'users', key: 'a}', version: J, maxlen: 1 })).toThrow(InvalidArgumentError);
    expect(() => t.cacheExpire({ namespace: 'users', key: 'a', version: J, grace: -1, maxlen: 1 })).toThrow(InvalidArgumentError);
  });
});

describe('the rest of the catalog', () => {
  it('one-key and no-argument transitions', () => {
    expect(shape(t.updateData({ queue: 'orders', id: J, payload: 'p' }))).toEqual({ script: 'update_data', keys: [q(`job:${J}`)], args: ['p'] });
    expect(shape(t.pauseQueue({ queue: 'orders' }))).toEqual({ script: 'queue_pause', keys: [q('meta')], args: [] });
    expect(shape(t.resumeQueue({ queue: 'orders' }))).toEqual({ script: 'queue_resume', keys: [q('meta')], args: [] });
    expect(shape(t.isMaxed({ queue: 'orders' }))).toEqual({ script: 'is_maxed', keys: [q('meta'), q('active')], args: [] });
    expect(shape(t.rateTtl({ queue: 'orders', max: 3 }))).toEqual({ script: 'rate_ttl', keys: [q('limiter'), q('meta')], args: [3] });
    const gates = [q('meta'), q('limiter')];
    expect(shape(t.setGates({ queue: 'orders', concurrency: 4, limiter: { max: 10, durationMs: 1000 } }))).toEqual({ script: 'gate_set', keys: gates, args: ['4', '10', '1000'] });
    expect(shape(t.setGates({ queue: 'orders', concurrency: null })).args).toEqual(['0', '', '']);
    expect(shape(t.setGates({ queue: 'orders', limiter: null })).args).toEqual(['', '0', '']);
    expect(() => t.setGates({ queue: 'orders', concurrency: 0 })).toThrow(InvalidArgumentError);
    expect(() => t.setGates({ queue: 'orders', limiter: { max: 1, durationMs: 0 } })).toThrow(InvalidArgumentError);
    const events = [q('meta'), q('journal')];
    expect(shape(t.setEvents({ queue: 'orders', chatty: true, journal: 1000 }))).toEqual({ script: 'events_set', keys: events, args: ['1', '1000'] });
    expect(shape(t.setEvents({ queue: 'orders', chatty: false })).args).toEqual(['0', '']);
    expect(shape(t.setEvents({ queue: 'orders', journal: null })).args).toEqual(['', '0']);
    expect(() => t.setEvents({ queue: 'orders', journal: 0 })).toThrow(InvalidArgumentError);
    expect(shape(t.rateLimit({ queue: 'orders', ms: 500 }))).toEqual({ script: 'rate_limit', keys: gates, args: [500] });
    expect(t.rateLimit({ queue: 'orders', ms: 500 }).parse(0)).toBe(false);
    expect(() => t.rateLimit({ queue: 'orders', ms: 0 })).toThrow(InvalidArgumentError);
    expect(shape(t.laneCounts({ queue: 'orders', groups: [G] }))).toEqual({ script: 'lane_counts', keys: [q('g:')], args: [G] });
  });
  it('lane controls', () => {
    expect(shape(t.lanePause({ queue: 'orders', group: G }))).toEqual({ script: 'gpause', keys: [q('paused'), q('ring')], args: [G] });
    expect(shape(t.laneResume({ queue: 'orders', group: G }))).toEqual({
      script: 'gresume',
      keys: [q('paused'), q('ring'), q('glimit'), q('gactive'), q('wake'), q(`g:${G}:pending`)],
      args: [G],
    });
    expect(shape(t.laneWeight({ queue: 'orders', group: G, weight: 3 }))).toEqual({ script: 'gweight', keys: [q('gweight')], args: [G, 3] });
    expect(shape(t.laneDrain({ queue: 'orders', group: G }))).toEqual({ script: 'gdrain', keys: [q(`g:${G}:pending`), q('ring'), q('job:'), q('waiting-children')], args: [G] });
    expect(shape(t.laneRateLimit({ queue: 'orders', group: G, limit: { max: 5, durationMs: 1000 } }))).toEqual({ script: 'grate', keys: [q('grate'), q('ring'), q('wake')], args: [G, '5', '1000'] });
    expect(shape(t.laneRateLimit({ queue: 'orders', group: G, limit: null })).args).toEqual([G, '0', '']);
    expect(() => t.laneRateLimit({ queue: 'orders', group: G, limit: { max: 0, durationMs: 1 } })).toThrow(InvalidArgumentError);
    expect(() => t.laneRateLimit({ queue: 'orders', group: 'nope', limit: null })).toThrow(MalformedIdError);
  });
  it('worker registry', () => {
    const reg = [q('workers'), q('workers:info')];
    expect(shape(t.workerBeat({ queue: 'orders', id: 'w1', ttlMs: 300, info: '{}' }))).toEqual({ script: 'worker_beat', keys: reg, args: ['w1', 300, '{}'] });
    expect(shape(t.workerLeave({ queue: 'orders', id: 'w1' }))).toEqual({ script: 'worker_leave', keys: reg, args: ['w1'] });
    expect(shape(t.workerList({ queue: 'orders', limit: 10 }))).toEqual({ script: 'worker_list', keys: reg, args: [10] });
    expect(t.workerList({ queue: 'orders', limit: 10 }).parse([5, 'w1', 9, '{}', 'w2', 8, false])).toEqual({
      now: 5,
      workers: [
        { id: 'w1', lapsesAt: 9, info: '{}' },
        { id: 'w2', lapsesAt: 8, info: undefined },
      ],
    });
    expect(t.workerList({ queue: 'orders', limit: 1 }).parse([5])).toEqual({ now: 5, workers: [] });
    expect(() => t.workerBeat({ queue: 'orders', id: '', ttlMs: 1, info: '' })).toThrow(InvalidArgumentError);
    expect(() => t.workerBeat({ queue: 'orders', id: 'w', ttlMs: 0, info: '' })).toThrow(InvalidArgumentError);
  });
  it('job schedulers', () => {
    expect(shape(t.schedulerUpsert({ queue: 'orders', name: 'r', cadence: { cron: '0 * * * *', tz: 'Europe/Paris' }, template: 'p', first: { at: 9 }, limit: 3 }))).toEqual({
      script: 'scheduler_upsert',
      keys: [q('repeat'), q('repeat:r')],
      args: ['r', '', '0 * * * *', 'Europe/Paris', 'p', 'at', 9, '', '', 3],
    });
    expect(shape(t.schedulerUpsert({ queue: 'orders', name: 'r', cadence: { everyMs: 50 }, template: 'p', first: { inMs: 0 }, startAt: 1, endAt: 2 })).args).toEqual([
      'r', 50, '', '', 'p', 'in', 0, 1, 2, '',
    ]);
    expect(shape(t.schedulerDue({ queue: 'orders', limit: 10 }))).toEqual({ script: 'scheduler_due', keys: [q('repeat')], args: [10] });
    expect(t.schedulerDue({ queue: 'orders', limit: 10 }).parse(['a', '5', 'b', '6'])).toEqual([{ name: 'a', due: 5 }, { name: 'b', due: 6 }]);
    expect(t.schedulerDue({ queue: 'orders', limit: 10 }).parse([['a', 5]])).toEqual([{ name: 'a', due: 5 }]);
    expect(shape(t.schedulerFire({ queue: 'orders', name: 'r', due: 5, id: J, nextAt: 7 }))).toEqual({
      script: 'scheduler_fire',
      keys: [q('repeat'), q('repeat:r'), q(`job:${J}`), q('pending'), q('wake')],
      args: ['r', '5', J, 7],
    });
  });
  it('repeat bookkeeping and flow holds', () => {
    expect(shape(t.repeatCancel({ queue: 'orders', name: 'r' }))).toEqual({ script: 'repeat_cancel', keys: [q('repeat'), q('repeat:r')], args: ['r'] });
    expect(shape(t.repeatAdvance({ queue: 'orders', name: 'r', everyMs: '5' }))).toEqual({ script: 'repeat_advance', keys: [q('repeat'), q('repeat:r')], args: ['r', 5] });
    expect(shape(t.repeatDue({ queue: 'orders', limit: 4 }))).toEqual({ script: 'repeat_due', keys: [q('repeat')], args: [4] });
    expect(shape(t.holdParent({ queue: 'orders', id: P, payload: 'p', children: 2, link: { id: J, queue: 'billing', policy: 'id' } }))).toEqual({
      script: 'hold_parent',
      keys: [q(`job:${P}`), q(`job:${P}:dependencies`), q('waiting-children')],
      args: [P, 'p', 2, J, 'billing', 'id'],
    });
    expect(shape(t.flowDeliver({ parentQueue: 'orders', parentId: P, childId: J, result: 'r' }))).toEqual({
      script: 'flow_deliver',
      keys: [q(`job:${P}:dependencies`), q(`job:${P}:processed`), q(`job:${P}`), q('pending'), q('waiting-children'), q('events'), q('meta'), q('journal')],
      args: [J, 'r', P],
    });
  });
});

afterAll(() => {
  // Every script of the catalog has a typed transition, and each one's wire shape is written out above.
  expect([...seen].sort()).toEqual([...SCRIPT_NAMES].sort());
});

describe('bind', () => {
  it('refuses a missing, an unknown or a trailing value, and a bad id, before anything is sent', () => {
    const s = scripts().enqueue;
    expect(() => bind(s, { scope: { q: 'orders', id: J }, args: { id: J } })).toThrow(InvalidArgumentError);
    expect(() => bind(s, { scope: { q: 'orders', id: J }, args: { id: J, payload: 'p', extra: 1 } })).toThrow(/extra/);
    expect(() => bind(scripts().queue_pause, { scope: { q: 'orders' }, restArgs: ['x'] })).toThrow(InvalidArgumentError);
    expect(() => bind(s, { scope: { q: 'orders' }, args: { id: J, payload: 'p' } })).toThrow(/id/);
    expect(() => t.enqueue({ queue: 'orders', id: 'nope', payload: 'p' })).toThrow(MalformedIdError);
    expect(() => t.claim({ queue: 'orders', leaseMs: 0 })).toThrow(InvalidArgumentError);
  });

  it("places a @tail layout's keys in the header's order, and refuses a missing, an unknown or a doubled tail", () => {
    const s = scripts().complete;
    const args = { id: J, token: '1', mode: 'sq', parent_id: P, result: '', parent_queue: '' };
    // Given in another order than complete.lua's `@tail sq` line: bind writes the header's.
    const keys = { waiting_children: 'W', parent_row: 'R', parent_processed: 'PP', parent_deps: 'D' };
    expect(bind(s, { scope: { q: 'orders', id: J }, args, tail: { layout: 'sq', keys } }).keys.slice(-4)).toEqual(['D', 'PP', 'R', 'W']);
    expect(() => bind(s, { scope: { q: 'orders', id: J }, args, tail: { layout: 'zz', keys } })).toThrow(/no @tail zz/);
    expect(() => bind(s, { scope: { q: 'orders', id: J }, args, tail: { layout: 'sq', keys: { ...keys, extra: 'X' } } })).toThrow(/extra/);
    const { parent_row: _dropped, ...missing } = keys;
    expect(() => bind(s, { scope: { q: 'orders', id: J }, args, tail: { layout: 'sq', keys: missing } })).toThrow(/parent_row/);
    expect(() => bind(s, { scope: { q: 'orders', id: J }, args, tail: { layout: 'sq', keys }, restKeys: ['X'] })).toThrow(/not both/);
  });
});
