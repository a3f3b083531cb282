import type { ConnectOptions, NodeAddress } from '@echo/protocol';
import { UsageError } from './errors.js';
import { intFlag } from './flags.js';
import type { CliIo } from './io.js';

/** The options every command shares (cac camel-cases them). */
export interface GlobalFlags {
  readonly url?: string;
  readonly cluster?: string;
  readonly json?: boolean;
  readonly timeout?: number | string;
}

const DEFAULT_URL = 'redis://127.0.0.1:6379';

function seeds(list: string): NodeAddress[] {
  return list.split(',').map((seed) => {
    const at = seed.lastIndexOf(':');
    const port = Number(seed.slice(at + 1));
    if (at <= 0 || !Number.isInteger(port)) throw new UsageError(`--cluster: ${JSON.stringify(seed)} is not host:port`);
    return { host: seed.slice(0, at), port };
  });
}

/** `--cluster` or `ECHO_CLUSTER_SEEDS` first, then `--url`, `REDIS_URL`, and the local default. */
export function connectOptions(flags: GlobalFlags, env: CliIo['env']): ConnectOptions {
  const timeout = intFlag('timeout', flags.timeout, 5000, 1);
  const common = { name: 'emq-cli', connectTimeoutMs: timeout, reconnectWaitMs: timeout };
  const cluster = flags.cluster ?? env.ECHO_CLUSTER_SEEDS;
  if (cluster !== undefined && cluster !== '') return { ...common, cluster: seeds(cluster) };
  return { ...common, url: flags.url ?? (env.REDIS_URL || DEFAULT_URL) };
}
