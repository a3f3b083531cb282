#!/usr/bin/env node
/**
 * `echo-conformance`: runs Echo's conformance suite (conformance.md) against a live server through
 * the real Queue, workers, Bus and Connection, and prints the spec's report: one `CONF` line per
 * scenario, then `CONFORMANCE <passed>/<run>` and a plain tally line. Exits non-zero on any failure.
 * In this repository `pnpm conformance` runs it from source:
 *
 *   pnpm conformance                                        # throwaway standalone server
 *   pnpm conformance -- --cluster                           # throwaway 3-master cluster
 *   REDIS_URL=redis://127.0.0.1:6379 pnpm conformance       # your server
 *   ECHO_CLUSTER_SEEDS=127.0.0.1:7000,127.0.0.1:7001 pnpm conformance
 *   pnpm conformance -- --only fence,stale                  # a few scenarios by name
 */
import type { ConnectOptions } from '@echo/protocol';
import { startCluster, startRedis } from '@echo/testkit';
import { formatCounts, formatSummary, formatResult } from './report.js';
import { runConformance } from './runner.js';
import { createTarget } from './target.js';

function seeds(list: string): { host: string; port: number }[] {
  return list.split(',').map((seed) => {
    const at = seed.lastIndexOf(':');
    const port = Number(seed.slice(at + 1));
    if (at <= 0 || !Number.isInteger(port)) throw new Error(`ECHO_CLUSTER_SEEDS: ${JSON.stringify(seed)} is not host:port`);
    return { host: seed.slice(0, at), port };
  });
}

/** Where to connect, and what to stop afterwards when the server was started here. */
async function server(cluster: boolean): Promise<{ where: string; options: ConnectOptions; stop: () => Promise<void> }> {
  const none = (): Promise<void> => Promise.resolve();
  const seedList = process.env.ECHO_CLUSTER_SEEDS;
  if (seedList !== undefined && seedList !== '') return { where: `cluster ${seedList}`, options: { cluster: seeds(seedList), strictKeys: true }, stop: none };
  const url = process.env.REDIS_URL;
  if (url !== undefined && url !== '') return { where: url, options: { url, strictKeys: true }, stop: none };
  if (cluster) {
    const started = await startCluster({ masters: 3 });
    return { where: 'a throwaway 3-master cluster', options: { cluster: started.seeds, strictKeys: true }, stop: () => started.stop() };
  }
  const started = await startRedis();
  return { where: `a throwaway server (${started.url})`, options: { url: started.url, strictKeys: true }, stop: () => started.stop() };
}

async function main(): Promise<number> {
  const args = process.argv.slice(2).filter((arg) => arg !== '--');
  const onlyAt = args.indexOf('--only');
  const only = onlyAt === -1 ? undefined : (args[onlyAt + 1] ?? '').split(',').filter((name) => name !== '');
  const { where, options, stop } = await server(args.includes('--cluster'));
  const started = performance.now();
  try {
    console.error(`Echo conformance against ${where}`);
    const target = await createTarget({ connect: options });
    try {
      const run = await runConformance(target, { ...(only === undefined ? {} : { only }), onResult: (r) => console.log(formatResult(r)) });
      console.log(formatSummary(run));
      console.log(formatCounts(run));
      console.error(`(${((performance.now() - started) / 1000).toFixed(1)} s)`);
      return run.failed === 0 ? 0 : 1;
    } finally {
      await target.close();
    }
  } finally {
    await stop();
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
    process.exitCode = 2;
  },
);
