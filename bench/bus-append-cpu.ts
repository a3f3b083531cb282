/**
 * Node CPU per appended record: Echo's `appendBatch` against raw pipelined XADD of the same records,
 * measured with `process.cpuUsage` (user + system) on a throwaway server. CPU per record is far less
 * sensitive to a busy machine than wall-clock rates; the wall-clock ratio is `pnpm bench:bus`.
 *
 *   pnpm bench:bus-cpu                          # 100,000 records per run, 5 interleaved rounds
 */
import { Redis } from 'ioredis';
import { Bus } from '@echo/bus';
import { mintIdParts } from '@echo/protocol/extend';
import { startRedis } from '@echo/testkit';
import { cpuPerOp, printCpuRounds, runCpuRounds, type CpuRounds } from './lib/cpu-rounds.js';
import { intOption } from './lib/options.js';

const RECORDS = intOption('records', 100_000);
const BATCH = intOption('batch', 1000);
const ROUNDS = intOption('rounds', 5);
const VALUE = 'abcdefgh';

const cpuPerRecord = (body: () => Promise<void>): Promise<number> => cpuPerOp(RECORDS, body);

const server = await startRedis();
const raw = new Redis(server.url);
const bus = await Bus.open(`cpu-${process.pid}`, { connect: { url: server.url, evictionPolicy: 'allow' } });
try {
  const rawRun = (): Promise<number> =>
    cpuPerRecord(async () => {
      for (let done = 0; done < RECORDS; done += BATCH) {
        const pipe = raw.pipeline();
        for (let i = 0; i < Math.min(BATCH, RECORDS - done); i++) pipe.xadd('raw:append', '*', 'v', VALUE);
        await pipe.exec();
      }
    });
  // Raw XADD carrying what Echo's wire carries (an explicit id and the `id` field), minted before the clock starts.
  const sameRun = async (): Promise<number> => {
    const minted = Array.from({ length: RECORDS }, () => mintIdParts('EVT'));
    return cpuPerRecord(async () => {
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
  const echoRun = (): Promise<number> =>
    cpuPerRecord(async () => {
      const stream = bus.stream('append');
      for (let done = 0; done < RECORDS; done += BATCH) await stream.appendBatch(Array.from({ length: Math.min(BATCH, RECORDS - done) }, () => ({ v: VALUE })));
    });
  const spec: CpuRounds<'raw' | 'same' | 'echo'> = {
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
  printCpuRounds(spec, await runCpuRounds(spec), `${RECORDS} records, batches of ${BATCH}`);
} finally {
  raw.disconnect();
  await bus.close();
  await server.stop();
}
