import { describe, expect, it } from 'vitest';
import { checkHistory, History, RollingChecker, type Operation } from '../src/index.js';
import { done, enq, start } from './fixtures/history-ops.js';

/** A steady run: every 10 ms a job is enqueued, started and completed; one cache write and read, one bus entry acked by both groups. */
function* steady(ms: number): Generator<Operation> {
  for (let t = 0, n = 0; t < ms; t += 10, n++) {
    const job = `j${n}`;
    yield enq(job, t);
    yield start(job, 1, t + 2);
    yield done(job, 1, t + 5);
    yield { type: 'cache-write', key: `k${n % 4}`, value: n, at: t, ackAt: t + 1 };
    yield { type: 'cache-read', key: `k${(n + 1) % 4}`, value: n - 3 >= 0 ? n - 3 : null, at: t + 2, reader: 'r1' };
    yield { type: 'bus-append', entry: `e${n}`, at: t };
    yield { type: 'bus-ack', entry: `e${n}`, group: 'g1', at: t + 3 };
    yield { type: 'bus-ack', entry: `e${n}`, group: 'g2', at: t + 4 };
  }
}

describe('RollingChecker: judges as the run goes, holds what it must', () => {
  it('keeps a steady run flat and agrees with checkHistory', () => {
    const options = { groups: ['g1', 'g2'], coherenceMs: 50 };
    const rolling = new RollingChecker({ ...options, graceMs: 1_000, retainMs: 5_000 });
    const whole = new History();
    const retained: number[] = [];
    let next = 1_000;
    for (const op of steady(120_000)) {
      rolling.record(op);
      whole.record(op);
      if (op.at >= next) {
        rolling.sweep(op.at);
        retained.push(rolling.snapshot().retained);
        next += 1_000;
      }
    }
    // Flat: what is held after a minute is what was held after ten seconds (give or take a sweep).
    expect(Math.max(...retained.slice(10))).toBeLessThan(Math.min(...retained.slice(10)) * 1.2);
    const mid = rolling.snapshot();
    expect(mid.judged.jobs).toBeGreaterThan(11_000);
    const result = rolling.finish();
    const reference = checkHistory(whole.operations, options);
    expect(result.violations).toEqual([]);
    expect(reference.violations).toEqual([]);
    expect(result.judged).toEqual(reference.judged);
    expect(result.operations).toBe(reference.operations);
  });

  it('judges a job only after its end and its lease bound, and catches a second end arriving late', () => {
    const rolling = new RollingChecker({ graceMs: 100, retainMs: 10_000 });
    for (const op of [enq('a', 0), start('a', 1, 10, 1_000), done('a', 1, 20)]) rolling.record(op);
    rolling.sweep(500);
    expect(rolling.snapshot().judged.jobs).toBe(0);
    rolling.sweep(1_200);
    expect(rolling.snapshot()).toMatchObject({ judged: { jobs: 1 }, violations: 0 });
    // A stale worker's acceptance reported after the job was judged: still one job, now ended twice.
    rolling.record(start('a', 2, 1_500));
    rolling.record(done('a', 2, 1_600));
    const result = rolling.finish();
    expect(result.violations.map((v) => v.rule)).toEqual(['job-ended-twice']);
    expect(result.judged.jobs).toBe(1);
  });

  it('finds an overlapping start, a lost job and an unreported end, as checkHistory does', () => {
    const ops: Operation[] = [
      enq('a', 0), start('a', 1, 10, 1_000), start('a', 2, 500, 1_000), done('a', 2, 600),
      enq('b', 0), start('b', 1, 10), done('b', 1, 20, false),
      enq('c', 0), start('c', 1, 10), done('c', 1, 20, false), { type: 'final', job: 'c', state: 'completed', at: 40_000 },
    ];
    const rolling = new RollingChecker({ graceMs: 100 });
    const whole = new History();
    for (const op of ops) {
      rolling.record(op);
      whole.record(op);
      rolling.sweep(op.at);
    }
    rolling.sweep(50_000);
    const rules = (vs: readonly { rule: string; subject: string }[]): string[] => vs.map((v) => `${v.subject}:${v.rule}`).sort();
    expect(rules(rolling.finish().violations)).toEqual(rules(checkHistory(whole.operations).violations));
    expect(rules(checkHistory(whole.operations).violations)).toEqual(['a:overlapping-starts', 'b:job-lost', 'c:end-unreported']);
  });

  it('still finds a stale read after old writes were folded', () => {
    const rolling = new RollingChecker({ coherenceMs: 100, retainMs: 1_000 });
    for (let v = 1; v <= 50; v++) rolling.record({ type: 'cache-write', key: 'k', value: v, at: v * 10, ackAt: v * 10 + 1 });
    rolling.sweep(5_000);
    expect(rolling.snapshot().retained).toBe(1);
    rolling.record({ type: 'cache-read', key: 'k', value: 49, at: 5_000, reader: 'r1' });
    rolling.record({ type: 'cache-read', key: 'k', value: 50, at: 5_001, reader: 'r1' });
    rolling.sweep(5_002);
    const result = rolling.finish();
    expect(result.judged.reads).toBe(2);
    expect(result.violations.map((v) => v.rule)).toEqual(['stale-read']);
  });

  it('judges an entry once every group acknowledged it and reports one left unacknowledged', () => {
    const rolling = new RollingChecker({ groups: ['g1', 'g2'] });
    rolling.record({ type: 'bus-append', entry: 'e1', at: 0 });
    rolling.record({ type: 'bus-ack', entry: 'e1', group: 'g1', at: 1 });
    rolling.record({ type: 'bus-append', entry: 'e2', at: 0 });
    rolling.record({ type: 'bus-ack', entry: 'e2', group: 'g1', at: 1 });
    rolling.record({ type: 'bus-ack', entry: 'e2', group: 'g2', at: 2 });
    rolling.sweep(10);
    expect(rolling.unackedEntries).toBe(1);
    expect(rolling.snapshot().judged.entries).toBe(1);
    const result = rolling.finish();
    expect(result.violations.map((v) => v.subject)).toEqual(['e1 (group g2)']);
  });
});
