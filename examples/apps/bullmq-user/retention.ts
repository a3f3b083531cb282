/**
 * Recipe "Retention" (docs/guide/queue-recipes.md): BullMQ's removeOnComplete / removeOnFail is
 * `keep` on Queue.open (or setRetention later): finished jobs kept by count and age, to look at.
 */
import { Queue, Worker } from '@echo/queue';
import { queueName, say, url } from './shared.js';

export async function retention(): Promise<void> {
  const mail = await Queue.open<{ to: string }>(queueName('mail'), {
    connect: url,
    keep: { completed: { count: 2 }, failed: { count: 100, ageMs: 7 * 24 * 3_600_000 } },
  });
  const ids: string[] = [];
  for (const to of ['ada', 'bob', 'cy']) ids.push((await mail.enqueue({ to }, { name: 'welcome' })).id);
  const failing = await mail.enqueue({ to: 'nobody' }, { name: 'welcome', attempts: 1 });
  const worker = await Worker.start(mail, (job) => {
    if (job.payload.to === 'nobody') throw new Error('no such mailbox');
    return `sent to ${job.payload.to}`;
  });
  await mail.waitUntilFinished(ids[2] ?? '', { timeoutMs: 10_000 }); // one worker: in order
  await mail.waitUntilFinished(failing.id, { timeoutMs: 10_000 }).catch(() => undefined);
  await worker.close();

  const kept = await mail.listJobs('completed');
  say(`retention: completed kept ${kept.jobs.map((j) => j.record?.payload.to ?? '?').join(', ')} (count 2)`);
  say(`retention: counts ${JSON.stringify(await mail.counts('completed', 'retained'))}`);
  const dead = await mail.listJobs('dead');
  say(`retention: dead kept ${dead.jobs.map((j) => j.record?.payload.to ?? '?').join(', ')}`);

  // Later, from an admin script: keep no completed jobs from now on.
  await mail.setRetention({ completed: { count: 0 } });
  const more = await mail.enqueue({ to: 'dee' }, { name: 'welcome' });
  const again = await Worker.start(mail, (job) => `sent to ${job.payload.to}`);
  await mail.waitUntilFinished(more.id, { timeoutMs: 10_000 });
  await again.close();
  say(`retention: after setRetention({ completed: { count: 0 } }) dee's row is ${(await mail.getJob(more.id)) === undefined ? 'gone' : 'kept'}`);
  await mail.close();
}
