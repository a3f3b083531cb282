import { InvalidArgumentError } from '../errors/validation.js';
import { scripts } from '../scripts/catalog.js';
import { bind } from './bind.js';
import { transition, type Transition } from './transition.js';
import { whole } from './values.js';

/**
 * Input of {@link setEvents}: each setting given is changed; one left out is kept.
 */
export interface EventsSettingsInput {
  readonly queue: string;
  /**
   * Publish the chatty lifecycle events too: `waiting` (a job entered pending), `active` (a job was
   * claimed) and `drained` (a claim emptied pending). One or more per job on the hot paths, so off
   * until asked for.
   */
  readonly chatty?: boolean;
  /**
   * Journal every published event into `emq:{q}:journal`, keeping about this many (MAXLEN ~), or
   * `null` to stop journaling (what the journal holds is kept).
   */
  readonly journal?: number | null;
}

/**
 * `events_set` [TS]: sets the queue's lifecycle-event settings in meta (`events`, `journal`), which
 * every script that publishes reads in the same step as its state change.
 */
export function setEvents(input: EventsSettingsInput): Transition<void> {
  const chatty: unknown = input.chatty;
  if (chatty !== undefined && typeof chatty !== 'boolean') throw new InvalidArgumentError('chatty', 'must be a boolean');
  let journal = '';
  if (input.journal === null) journal = '0';
  else if (input.journal !== undefined) journal = String(whole('journal', input.journal, 1));
  const call = bind(scripts().events_set, { scope: { q: input.queue }, args: { chatty: chatty === undefined ? '' : chatty ? '1' : '0', journal } });
  return transition(call, () => undefined);
}
