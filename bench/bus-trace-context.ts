/**
 * The price of trace context in stream records, in Node CPU per record (user + system,
 * `process.cpuUsage`), for three set-ups measured in turn within each round:
 *
 * - `off`: nobody instruments, and the stream is opened without `traceContext`: each append and
 *   handler call reads `hasSubscribers` once.
 * - `channels`: a stream opened with `traceContext: true` and bare listeners on both stream tracing
 *   channels; the append one writes a fixed `traceparent`, so every record carries `_tp` and every
 *   delivery strips it (the channel mechanism and the fields, without a tracing library).
 * - `otel`: the same stream with `instrumentEcho` (a `BasicTracerProvider` whose processor drops
 *   ended spans, and the `AsyncLocalStorageContextManager`): producer span, `_tp`, consumer span
 *   current in the handler.
 *
 * Each set-up appends RECORDS records with `append` (one by one, 50 in flight) and drains them with a
 * group consumer (per-entry handler, concurrency 50, no-op). Server commands per record are the same
 * in every set-up (the fields ride the existing XADD). CPU figures on a shared machine still move
 * with load; read them as a ratio within the round and rerun on a quiet machine.
 *
 *   pnpm --filter @echo/bench bench:bus-trace            # 10,000 records, 5 rounds
 *   pnpm --filter @echo/bench bench:bus-trace --quick    # a smoke run
 */
import { Bus } from '@echo/bus';
import { traces } from '@echo/protocol/extend';
import { startRedis } from '@echo/testkit';
import { clientCpuUs } from './lib/admin.js';
import { boolOption, intOption } from './lib/options.js';
import { progress, publish, table } from './lib/report.js';
import { closeTracing, instrument, SETUPS, type Setup, type TraceChannels } from './lib/trace-setups.js';
import { fmt, fmtRatio, fmtSpread, pairedRatios, spread, waitUntil } from './lib/stats.js';

const QUICK = process.argv.includes('--quick') || boolOption('quick', false);
const RECORDS = intOption('records', QUICK ? 2_000 : 10_000);
const ROUNDS = intOption('rounds', QUICK ? 1 : 5);
const IN_FLIGHT = 50;

const CHANNELS: TraceChannels = { produce: traces.streamAppend.start.name, process: traces.streamProcess.start.name };

interface Round {
  /** Node CPU µs per append. */
  readonly appendUs: number;
  /** Node CPU µs per consumed entry (read, handler, ack). */
  readonly consumeUs: number;
}

async function measure(url: string, setup: Setup, round: number): Promise<Round> {
  const stop = instrument(setup, CHANNELS);
  const bus = await Bus.open(`bus-trace-${setup}-${String(round)}`, { connect: url });
  const stream = bus.stream('s', { traceContext: setup !== 'off' });
  try {
    let next = 0;
    const cpu0 = clientCpuUs();
    await Promise.all(Array.from({ length: IN_FLIGHT }, async () => {
      while (next++ < RECORDS) await stream.append({ n: 'x' });
    }));
    const cpu1 = clientCpuUs();
    let done = 0;
    const consumer = await stream.consume('g', () => {
      done++;
    }, { start: 'head', consumer: 'c', concurrency: IN_FLIGHT });
    await waitUntil(() => done >= RECORDS && consumer.stats().acked >= RECORDS, 120_000, 'the stream to drain');
    const cpu2 = clientCpuUs();
    await consumer.close();
    return { appendUs: (cpu1 - cpu0) / RECORDS, consumeUs: (cpu2 - cpu1) / RECORDS };
  } finally {
    stop();
    await bus.close();
  }
}

const server = await startRedis();
try {
  const results = new Map<Setup, Round[]>(SETUPS.map((s) => [s, []]));
  await measure(server.url, 'otel', -1);
  await measure(server.url, 'off', -1);
  for (let round = 0; round < ROUNDS; round++) {
    progress(`round ${String(round + 1)}/${String(ROUNDS)}`);
    // Rotate the order so a warm-up or drift does not always favour one set-up.
    const order = SETUPS.map((_, i) => SETUPS[(i + round) % SETUPS.length] as Setup);
    for (const setup of order) results.get(setup)?.push(await measure(server.url, setup, round));
  }
  const off = results.get('off') ?? [];
  const row = (setup: Setup, pick: (r: Round) => number): string[] => {
    const mine = (results.get(setup) ?? []).map(pick);
    return [fmtSpread(spread(mine), fmt), fmtSpread(spread(pairedRatios(mine, off.map(pick))), fmtRatio)];
  };
  const markdown = [
    `# Trace context in stream records: Node CPU per record (${String(RECORDS)} records, ${String(ROUNDS)} rounds; Node ${process.version})`,
    '',
    table(
      ['set-up', 'append µs CPU/record', 'vs off', 'consume µs CPU/record', 'vs off'],
      SETUPS.map((s) => [s, ...row(s, (r) => r.appendUs), ...row(s, (r) => r.consumeUs)]),
    ),
    '',
    'median (min–max) over rounds; ratios are paired within a round. Same server commands per record in every set-up.',
  ].join('\n');
  publish('bus-trace-context.md', markdown);
} finally {
  await closeTracing();
  await server.stop();
}
