import { describe, expect, it } from 'vitest';
import { InvalidArgumentError, InvalidNameError, MalformedIdError, MalformedReplyError, mintId, parseAttempts, parseJobRow, queueKeys, reads, type JobId } from './support.js';
import { id, keys, SAMPLE_READS } from './queue-read-samples.js';

const other: JobId = mintId('JOB');

/** One builder: the command and arguments it sends, replies in each shape and what they parse to, and replies it refuses. */
interface Case {
  readonly name: keyof typeof SAMPLE_READS;
  readonly sends: readonly unknown[];
  readonly parses: readonly (readonly [shape: string, reply: unknown, value: unknown])[];
  readonly refuses: readonly unknown[];
}

const row = { state: 'pending', attempts: '1', payload: '"x"', name: 'email' };
const outboxEntry = `orders\0${id}\0${other}\0done`;

const CASES: readonly Case[] = [
  {
    name: 'job',
    sends: ['HGETALL', keys.job(id)],
    parses: [
      ['RESP2', Object.entries(row).flat(), parseJobRow(row)],
      ['RESP3 map', new Map(Object.entries(row)), parseJobRow(row)],
      ['RESP3 object', { ...row }, parseJobRow(row)],
      ['an absent row', [], undefined],
    ],
    refuses: ['OK', ['state'], ['state', 1], null],
  },
  { name: 'jobExists', sends: ['EXISTS', keys.job(id)], parses: [['1', 1, true], ['0', 0, false]], refuses: ['1', 2, null] },
  {
    name: 'jobLogs',
    sends: ['LRANGE', keys.jobSub(id, 'logs'), 0, -1],
    parses: [['strings', ['a', 'b'], ['a', 'b']], ['Buffers', [Buffer.from('a')], ['a']], ['none', [], []]],
    refuses: ['a', [1], null],
  },
  {
    name: 'jobAttempts',
    sends: ['LRANGE', keys.jobSub(id, 'attempts'), 0, -1],
    parses: [['records', ['1\ts\t100', '1\te\t150\tcompleted\t'], parseAttempts(['1\ts\t100', '1\te\t150\tcompleted\t'])]],
    refuses: ['1\ts\t100', [null]],
  },
  {
    name: 'jobVerdict',
    sends: ['HMGET', keys.job(id), 'state', 'result', 'last_error'],
    parses: [
      ['a completed row', ['completed', '42', null], { state: 'completed', result: '42', lastError: undefined }],
      ['an absent row', [null, null, null], { state: undefined, result: undefined, lastError: undefined }],
    ],
    refuses: [['completed'], 'completed', [1, null, null]],
  },
  {
    name: 'jobToken',
    sends: ['HMGET', keys.job(id), 'state', 'attempts'],
    parses: [
      ['a completed row', ['completed', '3'], { state: 'completed', attempts: 3 }],
      ['an absent row', [null, null], { state: undefined, attempts: undefined }],
    ],
    refuses: [['completed'], 'completed', ['completed', 'x']],
  },
  { name: 'dedup', sends: ['GET', keys.dedup('order-1')], parses: [['an id', id, id], ['nil', null, undefined]], refuses: ['not-an-id', 5] },
  { name: 'setSize', sends: ['ZCARD', keys.dead], parses: [['an integer', 3, 3]], refuses: ['3', null, 1.5] },
  {
    name: 'setPage',
    sends: ['ZRANGE', keys.deadAt, 0, 9, 'REV', 'WITHSCORES'],
    parses: [
      ['RESP2', [id, '1700000000000', other, '5'], [{ id, score: 1700000000000 }, { id: other, score: 5 }]],
      ['RESP3', [[id, 1700000000000], [other, 5]], [{ id, score: 1700000000000 }, { id: other, score: 5 }]],
      ['a member that is no job id', ['stray', '1', id, '2'], [{ id, score: 2 }]],
    ],
    refuses: [[id], [[id]], [id, 'x'], 'x'],
  },
  {
    name: 'newestPending',
    sends: ['ZRANGE', keys.pending, '+', '-', 'BYLEX', 'REV', 'LIMIT', 0, 5],
    parses: [['ids', [other, id], [other, id]], ['a member that is no job id', ['stray', id], [id]]],
    refuses: [[1], 'x'],
  },
  {
    name: 'scoredUpTo',
    sends: ['ZRANGE', keys.completed, '-inf', 1000, 'BYSCORE', 'LIMIT', 0, 10],
    parses: [['ids', [id], [id]]],
    refuses: [[null], {}],
  },
  {
    name: 'meta',
    sends: ['HGETALL', keys.meta],
    parses: [
      ['RESP2', ['paused', '1', 'concurrency', '4'], { paused: true, concurrency: 4, max: 0 }],
      ['RESP3 map', new Map([['max', '9']]), { paused: false, concurrency: 0, max: 9 }],
      ['an absent hash', {}, { paused: false, concurrency: 0, max: 0 }],
    ],
    refuses: [null, ['paused'], 'OK', ['paused', 1]],
  },
  { name: 'paused', sends: ['HEXISTS', keys.meta, 'paused'], parses: [['set', 1, true], ['unset', 0, false]], refuses: ['1', null] },
  { name: 'metricCount', sends: ['HGET', keys.metricsCompleted, 'count'], parses: [['a count', '7', 7], ['nil', null, 0]], refuses: ['x', '', ['7']] },
  { name: 'metricPoints', sends: ['LLEN', keys.metricsFailedData], parses: [['a length', 0, 0]], refuses: ['0', null] },
  {
    name: 'minuteCounts',
    sends: ['HGETALL', keys.metricsFailed],
    parses: [
      ['RESP2', ['count', '9', 'm:100', '2', 'm:101', '3'], new Map([[100, 2], [101, 3]])],
      ['RESP3 object', { count: '9', 'm:100': '2' }, new Map([[100, 2]])],
    ],
    refuses: [['m:1', 'x'], ['m:1'], 'x'],
  },
  { name: 'repeatNames', sends: ['ZRANGE', keys.repeat, 0, -1], parses: [['names', ['a', 'b'], ['a', 'b']]], refuses: [{}, [2]] },
  { name: 'repeatCount', sends: ['ZCARD', keys.repeat], parses: [['an integer', 2, 2]], refuses: ['2'] },
  {
    name: 'repeatSchedule',
    sends: ['ZRANGE', keys.repeat, 0, -1, 'WITHSCORES'],
    parses: [['RESP2', ['a', '100'], [{ name: 'a', next: 100 }]], ['RESP3', [['a', 100]], [{ name: 'a', next: 100 }]]],
    refuses: [['a'], [['a', 'x']]],
  },
  {
    name: 'scheduler',
    sends: ['HGETALL', keys.repeatRecord('nightly')],
    parses: [
      [
        'a cron record',
        ['cron', '0 * * * *', 'tz', 'UTC', 'count', '3', 'last_ms', '100', 'last_job', id, 'limit', '', 'template', '{}'],
        { everyMs: undefined, cron: '0 * * * *', tz: 'UTC', count: 3, lastRunAt: 100, lastJob: id, limit: undefined, startAt: undefined, endAt: undefined, template: '{}' },
      ],
      ['an interval record', { every_ms: '250', template: 't' }, { everyMs: 250, cron: undefined, tz: undefined, count: 0, lastRunAt: undefined, lastJob: undefined, limit: undefined, startAt: undefined, endAt: undefined, template: 't' }],
      ['a gone record', [], undefined],
    ],
    refuses: [['template'], 7],
  },
  {
    name: 'cronCadence',
    sends: ['HMGET', keys.repeatRecord('nightly'), 'cron', 'tz'],
    parses: [['a cron', ['0 * * * *', null], { cron: '0 * * * *', tz: undefined }], ['an interval', [null, null], { cron: undefined, tz: undefined }]],
    refuses: [['x'], null],
  },
  { name: 'childrenValues', sends: ['HGETALL', keys.jobSub(id, 'processed')], parses: [['RESP2', [other, '1'], { [other]: '1' }], ['RESP3', new Map([[other, '1']]), { [other]: '1' }]], refuses: [[other]] },
  { name: 'ignoredFailures', sends: ['HGETALL', keys.jobSub(id, 'unsuccessful')], parses: [['RESP2', [other, 'boom'], { [other]: 'boom' }], ['none', [], {}]], refuses: ['x'] },
  { name: 'openChildren', sends: ['GET', keys.jobSub(id, 'dependencies')], parses: [['a counter', '2', 2], ['nil', null, 0]], refuses: ['x', ['2']] },
  {
    name: 'flowOutbox',
    sends: ['LRANGE', keys.flowOutbox, 0, 99],
    parses: [['an entry and a poisoned one', [outboxEntry, 'junk'], [{ kind: 'complete', parentQueue: 'orders', parentId: id, childId: other, result: 'done' }, undefined]]],
    refuses: [[1], 'x'],
  },
  {
    name: 'outcomes',
    sends: ['XREVRANGE', keys.outcomes, '+', '-'],
    parses: [
      [
        'a call of two, then a one-job entry of the older shape',
        [['2-0', ['jobs', '2', id, '3:r', other, '4']], ['1-0', ['job', other]]],
        [
          { job: id, token: 3, verdict: 'completed', result: 'r' },
          { job: other, token: 4, verdict: 'completed', result: undefined },
          { job: other, token: undefined, verdict: 'completed', result: undefined },
        ],
      ],
    ],
    refuses: [[['x', []]], 'x', [['0-1', ['x', 'y']]], [['0-2', ['jobs', '2', id, '3']]]],
  },
  { name: 'time', sends: ['TIME'], parses: [['seconds and micros', ['1700000000', '123456'], 1700000000123]], refuses: [['1'], ['x', '1'], 5] },
  { name: 'probe', sends: ['EXISTS', keys.pending], parses: [['absent', 0, false]], refuses: ['0'] },
  { name: 'replicated', sends: ['WAIT', 1, 20], parses: [['acks', 1, 1]], refuses: ['1', null] },
  { name: 'wake', sends: ['BLPOP', keys.wake, '0.020'], parses: [['a pop', [keys.wake, 't'], 't'], ['a timeout', null, null]], refuses: ['t', [keys.wake], [keys.wake, 1]] },
];

describe.each(CASES)('reads.queue.$name', ({ name, sends, parses, refuses }) => {
  const r = SAMPLE_READS[name];
  if (r === undefined) throw new Error(`no sample for ${name}`);

  it('sends its command and arguments (no server)', () => {
    expect([r.command, ...r.args]).toEqual(sends);
  });

  it.each(parses)('parses %s', (_shape, reply, value) => {
    expect(r.parse(reply)).toEqual(value);
  });

  it.each(refuses.map((reply) => [reply]))('refuses the malformed reply %j', (reply) => {
    expect(() => r.parse(reply)).toThrow(MalformedReplyError);
  });
});

describe('every builder is covered here', () => {
  it('has a case per sample', () => {
    expect(CASES.map((c) => c.name).sort()).toEqual(Object.keys(SAMPLE_READS).sort());
  });
});

describe('bad input is refused before anything is built', () => {
  it.each([
    ['a bad queue name, before the meta read can be built', () => reads.queue.meta({ keys: queueKeys('bad name') }), InvalidNameError],
    ['a malformed job id', () => reads.queue.job({ keys, id: 'nope' as JobId }), MalformedIdError],
    ['a malformed parent id', () => reads.queue.openChildren({ keys, parent: 'nope' as JobId }), MalformedIdError],
    ['a bad dedup id', () => reads.queue.dedup({ keys, dedupId: '' }), InvalidNameError],
    ['a bad repeat name', () => reads.queue.scheduler({ keys, name: '' }), InvalidNameError],
    ['an unknown set', () => reads.queue.setSize({ keys, set: 'meta' as reads.queue.JobSet }), InvalidArgumentError],
    ['a negative offset', () => reads.queue.setPage({ keys, set: 'pending', offset: -1, limit: 1 }), InvalidArgumentError],
    ['a zero limit', () => reads.queue.setPage({ keys, set: 'pending', offset: 0, limit: 0 }), InvalidArgumentError],
    ['a zero n', () => reads.queue.newestPending({ keys, n: 0 }), InvalidArgumentError],
    ['a NaN cutoff', () => reads.queue.scoredUpTo({ keys, set: 'deadAt', cutoff: Number.NaN, limit: 1 }), InvalidArgumentError],
    ['an unknown metric', () => reads.queue.metricCount({ keys, which: 'stalled' as 'failed' }), InvalidArgumentError],
    ['a zero outbox count', () => reads.queue.flowOutbox({ keys, count: 0 }), InvalidArgumentError],
    ['a WAIT without timeout', () => reads.queue.replicated({ replicas: 1, timeoutMs: 0 }), InvalidArgumentError],
    ['a WAIT for no replica', () => reads.queue.replicated({ replicas: 0, timeoutMs: 10 }), InvalidArgumentError],
  ])('%s', (_what, build, error) => {
    expect(build).toThrow(error);
  });
});

describe('field/value replies', () => {
  it('keep a field named __proto__ as an own field, in every shape', () => {
    const r = reads.queue.childrenValues({ keys, parent: id });
    for (const reply of [['__proto__', 'x', 'a', '1'], new Map([['__proto__', 'x'], ['a', '1']])]) {
      const fields = r.parse(reply);
      expect(Object.keys(fields).sort()).toEqual(['__proto__', 'a']);
      expect(Object.getPrototypeOf(fields)).toBe(Object.prototype);
    }
  });
});
