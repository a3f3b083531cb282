import { InvalidArgumentError } from '../errors/validation.js';
import { count } from '../reply-shapes.js';
import { textArg } from '../reads/args.js';
import { write, type Write } from './write.js';

/** `PUBLISH channel message`: answers how many subscribers received it (at most once: none is not an error). */
export function publish(input: { readonly channel: string; readonly message: string }): Write<number> {
  if (typeof input.message !== 'string') throw new InvalidArgumentError('message', 'must be a string');
  return write('PUBLISH', [textArg('channel', input.channel), input.message], (reply) => count('PUBLISH', reply));
}
