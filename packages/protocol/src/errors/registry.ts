import { ClusterUnavailableError, ConnectionLostError, KeyLawError } from './connection.js';
import { NotEnoughReplicasError, OutOfMemoryError } from './durability.js';
import type { EchoError } from './echo-error.js';
import {
  EmqError,
  GoneError,
  KindError,
  LockedError,
  NonMonotonicError,
  PermissionError,
  RateError,
  ServerError,
  StaleError,
  StateError,
} from './wire.js';

/** Builds the typed error for one `EMQ<CLASS>` word, given the detail text after it. */
export type EmqErrorFactory = (detail: string) => EchoError;

/**
 * The closed registry of protocol error classes (protocol.md §9). This is the one place a class word
 * becomes a type; adding a class is an additive protocol minor and lands here with its scenario.
 */
export const ERROR_CLASSES: Readonly<Record<string, EmqErrorFactory>> = Object.freeze({
  EMQKIND: (detail) => new KindError(detail),
  EMQSTALE: (detail) => (detail === 'job gone' ? new GoneError(detail) : new StaleError(detail)),
  EMQSTATE: (detail) => new StateError(detail),
  EMQLOCK: (detail) => new LockedError(detail),
  EMQRATE: (detail) => new RateError(detail),
  // Not a wire class: only our own rooted-key helpers and the strict test mode raise it, on a bug.
  EMQKEYLAW: (detail) => new KeyLawError(detail),
});

const XADD_NOT_MONOTONIC = 'ERR The ID specified in XADD is equal or smaller than the target stream top item';
const CONNECTION_GONE = /^(Connection is closed|Stream isn't writeable|Command aborted due to connection close)/;
/** Replies a cluster node gives instead of running a call whose slot it cannot serve now. */
const NOT_SERVED = /^(MOVED|ASK|TRYAGAIN|CLUSTERDOWN)\b/;
/** `maxmemory` reached under `noeviction`; inside a script the reply names the script after it. */
const OUT_OF_MEMORY = /^OOM\b/;
/** A write sent to a replica: under Sentinel, the node we reached was demoted (or not promoted yet). */
const READ_ONLY = /^READONLY\b/;
/**
 * `min-replicas-to-write` unmet: the primary lost its replicas (under Sentinel, the one promoted in
 * its place) or they lag; inside a script the reply names the script after it.
 */
const NO_REPLICAS = /^NOREPLICAS\b/;
/** ioredis' wrapper once a call's redirections ran out; the last node's error follows, named. */
const REDIRECTIONS_SPENT = /^Too many Cluster redirections\. Last error: (?:[A-Za-z]*Error: )?/;

/** The error under ioredis' redirection wrapper, as the reply it was (so it maps like one). */
function lastRedirection(error: Error): Error | undefined {
  const spent = REDIRECTIONS_SPENT.exec(error.message);
  if (!spent) return undefined;
  const inner = new Error(error.message.slice(spent[0].length), { cause: error });
  inner.name = 'ReplyError';
  return inner;
}

/**
 * The single mapping seam from a server error reply to a typed error. Script-specific classes (from
 * a protocol extension) are consulted first, then the closed registry; an unknown `EMQ*` word passes
 * through as a plain {@link EmqError} so a newer minor stays readable.
 */
export function mapReplyError(error: unknown, extra?: Readonly<Record<string, EmqErrorFactory>>): Error {
  if (!(error instanceof Error)) return new ServerError(String(error));
  const wrapped = lastRedirection(error);
  if (wrapped) {
    // Redirections end on a closed node or a refusal during a failover: no primary took the call.
    if (CONNECTION_GONE.test(wrapped.message) || NOT_SERVED.test(wrapped.message)) {
      return new ClusterUnavailableError(`no primary reachable for the call's slot: ${wrapped.message}`, { cause: error });
    }
    // Anything else (a script's own error after a redirect) was a real reply: map it as one.
    return mapReplyError(wrapped, extra);
  }
  const message = error.message;
  const space = message.indexOf(' ');
  const word = space === -1 ? message : message.slice(0, space);
  const detail = space === -1 ? '' : message.slice(space + 1);
  if (word.startsWith('EMQ')) {
    const factory = extra?.[word] ?? ERROR_CLASSES[word];
    return factory ? factory(detail) : new EmqError(word, detail);
  }
  if (message.startsWith(XADD_NOT_MONOTONIC)) return new NonMonotonicError(message);
  if (message.startsWith('NOPERM')) return new PermissionError(message, { cause: error });
  if (OUT_OF_MEMORY.test(message)) return new OutOfMemoryError(message, { cause: error });
  // Nothing ran, but the primary is elsewhere: a lost connection to the primary, so the gate drops
  // the socket and the reconnect asks Sentinel again; callers retry as after any dropped socket.
  if (READ_ONLY.test(message)) return new ConnectionLostError(`reached a read-only replica, not the primary: ${message}`, { cause: error }, 'read_only_replica');
  // Nothing ran; the primary may be one Sentinel has replaced, so the call is failed like a lost
  // connection (callers and the worker's settlements retry) but typed as a sure refusal.
  if (NO_REPLICAS.test(message)) return new NotEnoughReplicasError(`the primary has too few in-sync replicas to accept a write: ${message}`, { cause: error });
  if (CONNECTION_GONE.test(message)) return new ConnectionLostError(message, { cause: error });
  if (NOT_SERVED.test(message)) return new ClusterUnavailableError(`slot not served: ${message}`, { cause: error });
  if (error.name === 'ReplyError') return new ServerError(message, { cause: error });
  return error;
}
