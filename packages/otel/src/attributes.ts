/**
 * Attribute names. The `messaging.*` ones follow OpenTelemetry's messaging semantic conventions;
 * the `echomq.*` ones carry what those have no name for.
 */
export const ATTR = {
  system: 'messaging.system',
  operationType: 'messaging.operation.type',
  operationName: 'messaging.operation.name',
  destination: 'messaging.destination.name',
  messageId: 'messaging.message.id',
  batchCount: 'messaging.batch.message_count',
  consumerGroup: 'messaging.consumer.group.name',
  queue: 'echomq.queue',
  stream: 'echomq.stream',
  attempt: 'echomq.job.attempt',
  lane: 'echomq.job.lane',
  outcome: 'echomq.job.outcome',
  delayed: 'echomq.job.delayed',
} as const;

/** The value of `messaging.system` on every span and metric. */
export const SYSTEM = 'echomq';
