/**
 * Node CPU per appended record: Echo's `appendBatch` against raw pipelined XADD of the same records,
 * measured with `process.cpuUsage` (user + system) on a throwaway server. CPU per record is far less
 * sensitive to a busy machine than wall-clock rates; the wall-clock ratio is `pnpm bench:bus`.
 *
 *   pnpm bench:bus-cpu                          # 100,000 records per run, 5 interleaved rounds
 */
import { Redis } from 'ioredis';
import { Bus } from '@echo/bus';
import { mintIdParts } from '@echo/protocol';
import { startRedis } from '@echo/testkit';
import { intOption } from './lib/options.js';

const RECORDS = intOption('records', 100_000);
const BATCH = intOption('batch', 1000);
const ROUNDS = intOption('rounds', 5);
const VALUE = 'abcdefgh';

async function cpuPerRecord(body: () => Promise<void>): Promise<number> {
  const before = process.cpuUsage();
  await body();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / RECORDS;
}

const server = await startRedis();
const raw = new Redis(server.url);
const bus = await Bus.open(`cpu-${process.pid}`, { connect: { url: server.url, evictionPolicy: 'allow' } });
const rows: { raw: number; same: number; echo: number }[] = [];
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
  await rawRun();
  await sameRun();
  await echoRun();
  await raw.del('raw:append', 'raw:same', bus.stream('append').key);
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? (['raw', 'same', 'echo'] as const) : (['echo', 'same', 'raw'] as const);
    const row = { raw: 0, same: 0, echo: 0 };
    for (const which of order) row[which] = await { raw: rawRun, same: sameRun, echo: echoRun }[which]();
    rows.push(row);
    await raw.del('raw:append', 'raw:same', bus.stream('append').key);
  }
} finally {
  raw.disconnect();
  await bus.close();
  await server.stop();
}
const median = (xs: number[]): number => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)] ?? Number.NaN;
for (const [i, r] of rows.entries()) {
  console.log(`round ${i + 1}: raw ${r.raw.toFixed(2)}, raw same args ${r.same.toFixed(2)}, echo ${r.echo.toFixed(2)} µs/record; echo/raw ${(r.echo / r.raw).toFixed(2)}, echo/same ${(r.echo / r.same).toFixed(2)}`);
}
const med = (pick: (r: (typeof rows)[number]) => number): string => median(rows.map(pick)).toFixed(2);
console.log(`median µs/record: raw ${med((r) => r.raw)}, raw same args ${med((r) => r.same)}, echo ${med((r) => r.echo)}; echo/raw ${med((r) => r.echo / r.raw)}, echo/same ${med((r) => r.echo / r.same)} (${RECORDS} records, batches of ${BATCH})`);
