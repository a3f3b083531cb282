import { queueKeys } from '@echo/protocol';

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
