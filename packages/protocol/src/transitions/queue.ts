/**
 * The queue's typed transitions: admission, claims, settlement, recovery, operator verbs, lanes,
 * workers, gates, schedulers and flows. `@echo/protocol/queue` hands this set to the queue as its
 * `transitions` namespace.
 */
export { enqueue, enqueueDedup, enqueueMany, enqueueManyWith, laneEnqueue, schedule, scheduleDedup } from './admission.js';
export type { Admission, AdmitInput, DedupAdmission, DedupMode, EnqueueDedupInput, EnqueueInput, EnqueueManyInput, EnqueueManyWithInput, ManyItemWith, LaneEnqueueInput, ManyAdmission, ScheduleDedupInput, ScheduleInput } from './admission.js';
export { claim, claimBatch, laneBatchClaim, laneClaim, laneWeightedClaim, recoverClaims } from './claims.js';
export type { ClaimedRow, ClaimInput, RecoverClaimsInput, RecoveredClaim } from './claims.js';
export { complete, completeBatch, delay, extendLock, extendLocks, retry } from './settlement.js';
export type { BatchCompletion, CompleteBatchInput, CompleteInput, DelayInput, HeldJob, RetryInput, RetryOutcome, SettleInput } from './settlement.js';
export { completeAndClaim } from './rounds.js';
export type { CompleteAndClaimInput, Round } from './rounds.js';
export { cleanCompleted, cleanDead, promote, promoteNext, reap, reapGroup, reprocess, reprocessCompleted, rescheduleJob, retryDead, sweepStalled } from './recovery.js';
export type { PromoteNext, Rescheduled, StalledSweep } from './recovery.js';
export { addLog, changePriority, clearLogs, dedupRelease, drain, obliterate, pauseQueue, removeJob, resumeQueue, retentionSet, updateData, updateProgress, type PriorityChange, type RetentionBound } from './operator.js';
export { laneDrain, laneLimit, lanePause, laneRateLimit, laneReassign, laneResume, laneWeight } from './lanes.js';
export type { LaneInput, LaneRateLimit, ReassignResult } from './lanes.js';
export { giveBack, workerBeat, workerLeave, workerList } from './workers.js';
export type { WorkerEntry, WorkerList } from './workers.js';
export { counts, isMaxed, laneCounts, rateTtl, stateLookup } from './reads.js';
export { rateLimit, rateReset, setGates } from './gates.js';
export type { GatesInput, RateLimit } from './gates.js';
export { setEvents } from './events.js';
export type { EventsSettingsInput } from './events.js';
export type { CountName, JobPosition } from './reads.js';
export { repeatAdvance, repeatCancel, repeatDue, repeatRegister, schedulerDue, schedulerFire, schedulerUpsert } from './repeat.js';
export type { DueScheduler, FireOutcome, RepeatInput, SchedulerCadence, SchedulerUpsertInput } from './repeat.js';
export { enqueueFlow, enqueueFlowChild, flowDeliver, flowFailDeliver, flowOutboxTrim, flowReemit, flowRejoin, holdParent } from './flows.js';
export type { BusinessKey, FailDelivery, FlowChildInput, FlowLinkInput } from './flows.js';
export { addChildren, waitChildren } from './steps.js';
export type { AddChildrenInput, AddChildrenOutcome } from './steps.js';
export { adoptChildren, detachChild, linkChild, type LinkVerdict } from './adoption.js';
export type { AdoptChildrenInput, AdoptChildrenOutcome } from './adoption.js';
