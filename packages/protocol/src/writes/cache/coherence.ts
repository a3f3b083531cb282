import { InvalidArgumentError } from '../../errors/validation.js';
import { MalformedReplyError } from '../../errors/wire.js';
import { cacheChannel } from '../../keys/cache-keys.js';
import { write, type Write } from '../write.js';

/**
 * `PUBLISH ecc:{<table>}:coh <message>`: one coherence message on a table's broadcast lane (cache.md
 * §7.5). The message is built by the cache (`<id>:<version>`); here only its presence is checked.
 * Answers how many subscribers received it.
 *
 * @throws InvalidNameError for a bad table; InvalidArgumentError for an empty message.
 */
export function cacheCoherencePublish(input: { readonly table: string; readonly message: string }): Write<number> {
  if (typeof input.message !== 'string' || input.message === '') throw new InvalidArgumentError('message', 'must be a non-empty string');
  return write('PUBLISH', [cacheChannel(input.table), input.message], (reply) => {
    if (typeof reply !== 'number' || !Number.isSafeInteger(reply) || reply < 0) throw new MalformedReplyError('PUBLISH', reply, 'expected a subscriber count');
    return reply;
  });
}
