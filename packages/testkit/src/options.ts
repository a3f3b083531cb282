/**
 * The testkit's own strict options check. The testkit depends on no Echo package (so the protocol
 * can test with it), which is why this is not `@echo/protocol`'s `strictOptions`; it has the same
 * shape and message.
 */

/** A starter was given an option it does not know; nothing was started. */
export class UnknownTestkitOptionError extends TypeError {
  /** The refused key, as the caller wrote it. */
  readonly option: string;
  /** Where it was passed, e.g. `startRedis options`. */
  readonly where: string;
  /** What to write instead, when the key is a known spelling; otherwise undefined. */
  readonly hint: string | undefined;

  constructor(where: string, option: string, hint: string | undefined, known: readonly string[]) {
    super(`invalid ${where}.${option}: ${hint !== undefined ? `is not an option here; ${hint}` : `is not an option here (known: ${known.join(', ')})`}`);
    this.name = 'UnknownTestkitOptionError';
    this.option = option;
    this.where = where;
    this.hint = hint;
  }
}

/** Builds the check of one starter's options: an unknown own key throws {@link UnknownTestkitOptionError}. */
export function strictTestkitOptions(where: string, known: readonly string[], hints: Readonly<Record<string, string>> = {}): (options: object | undefined) => void {
  const names = new Set(known);
  const sorted = [...known].sort();
  return (options) => {
    if (options === undefined) return;
    for (const key of Object.keys(options)) {
      if (!names.has(key)) throw new UnknownTestkitOptionError(where, key, Object.prototype.hasOwnProperty.call(hints, key) ? hints[key] : undefined, sorted);
    }
  };
}

const ARGS = (flag: string): string => `pass it to the server as args: ['${flag}', ...]`;

/** `startRedis(options)`. */
export const checkStartRedis = strictTestkitOptions('startRedis options', ['persistence', 'args', 'binary', 'password', 'readyTimeoutMs'], {
  port: 'the testkit picks a free port itself: read server.port or server.url',
  requirepass: 'requirepass is password here',
  appendonly: "AOF is persistence: 'aof' here",
  aof: "AOF is persistence: 'aof' here",
  maxmemory: ARGS('--maxmemory'),
  maxmemoryPolicy: ARGS('--maxmemory-policy'),
  readyTimeout: 'readyTimeoutMs here (milliseconds)',
  timeout: 'the wait for the first PING is readyTimeoutMs here (milliseconds)',
  serverBinary: 'binary here (a path or a command name)',
});

/** `startCluster(options)`. */
export const checkStartCluster = strictTestkitOptions('startCluster options', ['masters', 'replicasPerMaster', 'nodeTimeoutMs', 'args', 'binary', 'formTimeoutMs'], {
  nodes: 'the number of masters is masters here',
  shards: 'the number of masters is masters here',
  size: 'the number of masters is masters here',
  replicas: 'replicasPerMaster here (replicas attached to each master)',
  nodeTimeout: 'cluster-node-timeout is nodeTimeoutMs here (milliseconds)',
  password: ARGS('--requirepass'),
  readyTimeoutMs: 'the wait for the cluster to agree it is ok is formTimeoutMs here',
});

/** `startSentinel(options)`. */
export const checkStartSentinel = strictTestkitOptions(
  'startSentinel options',
  ['masterName', 'replicas', 'sentinels', 'downAfterMs', 'failoverTimeoutMs', 'args', 'binary', 'formTimeoutMs'],
  {
    name: 'the monitored name is masterName here',
    master: 'the monitored name is masterName here',
    replicasPerMaster: 'replicas here (replicas of the one primary)',
    quorum: 'the quorum is a majority of sentinels: set sentinels (default 3, quorum 2)',
    downAfterMilliseconds: 'down-after-milliseconds is downAfterMs here',
    failoverTimeout: 'failover-timeout is failoverTimeoutMs here (milliseconds)',
  },
);

/** `startLinkProxy(options)`. */
export const checkStartLinkProxy = strictTestkitOptions('startLinkProxy options', ['target'], {
  host: 'where the proxy forwards to is target: { host, port } here; the proxy picks its own port',
  port: 'where the proxy forwards to is target: { host, port } here; the proxy picks its own port',
  lagMs: 'delay the link after start with proxy.lag(ms)',
  delay: 'delay the link after start with proxy.lag(ms)',
});
