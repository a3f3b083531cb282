/**
 * The BullMQ user's app (`apps/bullmq-user/main.ts`) runs as written, against a real server: day
 * one from the queue README, then every recipe of docs/guide/queue-recipes.md, one line per fact;
 * it exits by itself.
 */
import { startRedis, type RedisServer } from '@echo/testkit';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runApp } from './run-app.js';

let server: RedisServer;
beforeAll(async () => {
  server = await startRedis();
}, 60_000);
afterAll(async () => {
  await server.stop();
});

it("runs a BullMQ user's app: day one as the README promises, then every queue recipe", async () => {
  const run = await runApp('apps/bullmq-user/main.ts', server.url, 120_000);
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  const lines = run.stdout.trim().split('\n');
  expect(lines).toEqual([
    expect.stringMatching(/^refused delay: invalid enqueue options\.delay: is not an option here; BullMQ's delay is delayMs here/),
    'waitUntilFinished: {"sent":"ada@x.io","kind":"welcome"}',
    'flaky succeeded on attempt 3 after 2 failed attempts',
    expect.stringMatching(/^broken failed: job JOB\w+ failed: .*no such mailbox/),
    'delayed job state: scheduled',
    'delayed job ran after >= 300 ms: true',
    'priority order: high@x.io, low@x.io',
    'key: second add duplicate, getJobByKey finds the first: true',
    'scheduler fired 2 times; removed: true',
    'events: delayed heard true, completed with a result true, dead 1',
    'closed',
    // docs/guide/queue-recipes.md, in its order.
    'schedulers: digest created',
    'schedulers: nightly created',
    'schedulers: nightly again updated',
    'schedulers: digest ran 3 times, then its limit removed it',
    'schedulers: nightly cron "30 3 * * *" tz Europe/Paris, next run in the future true, fired 0',
    'schedulers: removed nightly true, left 0',
    'retention: completed kept cy, bob (count 2)',
    'retention: counts {"completed":3,"retained":2}',
    'retention: dead kept nobody',
    "retention: after setRetention({ completed: { count: 0 } }) dee's row is gone",
    'deadlines: quoted ECHO, quoted REDIS',
    'deadlines: the late one failed as expired, its handler ran false',
    'deadlines: state expired, counts {"expired":1}',
    'debounce: ec duplicate, ech duplicate, echo duplicate; the key holds true',
    'extend: a third add 4 s after the first is duplicate',
    'debounce: searched "echo"',
    'replace: searched "cart v2"',
    'dedup modes: jobs run 3 (cart v2, echo, report); deduplicated events debounce+replaced, debounce+replaced, debounce+replaced, extend, extend, replace+replaced',
    'history: attempt 1 retried mail server busy (1)',
    'history: attempt 2 retried mail server busy (2)',
    'history: attempt 3 completed',
    'history: the last two minutes 1 completed, 2 failed attempts',
    'logs: attempt 1: connecting | attempt 2: connecting | attempt 3: connecting | attempt 3: sent, lease still held true | archived by the nightly job',
    'result: {"invoice":2,"sent":true}',
    'flows: parent packed 1xB2 + 2xA1',
    'flows: childrenValues from outside: 2 children',
    'flows: continueParentOnFailure: packed 1xA1 without a part (out of stock)',
    'lanes: pending per lane 6, 2, 1',
    'lanes: tenant-b among the first four true; tenant-c paused, drained 1',
    expect.stringMatching(/^batches: 5 rows handled in [1-5] batch(es)?$/),
  ]);
}, 150_000);
