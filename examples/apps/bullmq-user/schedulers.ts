/**
 * Recipe "Schedulers" (docs/guide/queue-recipes.md): BullMQ's upsertJobScheduler / repeat is
 * upsertScheduler here: every N ms or on a cron with a time zone, bounded by `limit`, listed with
 * getSchedulers, updated in place, removed.
 */
import { Queue, Worker } from '@echo/queue';
import { queueName, say, signal, url } from './shared.js';

export async function schedulers(): Promise<void> {
  const reports = await Queue.open<{ kind: string }>(queueName('reports'), { connect: url });
  say(`schedulers: digest ${await reports.upsertScheduler('digest', { everyMs: 100, firstInMs: 0 }, { kind: 'digest' }, { limit: 3 })}`);
  say(`schedulers: nightly ${await reports.upsertScheduler('nightly', { cron: '0 3 * * *', tz: 'Europe/Paris' }, { kind: 'nightly' })}`);
  say(`schedulers: nightly again ${await reports.upsertScheduler('nightly', { cron: '30 3 * * *', tz: 'Europe/Paris' }, { kind: 'nightly' })}`);

  let runs = 0;
  const third = signal();
  const worker = await Worker.start(reports, (job) => {
    if (job.payload.kind === 'digest' && ++runs === 3) third.fire();
  });
  await third.done;
  await worker.close();
  say(`schedulers: digest ran ${String(runs)} times, then its limit removed it`);

  for (const s of await reports.getSchedulers()) {
    say(`schedulers: ${s.id} cron "${s.cron ?? ''}" tz ${s.tz ?? ''}, next run in the future ${String(s.next > new Date())}, fired ${String(s.count)}`);
  }
  say(`schedulers: removed nightly ${String(await reports.removeScheduler('nightly'))}, left ${String((await reports.getSchedulers()).length)}`);
  await reports.close();
}
