import { EVENT_NAMES, InvalidArgumentError, encodeEvent, queueKeys, writes, type Connection, type EventName, type JobId } from '@echo/protocol/bus';

const KNOWN = new Set<string>(EVENT_NAMES);

/**
 * Publishes a lifecycle event on `emq:{q}:events` (bus.md §1.2), host side, after a verdict. The job
 * id and the fields are checked before any I/O. Delivery is at most once: the receiver count is
 * discarded, and nobody listening is still success. For an event that must survive, append it to a
 * stream as well.
 *
 * @param job the job's id: a `JobId`, so a plain string does not compile (it would fail at run time).
 * @param extra flat string fields such as `outcome`; `event` and `job` are reserved.
 * @throws MalformedIdError when `job` is not a branded id.
 * @throws InvalidArgumentError for an unknown event name or a field that is reserved or not a string.
 */
export async function publish(conn: Connection, queue: string, event: EventName, job: JobId, extra: Readonly<Record<string, string>> = {}): Promise<void> {
  const channel = queueKeys(queue).events;
  if (!KNOWN.has(event)) throw new InvalidArgumentError('event', `must be one of ${EVENT_NAMES.join(', ')}, got ${JSON.stringify(event)}`);
  if (typeof extra !== 'object' || (extra as object | null) === null) throw new InvalidArgumentError('extra', 'must be a flat object of string fields');
  for (const [name, value] of Object.entries(extra)) {
    if (name === 'event' || name === 'job') throw new InvalidArgumentError('extra', `the field name ${JSON.stringify(name)} is reserved`);
    if (typeof value !== 'string') throw new InvalidArgumentError('extra', `field ${JSON.stringify(name)} must be a string`);
  }
  await writes.sendWrite(conn, writes.publish({ channel, message: encodeEvent(event, job, extra) }));
}
