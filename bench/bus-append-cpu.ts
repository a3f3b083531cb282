/**
 * The cost of an appended record on both sides of the wire: Echo's `appendBatch` against raw
 * pipelined XADD of the same records, on a throwaway server. Per record: Node CPU
 * (`process.cpuUsage`, user + system), Redis CPU (`INFO cpu` of that server) and server commands
 * (`INFO commandstats`, the ones a script runs included). CPU and commands per record are far less
 * sensitive to a busy machine than wall-clock rates (printed too, with the load average); the
 * paired wall-clock ratio is `pnpm bench:bus`.
 *
 *   pnpm bench:bus-cpu                          # 100,000 records per run, 5 interleaved rounds
 */
import { loadavg } from 'node:os';
import { Redis } from 'ioredis';
import { Bus } from '@echo/bus';
import { mintIdParts } from '@echo/protocol/extend';
import { startRedis } from '@echo/testkit';
import { printCostRounds, runCostRounds, type CostRounds } from './lib/cost-rounds.js';
import { metered, type Cost } from './lib/cpu-meter.js';
import { intOption } from './lib/options.js';

const RECORDS = intOption('records', 100_000);
const BATCH = intOption('batch', 1000);
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
try {
  const rawRun = (): Promise<Cost> =>
    costPerRecord(async () => {
      for (let done = 0; done < RECORDS; done += BATCH) {
        const pipe = raw.pipeline();
        for (let i = 0; i < Math.min(BATCH, RECORDS - done); i++) pipe.xadd('raw:append', '*', 'v', VALUE);
        await pipe.exec();
      }
    });
  // Raw XADD carrying what Echo's wire carries (an explicit id and the `id` field), minted before the clock starts.
  const sameRun = async (): Promise<Cost> => {
    const minted = Array.from({ length: RECORDS }, () => mintIdParts('EVT'));
    return costPerRecord(async () => {
      for (let done = 0; done < RECORDS; done += BATCH) {
        const pipe = raw.pipeline();
        for (let i = done; i < Math.min(done + BATCH, RECORDS); i++) {
          const m = minted[i];
          if (m !== undefined) pipe.xadd('raw:same', `${m.unixMs}-${m.node * 4096 + m.seq}`, 'id', m.id, 'v', VALUE);
        }
        await pipe.exec();
      }
    });
  };
  const echoRun = (): Promise<Cost> =>
    costPerRecord(async () => {
      const stream = bus.stream('append');
      for (let done = 0; done < RECORDS; done += BATCH) await stream.appendBatch(Array.from({ length: Math.min(BATCH, RECORDS - done) }, () => ({ v: VALUE })));
    });
  const spec: CostRounds<'raw' | 'same' | 'echo'> = {
    runs: { raw: rawRun, same: sameRun, echo: echoRun },
    order: ['raw', 'same', 'echo'],
    rounds: ROUNDS,
    labels: { same: 'raw same args' },
    ratios: [
      ['echo', 'raw'],
      ['echo', 'same'],
    ],
    unit: 'record',
    reset: async () => {
      await raw.del('raw:append', 'raw:same', bus.stream('append').key);
    },
  };
  const load = loadavg().map((v) => v.toFixed(1)).join(' ');
  printCostRounds(spec, await runCostRounds(spec), `${RECORDS} records, batches of ${BATCH}`, `${load} at the start, ${loadavg().map((v) => v.toFixed(1)).join(' ')} at the end`);
} finally {
  raw.disconnect();
  side.disconnect();
  await bus.close();
  await server.stop();
}
