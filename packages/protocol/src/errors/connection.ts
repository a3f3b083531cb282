import { EchoError } from './echo-error.js';

/** The stored wire version is not one this build may use (protocol.md §10). Fatal. */
export class VersionFenceError extends EchoError {
  override readonly code: 'foreign_version' | 'version_major_mismatch';
  /** The value found in `{emq}:version`, or `null` when it stayed absent. */
  readonly found: string | null;
  /** The value this build claims. */
  readonly expected: string;

  constructor(code: 'foreign_version' | 'version_major_mismatch', found: string | null, expected: string) {
    super(code, `version fence: ${code} (found ${found === null ? 'nothing' : JSON.stringify(found)}, expected ${expected})`);
    this.code = code;
    this.found = found;
    this.expected = expected;
  }
}

/** `SCRIPT LOAD` returned a digest other than the one computed from the source. A hard fault. */
export class ShaMismatchError extends EchoError {
  readonly script: string;
  readonly expected: string;
  readonly returned: string;

  constructor(script: string, expected: string, returned: string) {
    super('sha_mismatch', `script ${script}: SCRIPT LOAD returned ${returned}, expected ${expected}`);
    this.script = script;
    this.expected = expected;
    this.returned = returned;
  }
}

/** The server refused our credentials (`NOAUTH`, `WRONGPASS`). Fatal on reconnect. */
export class AuthError extends EchoError {
  constructor(message: string, options?: ErrorOptions) {
    super('auth', message, options);
  }
}

/** The connection was closed by the caller, or the connector stopped after a fatal error. */
export class ConnectionClosedError extends EchoError {
  constructor(message = 'connection is closed', options?: ErrorOptions) {
    super('closed', message, options);
  }
}

/** The server could not be reached, or did not finish the handshake, within the connect timeout. */
export class ConnectError extends EchoError {
  constructor(message: string, options?: ErrorOptions) {
    super('connect', message, options);
  }
}

/** When the connection that raised a {@link ConnectionLostError} last heard its server, by error. */
const lastReplies = new WeakMap<Error, number>();

/**
 * Records when the connection that raised `error` last received anything from its server.
 *
 * @internal The connector stamps the errors it raises; read it as {@link ConnectionLostError.lastReplyAt}.
 */
export function noteLastReply(error: Error, at: number): void {
  lastReplies.set(error, at);
}

/**
 * The socket dropped while the call was in flight (it may or may not have run on the server), or the
 * connector did not get back within its wait limit. In-flight calls are never replayed: the caller
 * decides, since only it knows whether the call is safe to repeat.
 */
export class ConnectionLostError extends EchoError {
  constructor(message = 'connection lost', options?: ErrorOptions, code = 'disconnected') {
    super(code, message, options);
  }

  /**
   * `Date.now()` when the connection that raised this error last received a reply (any bytes) from
   * its server, when it knows: the moment the link went quiet, often seconds before a call failed.
   */
  get lastReplyAt(): number | undefined {
    return lastReplies.get(this);
  }
}

/**
 * A Redis Cluster could not bring the call to the primary of its slot: the slot's master is down
 * and no replica has taken over yet (a failover: `CLUSTERDOWN`, `MOVED`/`TRYAGAIN` loops, or the
 * client's redirections ran out against a closed node). A {@link ConnectionLostError}, so retry
 * logic written for a dropped socket covers it: the call may have run if a socket dropped under
 * it, and is never replayed by the connector. The driver's own error is the `cause`.
 */
export class ClusterUnavailableError extends ConnectionLostError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options, 'cluster_unavailable');
  }
}

/**
 * Not a failure but the report of one: for a stretch, calls could not reach a primary (a dropped
 * socket, a cluster master failing over), and the errors of that stretch were counted instead of
 * reported one by one. Sent through an `onError` hook once the stretch is over (`ongoing` false),
 * or while it lasts (`ongoing` true; a worker says so once, 5 s after the last reply). The first
 * error of the stretch is the `cause`.
 *
 * The outage is dated from the last success, not from the first failure: when the `cause` is a
 * {@link ConnectionLostError} that knows when its connection last heard the server
 * (`lastReplyAt`, earlier than the given start), the report starts there and its duration grows by
 * the difference. A call fails only after a timeout or a reset, seconds after the link went quiet.
 */
export class OutageReport extends EchoError {
  /** `Date.now()` of the last reply before the first error when known, else of the first error. */
  readonly startedAt: number;
  /** From {@link startedAt} until calls got through again (or until now, while ongoing). */
  readonly durationMs: number;
  /** Errors folded into this report, the first included. */
  readonly absorbed: number;
  /** True while calls still do not get through. */
  readonly ongoing: boolean;

  constructor(firstErrorAt: number, durationFromFirstError: number, absorbed: number, ongoing: boolean, options?: ErrorOptions) {
    const quietAt = options?.cause instanceof ConnectionLostError ? options.cause.lastReplyAt : undefined;
    const startedAt = quietAt !== undefined && quietAt < firstErrorAt ? quietAt : firstErrorAt;
    const durationMs = durationFromFirstError + (firstErrorAt - startedAt);
    const seconds = (durationMs / 1000).toFixed(1);
    super('outage', `${ongoing ? 'no primary reachable for' : 'recovered after'} ${seconds} s without a primary (${absorbed} errors absorbed)`, options);
    this.startedAt = startedAt;
    this.durationMs = durationMs;
    this.absorbed = absorbed;
    this.ongoing = ongoing;
  }
}

/** A script call's keys do not all hash to one cluster slot; refused before sending. */
export class CrossSlotError extends EchoError {
  readonly keys: readonly string[];

  constructor(script: string, keys: readonly string[]) {
    super('cross_slot', `script ${script}: keys span several slots: ${keys.join(', ')}`);
    this.keys = keys;
  }
}

/** A script touched a key it had not declared (the strict key-law mode, protocol.md §6). */
export class KeyLawError extends EchoError {
  constructor(message: string) {
    super('key_law', message);
  }
}

/**
 * A subscription was asked of a connection that negotiated RESP2 (protocol.md §12): there, pushes
 * and replies cannot share one socket, so the connector's own fence could not run after a
 * reconnect.
 */
export class Resp3RequiredError extends EchoError {
  constructor(message = 'subscriptions require a RESP3 connection') {
    super('requires_resp3', message);
  }
}
