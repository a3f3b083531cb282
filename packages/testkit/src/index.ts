/**
 * Real Redis and Valkey servers, standalone and clustered, for Echo's tests and yours. Nothing here
 * mocks a server: every helper spawns (or connects to) a real one and cleans it up.
 *
 * @packageDocumentation
 */
export { findServerBinary, RedisServerNotFoundError, SERVER_BINARY_ENV, SERVER_BINARY_NAMES } from './binary.js';
export { TEST_CLIENT_DEFAULTS, type ClientOptions, type ClusterClientOptions, type ReplyMappingMode } from './client-options.js';
export { CLUSTER_SLOTS, startCluster, type ClusterSeed, type RedisCluster, type StartClusterOptions } from './cluster.js';
export type { ClusterFailovers, Failover, HealthOptions } from './cluster-failover.js';
export { startLinkProxy, type LinkMode, type LinkProxy, type LinkProxyOptions } from './link-proxy.js';
export { NAME_PATTERN, uniqueName } from './names.js';
export { CLUSTER_BUS_OFFSET, freeClusterPort, freePort, isPortFree, LOOPBACK } from './ports.js';
export { UnknownTestkitOptionError } from './options.js';
export { isProcessAlive } from './process-utils.js';
export { descendants, printed, stillAlive, type ProcessInfo } from './process-tree.js';
export { liveCount, stopAll } from './registry.js';
export { startSentinel, type SentinelFailover, type SentinelGroup, type StartSentinelOptions } from './sentinel.js';
export { RedisStartError, startRedis, type Persistence, type RedisServer, type StartRedisOptions } from './server.js';
export {
  REDIS_URL_ENV,
  useRedis,
  type ExternalRedisTarget,
  type RedisTarget,
  type SpawnedRedisTarget,
} from './use-redis.js';
export { rejection, sleep, waitFor, type WaitOptions } from './wait.js';
export { checkHistory, formatOperation, formatViolation, type CheckOptions, type CheckResult, type Rule, type Violation } from './history/checker.js';
export { History, type Operation, type Recorded } from './history/operations.js';
export { RollingChecker, type RollingCheckOptions, type RollingSnapshot } from './history/rolling.js';
export { InjectedClock } from './faults/clock.js';
export {
  aofRestartFault,
  clientPauseFault,
  clockJumpFault,
  linkFault,
  masterKillFault,
  memoryFullFault,
  processKillFault,
  sentinelFailoverFault,
  type FailoverFaultOptions,
  type Fault,
  type LinkFaultMode,
  type ProcessPool,
} from './faults/injectors.js';
export { seededRandom } from './faults/random.js';
export { planFaults, runFaults, type FaultRun, type FaultStep, type PlanOptions, type RunFaultsOptions, type StepOutcome } from './faults/schedule.js';
