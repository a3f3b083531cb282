/**
 * Day one, from the @echo/queue README: jobs with options, a delayed job, priorities, retries with
 * backoff, a worker with concurrency, events, waiting for a job right after adding it, a business
 * key, a scheduler, and a graceful close.
 */
import { exponential, Queue, resultValue, UnrecoverableError, Worker } from '@echo/queue';
import { queueName, say, url } from './shared.js';

interface Email {
  readonly to: string;
  readonly kind: 'welcome' | 'digest' | 'flaky' | 'broken' | 'tick';
}

export async function dayOne(): Promise<void> {
  const emails = await Queue.open<Email>(queueName('day-one'), { connect: url });

  // BullMQ habits are refused with the option that means it here, before anything is written.
  try {
    await emails.enqueue({ to: 'a@x.io', kind: 'welcome' }, { delay: 1000 } as never);
  } catch (error) {
    say(`refused delay: ${(error as Error).message}`);
  }

  // Events: the queue's lifecycle events, on a connection of their own.
  const events = await emails.events();
  let delayedHeard = 0;
  events.on('delayed', () => {
    delayedHeard++;
  });
  let completedWithResult = 0;
  events.on('completed', (event) => {
    if (resultValue(event) !== undefined) completedWithResult++;
  });

  const attemptsSeen = new Map<string, number>();
  const order: string[] = [];
  const worker = await Worker.start(
    emails,
    (job) => {
      const { to, kind } = job.payload;
      attemptsSeen.set(to, job.attempts);
      if (kind === 'flaky' && job.attempts < 3) throw new Error(`smtp timeout (attempt ${String(job.attempts)})`);
      if (kind === 'broken') throw new UnrecoverableError('no such mailbox');
      if (kind !== 'tick') order.push(to);
      return { sent: to, kind };
    },
    { concurrency: 4, maxAttempts: 5, backoff: exponential(50, 500) },
  );
  let failedAttempts = 0;
  let dead = 0;
  worker.on('failed', ({ outcome }) => {
    if (outcome === 'scheduled') failedAttempts++;
    else dead++;
  });

  // Add a job, then wait for it right away: works with the default retention (no completed rows kept).
  const welcome = await emails.enqueue({ to: 'ada@x.io', kind: 'welcome' }, { name: 'welcome' });
  const finished = await emails.waitUntilFinished(welcome.id, { timeoutMs: 10_000 });
  say(`waitUntilFinished: ${JSON.stringify(finished.result)}`);

  // Retries with backoff: fails twice, succeeds on the third attempt.
  const flaky = await emails.enqueue({ to: 'bob@x.io', kind: 'flaky' }, { attempts: 5, backoff: exponential(20, 200) });
  await emails.waitUntilFinished(flaky.id, { timeoutMs: 10_000 });
  say(`flaky succeeded on attempt ${String(attemptsSeen.get('bob@x.io'))} after ${String(failedAttempts)} failed attempts`);

  // An unrecoverable failure dead-letters at once; the wait rejects with the reason.
  const broken = await emails.enqueue({ to: 'nobody@x.io', kind: 'broken' });
  try {
    await emails.waitUntilFinished(broken.id, { timeoutMs: 10_000 });
  } catch (error) {
    say(`broken failed: ${(error as Error).message}`);
  }

  // A delayed job: the delay is delayMs (milliseconds).
  const startedAt = Date.now();
  const later = await emails.enqueue({ to: 'cy@x.io', kind: 'digest' }, { delayMs: 300 });
  say(`delayed job state: ${await emails.getState(later.id)}`);
  await emails.waitUntilFinished(later.id, { timeoutMs: 10_000 });
  say(`delayed job ran after >= 300 ms: ${String(Date.now() - startedAt >= 300)}`);

  // Priorities: while the queue is paused nothing is claimed; on resume, higher priority goes first.
  await emails.pause();
  await emails.enqueue({ to: 'low@x.io', kind: 'digest' }, { priority: 1 });
  const high = await emails.enqueue({ to: 'high@x.io', kind: 'digest' }, { priority: 10 });
  order.length = 0;
  await emails.resume();
  await emails.waitUntilFinished(high.id, { timeoutMs: 10_000 });
  while (order.length < 2) await new Promise((resolve) => setTimeout(resolve, 20));
  say(`priority order: ${order.join(', ')}`);

  // A business key: BullMQ's jobId: 'order-42' is key here; a second add under it is a duplicate.
  const keyed = await emails.enqueue({ to: 'dee@x.io', kind: 'welcome' }, { key: 'signup-dee', delayMs: 60_000 });
  const again = await emails.enqueue({ to: 'dee@x.io', kind: 'welcome' }, { key: 'signup-dee' });
  const found = await emails.getJobByKey('signup-dee');
  say(`key: second add ${again.status}, getJobByKey finds the first: ${String(found?.id === keyed.id)}`);

  // A scheduler: BullMQ's repeat is upsertScheduler here; the worker fires it.
  await emails.upsertScheduler('every-200ms', { everyMs: 200, firstInMs: 0 }, { to: 'ops@x.io', kind: 'tick' });
  const ticks = await new Promise<number>((resolve) => {
    let seen = 0;
    const off = worker.on('completed', ({ job }) => {
      if (job.payload.kind !== 'tick' || ++seen < 2) return;
      off();
      resolve(seen);
    });
  });
  say(`scheduler fired ${String(ticks)} times; removed: ${String(await emails.removeScheduler('every-200ms'))}`);

  say(`events: delayed heard ${String(delayedHeard >= 2)}, completed with a result ${String(completedWithResult >= 5)}, dead ${String(dead)}`);

  // Graceful close: running jobs finish, then the connections go.
  await worker.close();
  await events.close();
  await emails.remove(keyed.id);
  await emails.pause();
  await emails.obliterate({ force: true });
  await emails.close();
  say('closed');
}
