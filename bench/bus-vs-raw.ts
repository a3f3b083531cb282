/**
 * Echo's bus against raw ioredis and NATS JetStream: appending records to a stream, and consuming
 * them through a consumer group with acks, on the same machine. Rounds are interleaved, the order
 * swapped every other round, and each ratio is taken within its round. Each run also reads Node CPU
 * (`process.cpuUsage`) and Redis CPU (`INFO cpu`) per record, so the Goals section can say why a
 * goal is missed. See README.md.
 *
 *   pnpm bench:bus                          # 100,000 records per run, 5 rounds
 *   RECORDS=5000 ROUNDS=2 pnpm bench:bus    # a quick correctness run
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { Connection, mintId } from '@echo/protocol/extend';
import { Bus, type GroupConsumer, type Stream } from '@echo/bus';
import { Admin, machineHeader } from './lib/admin.js';
import { boundLine, callsPerOp, callsText, goalLine, measuredLines, type Sides } from './lib/goals.js';
import { NatsPeer } from './lib/nats-peer.js';
import { intOption } from './lib/options.js';
import { clientUs, offRedis, perJob, perSecond, phase, serverUs, type Phase } from './lib/phase.js';
import { progress, publish, table } from './lib/report.js';
import { fmt, fmtRatio, fmtSpread, pairedRatios, spread, waitUntil } from './lib/stats.js';
import { fullGc } from './lib/soak-audit.js';
import { acquireTarget } from './lib/target.js';

const gc = fullGc();

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

/** Issue 25's bounds: server commands per consumed record, and Echo's bytes per record over raw's. */
const COMMANDS_AT_MOST = 0.05;
const BYTES_AT_MOST = 1.1;
const VS_RAW: Sides = { echo: 'Echo', peer: 'raw', unit: 'record' };
const VS_NATS: Sides = { echo: 'Echo', peer: 'NATS JetStream', unit: 'record' };

interface Ctx {
  readonly admin: Admin;
  readonly raw: Redis;
  readonly bus: Bus;
  readonly nats: NatsPeer | undefined;
  readonly natsStream: string;
  readonly n: number;
}

/** One run of one measure: wall time, the server's commands, CPU and reads, and this process's CPU. */
async function timed(ctx: Ctx, body: () => Promise<void>): Promise<Phase> {
  // Each measure starts on a collected heap: the garbage of the fill before it (or of the measure
  // before it, which is the other side's) is not collected on its time.
  gc();
  const before = await ctx.admin.snapshot();
  const t0 = performance.now();
  await body();
  const ms = performance.now() - t0;
  return phase(ms, ctx.n, before, await ctx.admin.snapshot());
}

async function fill(stream: Stream, n: number): Promise<void> {
  for (let done = 0; done < n; done += BATCH) await stream.appendBatch(Array.from({ length: Math.min(BATCH, n - done) }, () => ({ v: VALUE })));
}

async function echoConsume(ctx: Ctx, name: string, batch: boolean): Promise<Phase> {
  const stream = ctx.bus.stream(name);
  await fill(stream, ctx.n);
  let consumer: GroupConsumer | undefined;
  const options = { start: 'head', consumer: 'c', count: READ } as const;
  try {
    return await timed(ctx, async () => {
      // The handlers say when the last entry arrived; only then is the ack count polled (a 1 ms poll
      // through the whole run is a thousand timer turns a second that the raw loop does not have).
      let seen = 0;
      let allSeen = (): void => undefined;
      const arrived = new Promise<void>((resolve) => (allSeen = resolve));
      const saw = (count: number): undefined => {
        seen += count;
        if (seen >= ctx.n) allSeen();
        return undefined;
      };
      consumer = batch ? await stream.consumeBatch('g', (entries) => saw(entries.length), options) : await stream.consume('g', () => saw(1), options);
      const c = consumer;
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${name}: ${seen} of ${ctx.n} handled after ${TIMEOUT_S} s`)), TIMEOUT_S * 1000)));
      await Promise.race([arrived, late]).finally(() => clearTimeout(timer));
      await waitUntil(() => c.stats().acked === ctx.n, TIMEOUT_S * 1000, `${name}: ${ctx.n} acked`);
    });
  } finally {
    await consumer?.close();
  }
}

function measures(ctx: Ctx): Record<Name, () => Promise<Phase | undefined>> {
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
    natsAppend: async () => (nats === undefined ? undefined : offRedis(await timed(ctx, () => nats.publish(ctx.natsStream, n, new TextEncoder().encode(VALUE), BATCH)))),
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
    natsConsume: async () => (nats === undefined ? undefined : offRedis(await timed(ctx, () => nats.consume(ctx.natsStream, n, READ)))),
  };
}

/** Bytes per record after each measured round's appends: `MEMORY USAGE` of the streams, NATS's stream bytes. */
interface Bytes {
  readonly raw: number[];
  readonly echo: number[];
  readonly nats: number[];
}

function render(header: readonly string[], results: ReadonlyMap<Name, readonly Phase[]>, bytes: Bytes, natsUp: boolean): string {
  const runs = (name: Name): readonly Phase[] => results.get(name) ?? [];
  const series = (name: Name, pick: (p: Phase) => number = perSecond): number[] => runs(name).map(pick);
  const ratio = (a: Name, b: Name, pick: (p: Phase) => number = perSecond): string =>
    series(b).length === 0 ? 'n/a' : fmtSpread(spread(pairedRatios(series(a, pick), series(b, pick))), fmtRatio);
  const cell = (name: Name, pick: (p: Phase) => number = perSecond): string => fmtSpread(spread(series(name, pick)));
  const cmds = (name: Name): string => fmtSpread(spread(series(name, perJob)), (v) => v.toFixed(3));
  // One row per path of a per-record CPU figure; NATS's server is not the metered Redis, so its Redis cells stay empty.
  const cpuRows = (what: string, pick: (p: Phase) => number, nats: boolean): string[][] =>
    (
      [
        ['append', 'rawAppend', 'echoAppend', 'natsAppend'],
        ['consume + ack, handler per entry', 'rawConsume', 'echoEach', 'natsConsume'],
        ['consume + ack, batch handler', 'rawConsume', 'echoBatch', 'natsConsume'],
      ] as const
    ).map(([path, r, e, n]) => [`${what} per record, ${path}, µs`, cell(r, pick), cell(e, pick), ratio(e, r, pick), nats ? cell(n, pick) : '', nats ? ratio(e, n, pick) : '', '']);
  return [
    '# Echo bus vs raw ioredis and NATS JetStream',
    '',
    ...header,
    `- records per run: ${RECORDS} of the spec's record (its \`id\` field, then one 8-byte field) on both sides; appends in batches of ${BATCH}; group reads of ${READ}; measured rounds: ${ROUNDS}, warm-up: ${WARMUP}`,
    `- NATS: ${natsUp ? `${NATS_URL}, memory storage, async publish awaited ${BATCH} at a time, durable pull consumer (consume, ${READ} per pull) with explicit ack` : 'not reachable, rows skipped'}`,
    '',
    'Cells: median (min–max) over the measured rounds; ratios are taken within each round. Commands per record: every server command (INFO commandstats, script-internal calls included) over the run / records.',
    'CPU rows (lower is better): Node CPU is this process (`process.cpuUsage`, user + system) over the run, the one side running at the time; Redis CPU is the server\'s `used_cpu_user + used_cpu_sys` delta. CPU time moves far less with a busy machine than records/s.',
    '',
    table(
      ['path', 'raw ioredis', 'Echo', 'Echo/raw', 'NATS JetStream', 'Echo/NATS', 'goal'],
      [
        ['append (records/s)', cell('rawAppend'), cell('echoAppend'), ratio('echoAppend', 'rawAppend'), cell('natsAppend'), ratio('echoAppend', 'natsAppend'), '>= 0.95x raw; ahead of NATS'],
        ['group consume + ack, handler per entry, concurrency 1 (records/s)', cell('rawConsume'), cell('echoEach'), ratio('echoEach', 'rawConsume'), cell('natsConsume'), ratio('echoEach', 'natsConsume'), '>= 0.95x raw; ahead of NATS'],
        ['group consume + ack, batch handler (records/s)', cell('rawConsume'), cell('echoBatch'), ratio('echoBatch', 'rawConsume'), cell('natsConsume'), ratio('echoBatch', 'natsConsume'), '>= 0.95x raw; ahead of NATS'],
        ['server commands per consumed record, per entry / batch', cmds('rawConsume'), `${cmds('echoEach')} / ${cmds('echoBatch')}`, '', '', '', `<= ${COMMANDS_AT_MOST}`],
        ['bytes per record (MEMORY USAGE; NATS: stream bytes)', fmtSpread(spread(bytes.raw)), fmtSpread(spread(bytes.echo)), fmtSpread(spread(pairedRatios(bytes.echo, bytes.raw)), fmtRatio), fmtSpread(spread(bytes.nats)), '', `<= ${BYTES_AT_MOST}x raw`],
        ...cpuRows('Node CPU', clientUs, natsUp),
        ...cpuRows('Redis CPU', serverUs, false),
      ],
    ),
    '',
    '## Goals (issue 25)',
    '',
    'Each goal met, or the measured reason it is not (medians over the rounds; CPU per record is load-insensitive, records/s is not: say whether the machine was quiet).',
    '',
    ...goals(runs, bytes),
  ].join('\n');
}

/** Issue 25's bus goals, each met or with its measured reason. */
function goals(runs: (name: Name) => readonly Phase[], bytes: Bytes): string[] {
  const vsRaw = (label: string, echo: Name, raw: Name): string => goalLine({ label, sides: VS_RAW, atLeast: 0.95, peer: runs(raw), echo: runs(echo) });
  const vsNats = (label: string, echo: Name, nats: Name): string => goalLine({ label: `${label} vs NATS JetStream (hold: Echo ahead)`, sides: VS_NATS, atLeast: 1, peer: runs(nats), echo: runs(echo) });
  return [
    vsRaw('append', 'echoAppend', 'rawAppend'),
    vsRaw('group consume + ack, handler per entry', 'echoEach', 'rawConsume'),
    vsRaw('group consume + ack, batch handler', 'echoBatch', 'rawConsume'),
    commandsBound('server commands per consumed record, handler per entry', runs('echoEach'), runs('rawConsume')),
    commandsBound('server commands per consumed record, batch handler', runs('echoBatch'), runs('rawConsume')),
    bytesBound(bytes, runs('echoAppend'), runs('rawAppend')),
    vsNats('append', 'echoAppend', 'natsAppend'),
    vsNats('group consume + ack, handler per entry', 'echoEach', 'natsConsume'),
    vsNats('group consume + ack, batch handler', 'echoBatch', 'natsConsume'),
  ];
}

/**
 * Commands per consumed record held under the bound. A consumer pays its commands per read, so
 * what moves the figure is the read size or the commands per read.
 */
function commandsBound(label: string, echo: readonly Phase[], raw: readonly Phase[]): string {
  const value = spread(echo.map(perJob)).median;
  const perRead = value * READ;
  return boundLine({
    label,
    value,
    atMost: COMMANDS_AT_MOST,
    format: (v) => v.toFixed(3),
    measured: [...measuredLines(VS_RAW, echo, raw), `By command, per record: Echo ${callsText(callsPerOp(echo))}; raw ${callsText(callsPerOp(raw))}.`],
    move: `Echo sends ${fmt(perRead)} commands per read of ${READ} entries; reads of ${Math.ceil(perRead / COMMANDS_AT_MOST)} or more would hold the bound at that count per read, or ${fmt(perRead - COMMANDS_AT_MOST * READ)} fewer commands per read at this size`,
  });
}

/**
 * Echo's bytes per record over raw's held under the bound. Both sides write the same fields, so
 * what is left is how the stream stores each entry's id.
 */
function bytesBound(bytes: Bytes, echo: readonly Phase[], raw: readonly Phase[]): string {
  const m = (values: readonly number[]): number => spread(values).median;
  const allowed = m(bytes.raw) * BYTES_AT_MOST;
  return boundLine({
    label: 'bytes per record, MEMORY USAGE, Echo/raw',
    value: bytes.raw.length === 0 ? Number.NaN : m(pairedRatios(bytes.echo, bytes.raw)),
    atMost: BYTES_AT_MOST,
    format: fmtRatio,
    measured: [
      `Measured per record (medians): ${fmt(m(bytes.echo))} B Echo vs ${fmt(m(bytes.raw))} B raw${bytes.nats.length === 0 ? '' : ` (NATS JetStream ${fmt(m(bytes.nats))} B)`}.`,
      `Append commands per record: Echo ${callsText(callsPerOp(echo))}; raw ${callsText(callsPerOp(raw))}.`,
    ],
    move: `the bound allows Echo ${fmt(allowed)} B per record: ${fmt(m(bytes.echo) - allowed)} B less; both write the spec's fields (\`id\`, then one 8-byte field), and raw's entries take \`*\` ids where Echo's take the explicit ids the writer mints (ms-(node x 4096 + seq)), which the stream's listpacks store as larger deltas`,
  });
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
    const results = new Map<Name, Phase[]>([...APPENDS, ...CONSUMES].map((name) => [name, []]));
    const bytes: Bytes = { raw: [], echo: [], nats: [] };
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
            const run = await m[name]();
            if (run === undefined) continue;
            line.push(`${name} ${fmt(perSecond(run))}/s`);
            if (!warm) results.get(name)?.push(run);
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

    const markdown = render(header, results, bytes, nats !== undefined);
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
