import type { ClusterOptions, RedisOptions } from 'ioredis';

/**
 * How ioredis 6 surfaces RESP3-only reply types (it speaks RESP3 by default): `'legacy'` keeps
 * RESP2 shapes (maps as flat arrays, doubles as strings), `'resp3'` gives objects and numbers.
 * ioredis types its clients by this mode but does not export the union, hence this copy.
 */
export type ReplyMappingMode = 'legacy' | 'resp3';

/** Options for a standalone test client; `replyMapping` is lifted into the client's type. */
export type ClientOptions<M extends ReplyMappingMode = 'legacy'> = RedisOptions & { replyMapping?: M };

/** Options for a cluster test client; `redisOptions.replyMapping` is lifted into the client's type. */
export type ClusterClientOptions<M extends ReplyMappingMode = 'legacy'> = ClusterOptions & {
  redisOptions?: ClusterOptions['redisOptions'] & { replyMapping?: M };
};

/**
 * Defaults for clients made by the testkit. ioredis's own defaults (20 retries per command with
 * backoff up to 5 s) turn a dead server into a test that hangs until its timeout; these make a
 * command fail within about 1.5 s of downtime while still riding out a `restart()`.
 *
 * `disableClientInfo`: ioredis 6 sends `CLIENT SETINFO` on every connect, which Redis < 7.2 answers
 * with an error; left on, each connection adds 2 to the server's error stats, which tests that
 * assert on `INFO errorstats` would trip over.
 */
export const TEST_CLIENT_DEFAULTS = {
  maxRetriesPerRequest: 5,
  retryStrategy: (times: number): number => Math.min(times * 100, 1_000),
  connectTimeout: 5_000,
  lazyConnect: false,
  disableClientInfo: true,
} as const satisfies RedisOptions;
