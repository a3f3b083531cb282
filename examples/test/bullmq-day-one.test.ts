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

it('a BullMQ user\'s day one runs as the README promises', async () => {
  const run = await runApp('apps/bullmq-day-one.ts', server.url);
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
  ]);
}, 90_000);
