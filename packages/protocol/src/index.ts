/**
 * `@echo/protocol` for applications: the connection, the branded ids, the lifecycle event names, the
 * ACL rules and every error a pillar can throw. An app needs nothing else from the protocol.
 *
 * The rest of the substrate sits behind subpaths: `@echo/protocol/queue`, `@echo/protocol/bus` and
 * `@echo/protocol/cache` hand each pillar its contract (its keys, typed transitions, reads and
 * formats, on the shared machinery), and `@echo/protocol/extend` holds everything, scripts and key
 * shapes included, for library authors who build a new reading of the substrate.
 *
 * @packageDocumentation
 */
export { Connection } from './connector/connection.js';
export type { ConnectOptions, EvictionPolicyMode, NodeAddress, SentinelConfig } from './connector/options.js';
export type { ConnectionState } from './connector/gate.js';
export type { ConnectionStats } from './connector/stats.js';
export { WIRE_VERSION } from './connector/fence.js';

export type { BrandedId, EvtId, JobId } from './ids/branded.js';
export { idUnixMs, isBrandedId, parseId } from './ids/guards.js';

export { EVENT_NAMES, type EventName, type LifecycleEvent } from './events.js';
export { busAclRules, cacheAclRules, queueAclRules } from './acl.js';

export { EchoError } from './errors/echo-error.js';
export { RenamedError } from './errors/renamed.js';
export { CodecError, InvalidArgumentError, InvalidNameError, MalformedIdError, UnknownStateError } from './errors/validation.js';
export {
  EmqError,
  GoneError,
  KindError,
  LockedError,
  MalformedReplyError,
  NonMonotonicError,
  PermissionError,
  RateError,
  ServerError,
  StaleError,
  StateError,
} from './errors/wire.js';
export {
  AuthError,
  ClusterUnavailableError,
  ConnectError,
  ConnectionClosedError,
  ConnectionLostError,
  CrossSlotError,
  KeyLawError,
  OutageReport,
  Resp3RequiredError,
  ShaMismatchError,
  VersionFenceError,
} from './errors/connection.js';
export { EvictionPolicyError, NotEnoughReplicasError, NotReplicatedError, OutOfMemoryError } from './errors/durability.js';
export { UnknownOptionError, ValueTooLargeError } from './options/strict.js';
export { OptionRangeError } from './options/bounds.js';
