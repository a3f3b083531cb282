/**
 * The cost of a consumed record on both sides of the wire: Echo's group consumers (`consume`,
 * `consumeBatch`) against raw XREADGROUP + XACK of the same records, on a throwaway server. Per
 * record: Node CPU (`process.cpuUsage`, user + system), Redis CPU (`INFO cpu` of that server) and
 * server commands (`INFO commandstats`). CPU and commands per record are far less sensitive to a
 * busy machine than wall-clock rates (printed too, with the load average); the paired wall-clock
 * ratio is `pnpm bench:bus`.
 *
 *   pnpm bench:bus-consume-cpu          # 50,000 records per run, 5 interleaved rounds
 */
import { loadavg } from 'node:os';
import { Redis } from 'ioredis';
import { Bus, type GroupConsumer } from '@echo/bus';
import { startRedis } from '@echo/testkit';
import { printCostRounds, runCostRounds, type CostRounds } from './lib/cost-rounds.js';
import { metered, type Cost } from './lib/cpu-meter.js';
import { intOption } from './lib/options.js';

const RECORDS = intOption('records', 50_000);
const BATCH = intOption('batch', 1000);
const READ = intOption('read', 100);
const ROUNDS = intOption('rounds', 5);
const VALUE = 'abcdefgh';

const server = await startRedis();
const raw = new Redis(server.url);
// The meter's own connection: its INFO calls are not counted as the run's commands.
const side = new Redis(server.url);
const costPerRecord = (body: () => Promise<void>): Promise<Cost> =>
  metered(side, async () => {
    await body();
    return RECORDS;
  });
const bus = await Bus.open(`cpu-${process.pid}`, { connect: { url: server.url, evictionPolicy: 'allow' } });
let run = 0;

async function filled(): Promise<string> {
  const name = `s${run++}`;
  const stream = bus.stream(name);
  for (let done = 0; done < RECORDS; done += BATCH) await stream.appendBatch(Array.from({ length: Math.min(BATCH, RECORDS - done) }, () => ({ v: VALUE })));
  return name;
}

try {
  const rawRun = async (): Promise<Cost> => {
    const key = bus.stream(await filled()).key;
    return costPerRecord(async () => {
      await raw.xgroup('CREATE', key, 'g', '0');
      let seen = 0;
      while (seen < RECORDS) {
        const reply = (await raw.xreadgroup('GROUP', 'g', 'c', 'COUNT', READ, 'STREAMS', key, '>')) as [string, [string, string[]][]][] | null;
        const ids: string[] = [];
        for (const [id] of reply?.[0]?.[1] ?? []) ids.push(id);
        seen += ids.length;
        if (ids.length > 0) await raw.xack(key, 'g', ...ids);
      }
    });
  };
  const echoRun = (batch: boolean) => async (): Promise<Cost> => {
    const stream = bus.stream(await filled());
    let consumer: GroupConsumer | undefined;
    const options = { start: 'head', consumer: 'c', count: READ } as const;
    try {
      return await costPerRecord(async () => {
        consumer = batch ? await stream.consumeBatch('g', () => undefined, options) : await stream.consume('g', () => undefined, options);
        const c = consumer;
        // Polled every 20 ms, not every 1: the poll's own timers are CPU of this process too.
        while (c.stats().acked < RECORDS) await new Promise((resolve) => setTimeout(resolve, 20));
      });
    } finally {
      await consumer?.close();
      await raw.del(stream.key);
    }
  };
  const spec: CostRounds<'raw' | 'each' | 'batch'> = {
    runs: { raw: rawRun, each: echoRun(false), batch: echoRun(true) },
    order: ['raw', 'each', 'batch'],
    rounds: ROUNDS,
    ratios: [
      ['each', 'raw'],
      ['batch', 'raw'],
    ],
    unit: 'record',
  };
  const load = loadavg().map((v) => v.toFixed(1)).join(' ');
  printCostRounds(spec, await runCostRounds(spec), `${RECORDS} records, reads of ${READ}`, `${load} at the start, ${loadavg().map((v) => v.toFixed(1)).join(' ')} at the end`);
} finally {
  raw.disconnect();
  side.disconnect();
  await bus.close();
  await server.stop();
}
