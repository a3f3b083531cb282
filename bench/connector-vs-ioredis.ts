/**
 * Echo's connector against raw ioredis: the same EVALSHA (Echo's `queue_pause` script on one meta
 * key, loaded first) on the same server, pipelined and with concurrent single calls. Rounds are
 * interleaved and each ratio is taken within its round. See README.md.
 *
 *   pnpm bench:connector                       # 200,000 calls per run, 5 rounds
 *   OPS=20000 ROUNDS=2 pnpm bench:connector    # a quick correctness run
 */
import { Redis } from 'ioredis';
import { Connection, execute, executeAll, queueKeys, scripts, transition, type Transition } from '@echo/protocol/extend';
import { Admin, clientCpuUs, machineHeader } from './lib/admin.js';
import { intOption } from './lib/options.js';
import { progress, publish, table } from './lib/report.js';
import { fmt, fmtRatio, fmtSpread, pairedRatios, spread } from './lib/stats.js';
import { acquireTarget } from './lib/target.js';

const OPS = intOption('ops', 200_000);
const BATCH = intOption('batch', 100);
const INFLIGHT = intOption('inflight', 16);
const ROUNDS = intOption('rounds', 5);
const WARMUP = intOption('warmup', 1, 0);

const script = scripts().queue_pause;
const key = queueKeys('bench').meta;

/** One run: calls per second, and this process's CPU time per call in µs. */
interface Figure {
  readonly perSecond: number;
  readonly cpuUsPerCall: number;
}

/** Runs `ops` calls. */
type Measure = (ops: number) => Promise<Figure>;

async function timed(ops: number, body: () => Promise<void>): Promise<Figure> {
  const cpu0 = clientCpuUs();
  const t0 = performance.now();
  await body();
  const ms = performance.now() - t0;
  return { perSecond: (ops / ms) * 1000, cpuUsPerCall: (clientCpuUs() - cpu0) / ops };
}

/** `inflight` loops, each sending its next call when the previous one answered. */
async function inFlight(ops: number, inflight: number, call: () => Promise<unknown>): Promise<void> {
  let issued = 0;
  const lane = async (): Promise<void> => {
    while (issued < ops) {
      issued++;
      if ((await call()) !== 1) throw new Error('unexpected reply');
    }
  };
  await Promise.all(Array.from({ length: inflight }, lane));
}

type MeasureName = 'rawPipeline' | 'echoBatch' | 'rawInFlight' | 'echoInFlight';

function measures(echo: Connection, raw: Redis): Record<MeasureName, Measure> {
  // The typed face a pillar uses (`execute`/`executeAll`), with a reader that keeps the reply as it is.
  const call: Transition<unknown> = transition({ script, keys: [key], args: [] }, (reply) => reply);
  const calls: Transition<unknown>[] = Array.from({ length: BATCH }, () => call);
  return {
    rawPipeline: (ops) =>
      timed(ops, async () => {
        for (let done = 0; done < ops; done += BATCH) {
          const size = Math.min(BATCH, ops - done);
          const pipe = raw.pipeline();
          for (let i = 0; i < size; i++) pipe.evalsha(script.sha, 1, key);
          const replies = await pipe.exec();
          if (replies?.length !== size || replies.some(([error]) => error !== null)) throw new Error('ioredis pipeline failed');
        }
      }),
    echoBatch: (ops) =>
      timed(ops, async () => {
        for (let done = 0; done < ops; done += BATCH) {
          const size = Math.min(BATCH, ops - done);
          const results = await executeAll(echo, size === BATCH ? calls : calls.slice(0, size));
          if (results.length !== size || results.some((r) => !r.ok)) throw new Error('Echo executeAll failed');
        }
      }),
    rawInFlight: (ops) => timed(ops, () => inFlight(ops, INFLIGHT, () => raw.evalsha(script.sha, 1, key))),
    echoInFlight: (ops) => timed(ops, () => inFlight(ops, INFLIGHT, () => execute(echo, call))),
  };
}

async function main(): Promise<void> {
  const target = await acquireTarget();
  const admin = new Admin(target);
  let echo: Connection | undefined;
  let raw: Redis | undefined;
  try {
    const header = await machineHeader(admin);
    await admin.flushAll();
    const digest = await admin.client.call('SCRIPT', 'LOAD', script.source);
    if (digest !== script.sha) throw new Error(`SCRIPT LOAD answered ${String(digest)}, expected ${script.sha}`);

    echo = await Connection.connect({
      host: target.host,
      port: target.port,
      db: target.db,
      ...(target.password === undefined ? {} : { password: target.password }),
      // The strict twin is a different script (and SHA); measure the production path.
      strictKeys: false,
    });
    raw = new Redis({
      host: target.host,
      port: target.port,
      db: target.db,
      ...(target.password === undefined ? {} : { password: target.password }),
      maxRetriesPerRequest: null,
      disableClientInfo: true,
    });
    await raw.ping();

    const m = measures(echo, raw);
    const names: readonly MeasureName[] = ['rawPipeline', 'echoBatch', 'rawInFlight', 'echoInFlight'];
    const swapped: readonly MeasureName[] = ['echoBatch', 'rawPipeline', 'echoInFlight', 'rawInFlight'];
    const results: Record<MeasureName, Figure[]> = { rawPipeline: [], echoBatch: [], rawInFlight: [], echoInFlight: [] };
    const statsBefore = echo.stats();
    for (let r = 0; r < WARMUP + ROUNDS; r++) {
      const warm = r < WARMUP;
      const line: string[] = [];
      // Pairs swap places every other round (A B, then B A), so neither side always runs first.
      const order = r % 2 === 0 ? names : swapped;
      for (const name of order) {
        const figure = await m[name](warm ? Math.min(OPS, 20_000) : OPS);
        line.push(`${name} ${fmt(figure.perSecond)}/s ${fmt(figure.cpuUsPerCall)} µs`);
        if (!warm) results[name].push(figure);
      }
      progress(`${warm ? `warm-up ${r + 1}/${WARMUP}` : `round ${r - WARMUP + 1}/${ROUNDS}`}: ${line.join(', ')}`);
    }
    const statsAfter = echo.stats();

    const row = (label: string, echoRuns: readonly Figure[], rawRuns: readonly Figure[], pick: (f: Figure) => number): string[] => {
      const echoSeries = echoRuns.map(pick);
      const rawSeries = rawRuns.map(pick);
      return [label, fmtSpread(spread(rawSeries)), fmtSpread(spread(echoSeries)), fmtSpread(spread(pairedRatios(echoSeries, rawSeries)), fmtRatio)];
    };
    const rate = (f: Figure): number => f.perSecond;
    const cpu = (f: Figure): number => f.cpuUsPerCall;
    const markdown = [
      '# Echo connector vs raw ioredis',
      '',
      ...header,
      `- script: \`${script.name}\` (EVALSHA, 1 key \`${key}\`), loaded before the run; Echo with strictKeys off`,
      `- calls per run: ${OPS}; measured rounds: ${ROUNDS}, warm-up rounds: ${WARMUP} (not counted); order: ${names.join(', ')} in even rounds, ${swapped.join(', ')} in odd ones`,
      `- pipelines: ${BATCH} calls each, one pipeline in flight; concurrent single calls: ${INFLIGHT} in flight`,
      `- Echo wire counters over the measured and warm-up runs: ${statsAfter.evalshaCalls - statsBefore.evalshaCalls} EVALSHA, ${statsAfter.scriptLoads - statsBefore.scriptLoads} SCRIPT LOAD, ${statsAfter.wireErrors - statsBefore.wireErrors} errors`,
      '',
      'Cells: median (min–max) over the measured rounds. Ratio: Echo/raw within each round, then median (min–max).',
      'calls/s: higher is better; the product goal is Echo/raw >= 0.90x. Client CPU µs per call (this Node process, `process.cpuUsage()`): lower is better;',
      'it is the connector\'s own overhead and is far less sensitive to a busy machine than calls/s, because the server does the same work on both sides.',
      '',
      table(
        ['measure', 'raw ioredis', 'Echo', 'Echo/raw'],
        [
          row(`calls/s: executeAll(${BATCH}) vs pipeline().evalsha x${BATCH}`, results.echoBatch, results.rawPipeline, rate),
          row(`calls/s: execute, ${INFLIGHT} in flight vs pipeline().evalsha x${BATCH}`, results.echoInFlight, results.rawPipeline, rate),
          row(`calls/s: execute, ${INFLIGHT} in flight vs evalsha, ${INFLIGHT} in flight`, results.echoInFlight, results.rawInFlight, rate),
          row(`client CPU µs/call: executeAll(${BATCH}) vs pipeline x${BATCH} (lower is better)`, results.echoBatch, results.rawPipeline, cpu),
          row(`client CPU µs/call: execute vs evalsha, ${INFLIGHT} in flight (lower is better)`, results.echoInFlight, results.rawInFlight, cpu),
        ],
      ),
    ].join('\n');
    await admin.flushAll();
    const path = publish('connector-latest.md', markdown);
    progress(`written to ${path}`);
  } finally {
    await echo?.close();
    await raw?.quit();
    await admin.close();
    await target.stop();
  }
}

await main();
