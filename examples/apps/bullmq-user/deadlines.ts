/**
 * Recipe "Deadlines" (docs/guide/queue-recipes.md): `expireInMs` gives a waiting job a deadline; a
 * worker that meets it later never runs it, the claim settles it as expired.
 */
import { JobFailedError, Queue, Worker } from '@echo/queue';
import { queueName, say, sleep, url } from './shared.js';

export async function deadlines(): Promise<void> {
  const quotes = await Queue.open<{ symbol: string }>(queueName('quotes'), { connect: url });
  const stale = await quotes.enqueue({ symbol: 'ECHO' }, { expireInMs: 1 });
  await sleep(20); // nobody was there in time
  const fresh = await quotes.enqueue({ symbol: 'ECHO' }, { expireInMs: 60_000 });
  const at = await quotes.enqueue({ symbol: 'REDIS' }, { expireAt: new Date(Date.now() + 60_000) });

  const ran: string[] = [];
  const worker = await Worker.start(quotes, (job) => {
    ran.push(job.id);
    return `quoted ${job.payload.symbol}`;
  });
  say(`deadlines: ${String((await quotes.waitUntilFinished(fresh.id, { timeoutMs: 10_000 })).result)}, ${String((await quotes.waitUntilFinished(at.id, { timeoutMs: 10_000 })).result)}`);
  try {
    await quotes.waitUntilFinished(stale.id, { timeoutMs: 10_000 });
  } catch (error) {
    if (error instanceof JobFailedError) say(`deadlines: the late one failed as ${error.failure}, its handler ran ${String(ran.includes(stale.id))}`);
    else throw error;
  }
  say(`deadlines: state ${await quotes.getState(stale.id)}, counts ${JSON.stringify(await quotes.counts('expired'))}`);
  await worker.close();
  await quotes.close();
}
