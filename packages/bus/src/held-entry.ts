import type { EvtId } from '@echo/protocol/bus';
import type { GroupEntry } from './consume-options.js';
import type { StreamFields } from './fields.js';

/** The consumer that holds an entry: it resets the entry's idle time while it is worked on. */
export interface EntryHolder {
  touch(xid: string): Promise<boolean>;
}

/**
 * An entry as a handler gets it: the record, and the in-progress signal of the consumer holding it.
 * The signal lives in a private field, so the entry reads (and compares) as its four data fields.
 */
export class HeldEntry implements GroupEntry {
  readonly id: EvtId;
  readonly payload: StreamFields;
  readonly attempts: number;
  readonly group: string;
  readonly #xid: string;
  readonly #holder: EntryHolder;

  // The holder and the XADD id, not a closure: one object less per delivered entry on the hot path.
  constructor(id: EvtId, payload: StreamFields, attempts: number, group: string, xid: string, holder: EntryHolder) {
    this.id = id;
    this.payload = payload;
    this.attempts = attempts;
    this.group = group;
    this.#xid = xid;
    this.#holder = holder;
  }

  /** See {@link GroupEntry.inProgress}. */
  inProgress(): Promise<boolean> {
    return this.#holder.touch(this.#xid);
  }
}
