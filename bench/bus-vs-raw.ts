/**
 * Echo's bus against raw ioredis and NATS JetStream: appending records to a stream, and consuming
 * them through a consumer group with acks, on the same machine. Rounds are interleaved, the order
 * swapped every other round, and each ratio is taken within its round. See README.md.
 *
 *   pnpm bench:bus                          # 100,000 records per run, 5 rounds
 *   RECORDS=5000 ROUNDS=2 pnpm bench:bus    # a quick correctness run
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { Connection, mintId } from '@echo/protocol';
import { Bus, type GroupConsumer, type Stream } from '@echo/bus';
import { Admin, machineHeader, snapshotDelta, totalCalls } from './lib/admin.js';
import { NatsPeer } from './lib/nats-peer.js';
import { intOption } from './lib/options.js';
import { progress, publish, table } from './lib/report.js';
import { fmt, fmtRatio, fmtSpread, pairedRatios, spread, waitUntil } from './lib/stats.js';
import { acquireTarget } from './lib/target.js';

const RECORDS = intOption('records', 100_000);
const BATCH = intOption('batch', 1000);
const READ = intOption('read', 100);
const ROUNDS = intOption('rounds', 5);
const WARMUP = intOption('warmup', 1, 0);
const TIMEOUT_S = intOption('timeout-s', 300);
const NATS_URL = process.env.NATS_URL ?? '127.0.0.1:4222';
const VALUE = 'abcdefgh';

type Name = 'rawAppend' | 'echoAppend' | 'natsAppend' | 'rawConsume' | 'echoEach' | 'echoBatch' | 'natsConsume';
const APPENDS: readonly Name[] = ['rawAppend', 'echoAppend', 'natsAppend'];
const CONSUMES: readonly Name[] = ['rawConsume', 'echoEach', 'echoBatch', 'natsConsume'];

/** One run of one measure: records per second, and server commands per record (Redis only). */
interface Figure {
  readonly perSecond: number;
  readonly commandsPerRecord: number;
}

interface Ctx {
  readonly admin: Admin;
  readonly raw: Redis;
  readonly bus: Bus;
  readonly nats: NatsPeer | undefined;
  readonly natsStream: string;
  readonly n: number;
}

async function timed(ctx: Ctx, body: () => Promise<void>): Promise<Figure> {
  const before = await ctx.admin.snapshot();
  const t0 = performance.now();
  await body();
  const ms = performance.now() - t0;
  const delta = snapshotDelta(before, await ctx.admin.snapshot());
  return { perSecond: (ctx.n / ms) * 1000, commandsPerRecord: totalCalls(delta.calls) / ctx.n };
}

async function fill(stream: Stream, n: number): Promise<void> {
  for (let done = 0; done < n; done += BATCH) await stream.appendBatch(Array.from({ length: Math.min(BATCH, n - done) }, () => ({ v: VALUE })));
}

async function echoConsume(ctx: Ctx, name: string, batch: boolean): Promise<Figure> {
  const stream = ctx.bus.stream(name);
  await fill(stream, ctx.n);
  let consumer: GroupConsumer | undefined;
  const options = { start: 'head', consumer: 'c', count: READ } as const;
  try {
    return await timed(ctx, async () => {
      consumer = batch ? await stream.consumeBatch('g', () => undefined, options) : await stream.consume('g', () => undefined, options);
      const c = consumer;
      await waitUntil(() => c.stats().acked === ctx.n, TIMEOUT_S * 1000, `${name}: ${ctx.n} acked`);
    });
  } finally {
    await consumer?.close();
  }
}

function measures(ctx: Ctx): Record<Name, () => Promise<Figure | undefined>> {
  const { raw, bus, nats, n } = ctx;
  return {
    rawAppend: () => {
      // The spec's record (bus.md §2.1): the `id` field first. Minted before the clock starts, so the
      // raw side pays only for its commands.
      const ids = Array.from({ length: n }, () => mintId('EVT'));
      return timed(ctx, async () => {
        for (let done = 0; done < n; done += BATCH) {
          const pipe = raw.pipeline();
          for (let i = done; i < Math.min(done + BATCH, n); i++) pipe.xadd('raw:append', '*', 'id', ids[i] as string, 'v', VALUE);
          const replies = await pipe.exec();
          if (replies?.some(([error]) => error !== null)) throw new Error('raw XADD failed');
        }
      });
    },
    echoAppend: () => timed(ctx, () => fill(bus.stream('append'), n)),
    natsAppend: async () => (nats === undefined ? undefined : timed(ctx, () => nats.publish(ctx.natsStream, n, new TextEncoder().encode(VALUE), BATCH))),
    rawConsume: async () => {
      const key = bus.stream('raw-consume').key;
      await fill(bus.stream('raw-consume'), n);
      return timed(ctx, async () => {
        await raw.xgroup('CREATE', key, 'g', '0');
        let seen = 0;
        while (seen < n) {
          const reply = (await raw.xreadgroup('GROUP', 'g', 'c', 'COUNT', READ, 'STREAMS', key, '>')) as [string, [string, string[]][]][] | null;
          const entries = reply?.[0]?.[1] ?? [];
          const ids: string[] = [];
          for (const [id] of entries) {
            ids.push(id);
            seen++;
          }
          if (ids.length > 0) await raw.xack(key, 'g', ...ids);
        }
      });
    },
    echoEach: () => echoConsume(ctx, 'each', false),
    echoBatch: () => echoConsume(ctx, 'batch', true),
    natsConsume: async () => (nats === undefined ? undefined : timed(ctx, () => nats.consume(ctx.natsStream, n, READ))),
  };
}

async function main(): Promise<void> {
  const target = await acquireTarget();
  const admin = new Admin(target);
  const conn = await Connection.connect({ host: target.host, port: target.port, db: target.db, ...(target.password === undefined ? {} : { password: target.password }), strictKeys: false });
  const raw = new Redis({ host: target.host, port: target.port, db: target.db, ...(target.password === undefined ? {} : { password: target.password }), maxRetriesPerRequest: null, disableClientInfo: true });
  const nats = await NatsPeer.open(NATS_URL);
  try {
    const header = await machineHeader(admin);
    const bus = await Bus.open('bench', { connection: conn });
    const results = new Map<Name, Figure[]>([...APPENDS, ...CONSUMES].map((name) => [name, []]));
    const bytes = { raw: [] as number[], echo: [] as number[], nats: [] as number[] };
    for (let r = 0; r < WARMUP + ROUNDS; r++) {
      const warm = r < WARMUP;
      const n = warm ? Math.min(RECORDS, 10_000) : RECORDS;
      await admin.flushAll();
      const natsStream = `echo_bench_${randomUUID().replace(/-/g, '')}`;
      await nats?.createStream(natsStream);
      const ctx: Ctx = { admin, raw, bus, nats, natsStream, n };
      const m = measures(ctx);
      const line: string[] = [];
      try {
        // The NATS consume needs the NATS append before it; the other pairs swap places every other round.
        for (const group of [APPENDS, CONSUMES]) {
          const order = r % 2 === 0 ? group : [...group].reverse();
          const natsLast = order.filter((name) => !name.startsWith('nats'));
          for (const name of [...natsLast, ...order.filter((x) => x.startsWith('nats'))]) {
            const figure = await m[name]();
            if (figure === undefined) continue;
            line.push(`${name} ${fmt(figure.perSecond)}/s`);
            if (!warm) results.get(name)?.push(figure);
          }
          if (group === APPENDS && !warm) {
            bytes.raw.push((await admin.memoryUsage('raw:append', 0)) / n);
            bytes.echo.push((await admin.memoryUsage(bus.stream('append').key, 0)) / n);
            if (nats !== undefined) bytes.nats.push((await nats.bytes(natsStream)) / n);
          }
        }
      } finally {
        await nats?.deleteStream(natsStream);
      }
      progress(`${warm ? `warm-up ${r + 1}/${WARMUP}` : `round ${r - WARMUP + 1}/${ROUNDS}`}: ${line.join(', ')}`);
    }

    const series = (name: Name, pick: (f: Figure) => number = (f) => f.perSecond): number[] => (results.get(name) ?? []).map(pick);
    const ratio = (a: Name, b: Name): string => (series(b).length === 0 ? 'n/a' : fmtSpread(spread(pairedRatios(series(a), series(b))), fmtRatio));
    const rate = (name: Name): string => fmtSpread(spread(series(name)));
    const cmds = (name: Name): string => fmtSpread(spread(series(name, (f) => f.commandsPerRecord)), (v) => v.toFixed(3));
    const markdown = [
      '# Echo bus vs raw ioredis and NATS JetStream',
      '',
      ...header,
      `- records per run: ${RECORDS} of the spec's record (its \`id\` field, then one 8-byte field) on both sides; appends in batches of ${BATCH}; group reads of ${READ}; measured rounds: ${ROUNDS}, warm-up: ${WARMUP}`,
      `- NATS: ${nats === undefined ? 'not reachable, rows skipped' : `${NATS_URL}, memory storage, async publish awaited ${BATCH} at a time, durable pull consumer (consume, ${READ} per pull) with explicit ack`}`,
      '',
      'Cells: median (min–max) over the measured rounds; ratios are taken within each round. Commands per record: every server command (INFO commandstats, script-internal calls included) over the run / records.',
      '',
      table(
        ['path', 'raw ioredis', 'Echo', 'Echo/raw', 'NATS JetStream', 'Echo/NATS', 'goal'],
        [
          ['append (records/s)', rate('rawAppend'), rate('echoAppend'), ratio('echoAppend', 'rawAppend'), rate('natsAppend'), ratio('echoAppend', 'natsAppend'), '>= 0.95x raw'],
          ['group consume + ack, handler per entry, concurrency 1 (records/s)', rate('rawConsume'), rate('echoEach'), ratio('echoEach', 'rawConsume'), rate('natsConsume'), ratio('echoEach', 'natsConsume'), '>= 0.95x raw'],
          ['group consume + ack, batch handler (records/s)', rate('rawConsume'), rate('echoBatch'), ratio('echoBatch', 'rawConsume'), rate('natsConsume'), ratio('echoBatch', 'natsConsume'), '>= 0.95x raw'],
          ['server commands per consumed record, per entry / batch', cmds('rawConsume'), `${cmds('echoEach')} / ${cmds('echoBatch')}`, '', '', '', '<= 0.05'],
          ['bytes per record (MEMORY USAGE; NATS: stream bytes)', fmtSpread(spread(bytes.raw)), fmtSpread(spread(bytes.echo)), fmtSpread(spread(pairedRatios(bytes.echo, bytes.raw)), fmtRatio), fmtSpread(spread(bytes.nats)), '', '<= 1.1x raw'],
        ],
      ),
    ].join('\n');
    await admin.flushAll();
    progress(`written to ${publish('bus-latest.md', markdown)}`);
  } finally {
    await nats?.close();
    await conn.close();
    raw.disconnect();
    await admin.close();
    await target.stop();
  }
}

await main();
