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
  /**
   * [TS] Keep each job's last `history` attempts (start, end, outcome, error) in
   * `emq:{q}:job:<id>:attempts`, deleted with the row; `null` stops recording (what was written stays
   * with its row).
   */
  readonly history?: number | null;
  /**
   * [TS] Count completions and failed attempts per minute in the metrics hashes (fields `m:<minute>`),
   * keeping this many minutes; `null` stops counting (old minutes age out).
   */
  readonly minutes?: number | null;
}

function setting(name: string, value: number | null | undefined, max: number): string {
  if (value === null) return '0';
  if (value === undefined) return '';
  const n = whole(name, value, 1);
  if (n > max) throw new InvalidArgumentError(name, `must be at most ${String(max)}`);
  return String(n);
}

/**
 * `events_set` [TS]: sets the queue's lifecycle-event settings in meta (`events`, `journal`), which
 * every script that publishes reads in the same step as its state change, and the operator's memory
 * (`history`, `minutes`), read by the claims and settlements with the meta read they already do.
 */
export function setEvents(input: EventsSettingsInput): Transition<void> {
  const chatty: unknown = input.chatty;
  if (chatty !== undefined && typeof chatty !== 'boolean') throw new InvalidArgumentError('chatty', 'must be a boolean');
  let journal = '';
  if (input.journal === null) journal = '0';
  else if (input.journal !== undefined) journal = String(whole('journal', input.journal, 1));
  const history = setting('history', input.history, 1000);
  const minutes = setting('minutes', input.minutes, 7 * 24 * 60);
  const restArgs = history === '' && minutes === '' ? [] : [history, minutes];
  const call = bind(scripts().events_set, { scope: { q: input.queue }, args: { chatty: chatty === undefined ? '' : chatty ? '1' : '0', journal }, restArgs });
  return transition(call, () => undefined);
}
