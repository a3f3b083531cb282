/**
 * Recipes "Attempt history" and "Logs, results and children's values"
 * (docs/guide/queue-recipes.md): each try of a job kept with its outcome and error, completions
 * and failures per minute, a job's logs, progress and result read back.
 */
import { fixed, Queue, Worker } from '@echo/queue';
import { queueName, say, url } from './shared.js';

export async function attemptHistory(): Promise<void> {
  // History lives with the job's row: keep completed jobs to read it after they complete.
  const invoices = await Queue.open<{ n: number }>(queueName('invoices'), { connect: url, keep: { completed: { count: 1_000 } } });
  await invoices.setEvents({ history: 20, minutes: 60 });
  const { id } = await invoices.enqueue({ n: 2 }, { name: 'send-invoice', attempts: 3, backoff: fixed(10) });

  const worker = await Worker.start(invoices, async (job, ctx) => {
    await ctx.log(`attempt ${String(job.attempts)}: connecting`);
    if (job.attempts < 3) throw new Error(`mail server busy (${String(job.attempts)})`);
    await ctx.progress(50);
    await ctx.log(`attempt ${String(job.attempts)}: sent, lease still held ${String(ctx.leaseUntil() > Date.now())}`);
    return { invoice: job.payload.n, sent: true };
  });
  await invoices.waitUntilFinished(id, { timeoutMs: 10_000 });
  await worker.close();
  await invoices.addLog(id, 'archived by the nightly job'); // from outside the worker too

  for (const a of await invoices.getAttempts(id)) say(`history: attempt ${String(a.attempt)} ${a.outcome ?? '?'} ${a.error ?? ''}`.trimEnd());
  const minutes = await invoices.getMinutes(2); // two: the attempts may straddle a minute's end
  const sum = (field: 'completed' | 'failed'): number => minutes.reduce((total, m) => total + m[field], 0);
  say(`history: the last two minutes ${String(sum('completed'))} completed, ${String(sum('failed'))} failed attempts`);
  say(`logs: ${(await invoices.getLogs(id)).join(' | ')}`);
  say(`result: ${JSON.stringify(await invoices.getResult(id))}`);
  await invoices.setEvents({ history: null });
  await invoices.close();
}
