import type { EvtId } from '@echo/protocol';
import type { GroupEntry } from './consume-options.js';
import type { StreamFields } from './fields.js';

/**
 * An entry as a handler gets it: the record, and the in-progress signal of the consumer holding it.
 * The signal lives in a private field, so the entry reads (and compares) as its four data fields.
 */
export class HeldEntry implements GroupEntry {
  readonly id: EvtId;
  readonly payload: StreamFields;
  readonly attempts: number;
  readonly group: string;
  readonly #touch: () => Promise<boolean>;

  constructor(id: EvtId, payload: StreamFields, attempts: number, group: string, touch: () => Promise<boolean>) {
    this.id = id;
    this.payload = payload;
    this.attempts = attempts;
    this.group = group;
    this.#touch = touch;
  }

  /** See {@link GroupEntry.inProgress}. */
  inProgress(): Promise<boolean> {
    return this.#touch();
  }
}
