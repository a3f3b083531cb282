import { InvalidNameError, assertStreamName, queueKeys } from '@echo/protocol/bus';

/**
 * `emq:{q}:stream:<name>`. Both names are checked by the protocol's key builder, so a bad name
 * fails here, before any I/O.
 */
export function streamKey(queue: string, name: string): string {
  return queueKeys(queue).stream(name);
}

/** `emq:{q}:stream:<name>:archived`, the archive watermark (bus.md §8). */
export function archivedKey(queue: string, name: string): string {
  return queueKeys(queue).archived(name);
}

/** `emq:{q}:stream:<name>:dead`, the stream's dead-letter stream [TS]. */
export function deadLettersKey(queue: string, name: string): string {
  return queueKeys(queue).deadLetters(name);
}

/**
 * The hashtag a stream of a bus without a queue lives under: its own name, so `audit` is
 * `emq:{audit}:stream:audit` (its watermark and dead letters beside it). That is the key form of
 * bus.md §2 with `q` = the stream's name: no new key form, each stream on a slot of its own, and
 * the same stream a queue bus `audit` reaches as `bus.stream('audit')`.
 *
 * @throws InvalidNameError for a bad stream name, or `emq` (the reserve's hashtag).
 */
export function ownHashtag(name: string): string {
  assertStreamName(name);
  if (name === 'emq') throw new InvalidNameError('stream name', name, 'must not be "emq" on a bus without a queue: the stream lives under its own hashtag, and {emq} is the reserve');
  return name;
}
