import { describe, expect, it } from 'vitest';
import { checkHistory, formatViolation, History, type Operation, type Rule } from '../src/index.js';
import { done, enq, start } from './fixtures/history-ops.js';

function history(...ops: Operation[]): History {
  const h = new History();
  for (const op of ops) h.record(op);
  return h;
}

const write = (key: string, value: number, at: number, ackAt = at + 1): Operation => ({ type: 'cache-write', key, value, at, ackAt });
const read = (key: string, value: number | null, at: number): Operation => ({ type: 'cache-read', key, value, at, reader: 'r1' });

function rules(h: History, options?: Parameters<typeof checkHistory>[1]): Rule[] {
  return checkHistory(h.operations, options).violations.map((v) => v.rule);
}

describe('checkHistory: every acknowledged job ends exactly once', () => {
  it('passes a job completed once, one dead after a retry and one removed', () => {
    const h = history(
      enq('a'), start('a', 1, 10), done('a', 1, 20),
      enq('b'), start('b', 1, 10), done('b', 1, 20, true, 'retry'), start('b', 2, 30), done('b', 2, 40, true, 'dead'),
      enq('c'), { type: 'removed', job: 'c', at: 5 },
    );
    expect(rules(h)).toEqual([]);
    expect(checkHistory(h.operations).judged.jobs).toBe(3);
  });

  it('finds a lost job and prints only its operations', () => {
    const h = history(enq('a'), start('a', 1, 10), done('a', 1, 20, false), enq('b'), start('b', 1, 10), done('b', 1, 20));
    const [violation, ...rest] = checkHistory(h.operations).violations;
    expect(rest).toEqual([]);
    expect(violation?.rule).toBe('job-lost');
    expect(violation?.operations.map((op) => op.type)).toEqual(['enqueue', 'start', 'settle']);
    expect(violation?.operations.every((op) => 'job' in op && op.job === 'a')).toBe(true);
    expect(formatViolation(violation as never)).toMatch(/^job-lost: job a was acknowledged and never ended\n {2}#0 \+0ms enqueue job=a/);
  });

  it('finds a job completed twice', () => {
    expect(rules(history(enq('a'), start('a', 1, 10), done('a', 1, 20), start('a', 2, 2_000), done('a', 2, 2_010)))).toEqual(['job-ended-twice']);
  });

  it('finds a job the server ended without an accepted settlement being reported', () => {
    const ok = history(enq('a'), start('a', 1, 10), done('a', 1, 20), { type: 'final', job: 'a', state: 'completed', at: 99 });
    expect(rules(ok)).toEqual([]);
    const unreported = history(enq('a'), start('a', 1, 10), done('a', 1, 20, false), { type: 'final', job: 'a', state: 'completed', at: 99 });
    expect(rules(unreported)).toEqual(['end-unreported']);
  });

  it('does not judge jobs acknowledged after settledBefore', () => {
    expect(rules(history(enq('a', 500)), { settledBefore: 400 })).toEqual([]);
    expect(rules(history(enq('a', 300)), { settledBefore: 400 })).toEqual(['job-lost']);
  });
});

describe('checkHistory: no settlement accepted from a stale token', () => {
  it('passes a late settlement that was refused while the new lease holder completed', () => {
    const h = history(enq('a'), start('a', 1, 0), start('a', 2, 1_500), done('a', 1, 1_600, false), done('a', 2, 1_700));
    expect(rules(h)).toEqual([]);
  });

  it('finds a settlement accepted after another token started', () => {
    const h = history(enq('a'), start('a', 1, 0), start('a', 2, 1_500), done('a', 1, 1_600), done('a', 2, 1_700, false));
    const violations = checkHistory(h.operations).violations;
    expect(violations.map((v) => v.rule)).toEqual(['stale-token-accepted']);
    expect(violations[0]?.operations.map((op) => op.type)).toEqual(['start', 'start', 'settle']);
  });
});

describe('checkHistory: a start never overlaps another start of the job within its lease', () => {
  it('passes a re-run after the first lease lapsed, and one after the first attempt settled', () => {
    expect(rules(history(enq('a'), start('a', 1, 0, 1_000), start('a', 2, 1_200), done('a', 2, 1_300)))).toEqual([]);
    expect(rules(history(enq('a'), start('a', 1, 0, 1_000), done('a', 1, 100, true, 'retry'), start('a', 2, 200), done('a', 2, 300)))).toEqual([]);
  });

  it('finds a second start inside the first lease while the first still ran', () => {
    const h = history(enq('a'), start('a', 1, 0, 1_000), start('a', 2, 400, 1_000, 'w2'), done('a', 2, 500), done('a', 1, 900, false));
    const violations = checkHistory(h.operations).violations;
    expect(violations.map((v) => v.rule)).toEqual(['overlapping-starts']);
    expect(violations[0]?.operations.map((op) => op.type)).toEqual(['start', 'start']);
  });

  it('measures the lease from the claim when the start carries its bound, not from the handler start', () => {
    // Claimed at 0 with a 1 s lease, the handler started 40 ms later (a slow claim reply); its
    // settlement failed and the lease lapsed at 1000; the re-claim's handler started at 1010.
    const claimed = (token: number, at: number, leaseUntil: number): Operation => ({ type: 'start', job: 'a', token, at, leaseMs: 1_000, leaseUntil, worker: 'w1' });
    expect(rules(history(enq('a'), claimed(1, 40, 1_000), claimed(2, 1_010, 2_005), done('a', 2, 1_020)))).toEqual([]);
    // Without the bound the same history reads as a 30 ms overlap.
    expect(rules(history(enq('a'), start('a', 1, 40), start('a', 2, 1_010), done('a', 2, 1_020)))).toEqual(['overlapping-starts']);
    // A start before the bound is an overlap either way.
    expect(rules(history(enq('a'), claimed(1, 40, 1_000), claimed(2, 990, 1_990), done('a', 2, 1_000)))).toEqual(['overlapping-starts']);
  });

  it("takes a handler's recorded end as its finish when its settlement's report was lost with its process", () => {
    // Attempt 1 threw at 10 and its retry was accepted, but the worker process was killed before
    // reporting it; the retry's claim started attempt 2 at 190, inside attempt 1's lease.
    const end = (token: number, at: number): Operation => ({ type: 'handler-end', job: 'a', token, at, worker: 'w1' });
    expect(rules(history(enq('a'), start('a', 1, 0, 3_000), end(1, 10), start('a', 2, 190, 3_000, 'w2'), done('a', 2, 200)))).toEqual([]);
    // Without that record the same history is an overlap; with an end after the second start, too.
    expect(rules(history(enq('a'), start('a', 1, 0, 3_000), start('a', 2, 190, 3_000, 'w2'), done('a', 2, 200)))).toEqual(['overlapping-starts']);
    expect(rules(history(enq('a'), start('a', 1, 0, 3_000), start('a', 2, 190, 3_000, 'w2'), end(1, 195), done('a', 2, 200)))).toEqual(['overlapping-starts']);
  });
});

describe('checkHistory: cache reads are never older than the coherence bound allows', () => {
  it('passes a read of the old value inside the bound, the new value after it, and a miss', () => {
    const h = history(write('k', 1, 0), write('k', 2, 100), read('k', 1, 150), read('k', 2, 2_000), read('k', null, 2_100));
    expect(rules(h, { coherenceMs: 500 })).toEqual([]);
    expect(checkHistory(h.operations, { coherenceMs: 500 }).judged.reads).toBe(2);
  });

  it('finds a read of an overwritten value past the bound, with the two writes and the read', () => {
    const h = history(write('k', 1, 0), write('k', 2, 100), write('j', 1, 0), read('k', 1, 900), read('j', 1, 900));
    const violations = checkHistory(h.operations, { coherenceMs: 500 }).violations;
    expect(violations.map((v) => [v.rule, v.subject])).toEqual([['stale-read', 'k']]);
    expect(violations[0]?.operations.map((op) => op.type)).toEqual(['cache-write', 'cache-write', 'cache-read']);
  });
});

describe('checkHistory: every bus entry is acknowledged by every group or dead-lettered', () => {
  it('passes an entry acked by one group and dead-lettered by the other', () => {
    const h = history(
      { type: 'bus-append', entry: 'e1', at: 0 },
      { type: 'bus-ack', entry: 'e1', group: 'g1', at: 5 },
      { type: 'bus-dead', entry: 'e1', group: 'g2', at: 6 },
    );
    expect(rules(h, { groups: ['g1', 'g2'] })).toEqual([]);
  });

  it('finds the group that never acknowledged an entry', () => {
    const h = history({ type: 'bus-append', entry: 'e1', at: 0 }, { type: 'bus-ack', entry: 'e1', group: 'g1', at: 5 });
    const violations = checkHistory(h.operations, { groups: ['g1', 'g2'] }).violations;
    expect(violations.map((v) => [v.rule, v.subject])).toEqual([['bus-unacked', 'e1 (group g2)']]);
    expect(violations[0]?.operations.map((op) => op.type)).toEqual(['bus-append']);
  });
});

describe('History.merge', () => {
  it('orders the operations of several processes by time and numbers them again', () => {
    const a = history(enq('a', 10), enq('b', 30));
    const b = history(enq('c', 20));
    const merged = History.merge([a.operations, b.operations]);
    expect(merged.operations.map((op) => [op.seq, 'job' in op ? op.job : ''])).toEqual([
      [0, 'a'],
      [1, 'c'],
      [2, 'b'],
    ]);
  });
});
