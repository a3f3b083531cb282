import { execute, reads, transitions, type TraceContext } from '@echo/protocol/bus';
import type { StreamContext } from '../core/context.js';
import type { GroupEntry } from './options.js';
import type { Outcome } from './settle.js';

/** An entry as delivered: its XADD id, its delivery count, and its field list. */
export interface Delivered {
  readonly xid: string;
  readonly attempts: number;
  readonly pairs: readonly unknown[];
}

/** A delivered entry read: the record (undefined when it is not one), its trace context, its order key. */
export interface Item {
  readonly d: Delivered;
  readonly entry: GroupEntry | undefined;
  readonly context: TraceContext | undefined;
  /** The value of the order field; undefined when the entry has none (it is not ordered). */
  readonly key: string | undefined;
}

/** Who admits an ordered consumer's entries: its group, its name, and the order field. */
export interface OrderMember {
  readonly group: string;
  readonly consumer: string;
  readonly orderBy: string;
}

interface Waiting {
  readonly item: Item;
  /** The entry of the same key it waits for. */
  after: string;
}

/**
 * The per-key order of one consumer of an ordered group. Every entry it gets is admitted on the
 * server (`stream_order_admit`), which registers it in stream order and says whether it is the head
 * of its key in the whole group. Heads run in rounds, at most one entry of a key per round; an
 * entry waiting for one of this consumer's own entries runs in the round after that one is done,
 * and one waiting for a peer's is kept here and asked about again before each read (which also keeps
 * it from looking idle to the peers' claims), until its turn comes or a peer takes it.
 */
export class OrderedRounds {
  readonly #ctx: StreamContext;
  readonly #member: OrderMember;
  readonly #run: (items: readonly Item[]) => Promise<readonly (Outcome | undefined)[]>;
  readonly #stopping: () => boolean;
  readonly #waiting = new Map<string, Waiting>();

  constructor(ctx: StreamContext, member: OrderMember, run: (items: readonly Item[]) => Promise<readonly (Outcome | undefined)[]>, stopping: () => boolean) {
    this.#ctx = ctx;
    this.#member = member;
    this.#run = run;
    this.#stopping = stopping;
  }

  /**
   * Registers the group's position before the first read, when no consumer did yet: entries read
   * from then on are registered in stream order whoever admits first.
   */
  async start(): Promise<void> {
    const groups = await reads.sendRead(this.#ctx.conn, reads.xinfoGroups({ key: this.#ctx.key }));
    const last = groups.find((g) => g.name === this.#member.group)?.lastDeliveredId;
    if (last !== undefined) await execute(this.#ctx.conn, this.#admission([], last));
  }

  /** How many entries wait for an earlier one of their key. */
  get waiting(): number {
    return this.#waiting.size;
  }

  /**
   * Admits entries just handed over and runs what may run. `last` is the newest id of the read they
   * come from (everything up to it is registered, whoever read it); omit it for claimed entries.
   */
  async admit(items: readonly Item[], last?: string): Promise<void> {
    const keyed: Item[] = [];
    const ready: Item[] = [];
    for (const item of items) {
      this.#waiting.delete(item.d.xid);
      if (item.key === undefined) ready.push(item);
      else keyed.push(item);
    }
    if (keyed.length > 0 || last !== undefined) {
      const verdicts = await execute(this.#ctx.conn, this.#admission(keyed, last));
      keyed.forEach((item, i) => {
        const v = verdicts[i];
        if (v?.kind === 'head') ready.push(item);
        else if (v?.kind === 'wait') this.#waiting.set(item.d.xid, { item, after: v.after });
      });
    }
    await this.#rounds(ready);
  }

  /** Asks again about the entries that wait, and runs those whose turn came. */
  async recheck(): Promise<void> {
    if (this.#waiting.size === 0) return;
    const list = [...this.#waiting.values()];
    const verdicts = await execute(this.#ctx.conn, this.#admission(list.map((w) => w.item)));
    const ready: Item[] = [];
    list.forEach((w, i) => {
      const v = verdicts[i];
      if (v?.kind === 'wait') w.after = v.after;
      else {
        this.#waiting.delete(w.item.d.xid);
        if (v?.kind === 'head') ready.push(w.item);
      }
    });
    await this.#rounds(ready);
  }

  #admission(items: readonly Item[], last?: string): ReturnType<typeof transitions.streamOrderAdmit> {
    const entries = items.map((item) => ({ xid: item.d.xid, key: item.key ?? '' }));
    return transitions.streamOrderAdmit({ queue: this.#ctx.queue, stream: this.#ctx.name, ...this.#member, entries, ...(last === undefined ? {} : { last }) });
  }

  async #rounds(ready: readonly Item[]): Promise<void> {
    let round = ready;
    while (round.length > 0 && !this.#stopping()) {
      const outcomes = await this.#run(round);
      const done = new Set<string>();
      round.forEach((item, i) => {
        const kind = outcomes[i]?.kind;
        if (kind === 'ack' || kind === 'dead') done.add(item.d.xid);
      });
      const next: Item[] = [];
      for (const [xid, w] of this.#waiting) {
        if (done.has(w.after)) {
          this.#waiting.delete(xid);
          next.push(w.item);
        }
      }
      round = next;
    }
  }
}
