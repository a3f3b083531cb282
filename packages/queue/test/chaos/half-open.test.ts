/**
 * Chaos: a worker's replies stop (a half-open link: its commands still reach the server, nothing
 * comes back, and no reset says so). The connector's silence watch must notice within a few
 * seconds, drop the socket and reconnect on its own; once the link heals the worker completes jobs
 * again without waiting for the OS to reset the socket. The outage is reported while it lasts, within
 * a few seconds of the last reply (once), and then its end, both dated from that last reply.
 */
import { Connection, OutageReport } from '@echo/protocol/queue';
import { startLinkProxy, startRedis, uniqueName, type LinkProxy, type RedisServer } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue, Worker } from '../../src/index.js';
import { sleep, until } from './helpers.js';

/**
 * How long the replies stay blackholed: 20 s, `ECHO_HALF_OPEN_S=40` for the long run. Either way the
 * silence outlasts every timer it has to cross, in order: the reply timeout (1.5 s), the funnel's
 * ongoing report (5 s from the last reply), the reconnect backoff reaching its 2 s cap (about 10 s in),
 * and the calls' reconnect wait ({@link RECONNECT_WAIT_MS}), past which every call still waiting fails
 * again and must be folded into the same outage, with no second ongoing report.
 */
const SILENCE_MS = Number(process.env.ECHO_HALF_OPEN_S ?? 20) * 1000;
/**
 * Three quarters of the silence, so the waiting calls lapse well before the heal: the connector's
 * default (30 s) in the 40 s run; 15 s in the default run, which is what lets it be that short.
 */
const RECONNECT_WAIT_MS = SILENCE_MS * 0.75;
/** The connector's reply timeout (1.5 s) + the funnel's ongoing threshold (5 s from the last reply) + probes and a loaded machine. */
const REPORTED_WITHIN_MS = 8_000;

let server: RedisServer;
let proxy: LinkProxy;
let direct: Connection;
let viaProxy: Connection;
let worker: Worker | undefined;

beforeAll(async () => {
  server = await startRedis();
  proxy = await startLinkProxy({ target: server });
  direct = await Connection.connect(server.url);
  viaProxy = await Connection.connect({ host: proxy.host, port: proxy.port, replyTimeoutMs: 1_500, reconnectWaitMs: RECONNECT_WAIT_MS });
});

afterAll(async () => {
  proxy.release();
  await viaProxy.close({ immediate: true });
  await worker?.close();
  await direct.close();
  await proxy.close();
  await server.stop();
});

describe('chaos: a worker on a half-open link', () => {
  it(`notices ${SILENCE_MS / 1000} s of silence, reports it within seconds, reconnects by itself and works again after the heal`, async () => {
    const name = uniqueName('halfopen');
    const producer = await Queue.open<{ n: number }>(name, { connection: direct });
    const queue = await Queue.open<{ n: number }>(name, { connection: viaProxy });
    const reports: OutageReport[] = [];
    const others: unknown[] = [];
    worker = (await Worker.start(queue, () => sleep(5), {
      concurrency: 4,
      leaseMs: 3_000,
      maintenanceMs: 200,
      blockMs: 300,
      onError: (error) => (error instanceof OutageReport ? reports.push(error) : others.push(error)),
    }));
    const w = worker;
    let n = 0;
    const feed = async (count: number): Promise<void> => {
      await producer.enqueueMany(Array.from({ length: count }, () => ({ payload: { n: n++ } })));
    };
    await feed(50);
    await until('worker warmed up', () => w.stats().completed >= 50, 10_000, 10);

    proxy.blackhole();
    const silentAt = Date.now();
    await feed(200);
    // The watch drops the silent socket within its timeout (1.5 s) plus a tick or two; the
    // reconnects that follow hear nothing either and are dropped the same way.
    await until('the silent socket dropped', () => viaProxy.status !== 'ready', 6_000, 20);
    const detectedAfter = Date.now() - silentAt;
    expect(detectedAfter).toBeLessThan(6_000);
    // Reported while the silence lasts, not only when it ends.
    await until('the outage reported while it lasts', () => reports.length > 0, REPORTED_WITHIN_MS, 20);
    const reportedAfter = Date.now() - silentAt;
    expect(reports.map((r) => r.ongoing)).toEqual([true]);
    expect((reports[0] as OutageReport).startedAt).toBeLessThanOrEqual(silentAt + 200);
    const remaining = SILENCE_MS - (Date.now() - silentAt);
    if (remaining > 0) await sleep(remaining);
    const completedBeforeHeal = w.stats().completed;
    proxy.release();
    const healedAt = Date.now();

    await until('jobs completed again after the heal', () => w.stats().completed >= completedBeforeHeal + 20, 10_000, 20);
    const resumedAfter = Date.now() - healedAt;
    await until('the end of the outage reported', () => reports.length > 1, 10_000, 20);
    // Told once while it lasted, then its end: no repeat of the ongoing report for the whole silence,
    // the calls that lapsed their reconnect wait included.
    expect(reports.map((r) => r.ongoing)).toEqual([true, false]);
    const report = reports[1] as OutageReport;
    expect(report.startedAt).toBe((reports[0] as OutageReport).startedAt);
    // Dated from the last reply heard, not from the first call that failed seconds later.
    expect(report.startedAt).toBeLessThanOrEqual(silentAt + 200);
    expect(report.durationMs).toBeGreaterThanOrEqual(SILENCE_MS - 500);
    expect(others).toEqual([]);
    expect(resumedAfter).toBeLessThan(8_000);
    expect(viaProxy.stats().reconnects).toBeGreaterThanOrEqual(1);
    console.log(JSON.stringify({ detectedAfterMs: detectedAfter, reportedAfterMs: reportedAfter, resumedAfterHealMs: resumedAfter, durationMs: report.durationMs, absorbed: report.absorbed }));
  }, SILENCE_MS + 35_000);
});
