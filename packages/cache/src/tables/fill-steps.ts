import { type BrandedId, cacheKey, mintId, reads, writes } from '@echo/protocol/cache';
import type { FillSteps, FlightCounters, LeaseLoaded } from '../core/get-or-set.js';
import { decodeFrame, encodeFrame } from './frame.js';
import type { Flight, Flights } from '../core/single-flight.js';
import { Versioned } from './versioned.js';
import type { Fetched } from './fetched.js';
import type { TableTiers } from './tiers.js';

/** One write of a row: the value and the version it is written at. */
export interface RowWrite<T> {
  readonly value: T;
  readonly version: BrandedId;
}

/**
 * A declared table's fill steps for the one get-or-set handler, as cache.md §3-§5 specify them: the
 * lease-load is a plain `GET` of the versioned frame (no lease: a table's herd is coalesced per
 * process only), the factory-run calls the spec's loader, and the write-entry is `SET … PX ttlMs`
 * followed by L1. A fetch takes no arguments (the loader is declared), and the read step hands the
 * load step the version minted when the fill started, which a loader's bare value is cached under.
 */
export class TableSteps<T, K extends string> implements FillSteps<BrandedId<K>, undefined, Fetched<T>, BrandedId, RowWrite<T>> {
  readonly #t: TableTiers<T, K>;

  constructor(tiers: TableTiers<T, K>) {
    this.#t = tiers;
  }

  get counters(): FlightCounters {
    return this.#t.counters;
  }

  get flights(): Flights<Fetched<T>> {
    return this.#t.flights;
  }

  missed(): void {
    // A table reports misses through its counters only (cache.md §8).
  }

  joined(running: Promise<Fetched<T>>): Promise<Fetched<T>> {
    return running;
  }

  /** `GET ecc:{<name>}:<id>`: a frame answers `l2` (and goes into L1); none sends the fill to the loader. */
  async leaseLoad(id: BrandedId<K>, _args: undefined, flight: Flight): Promise<LeaseLoaded<Fetched<T>, BrandedId>> {
    const t = this.#t;
    // Minted before anything is read: a write announced while this fill runs is newer than its answer.
    const minted = mintId(t.kind);
    const frame = await t.guard.call('get', () => reads.sendRead(t.connection, reads.cacheRowGet({ table: t.name, id })));
    if (frame === null) return { load: minted };
    const { version, bytes } = decodeFrame(cacheKey(t.name, id), frame);
    const fetched: Fetched<T> = { value: t.spec.codec.decode(bytes), source: 'l2', version };
    t.counters.l2Hits++;
    t.admitFilled(id, fetched, flight);
    return { answer: fetched };
  }

  /** Calls the spec's loader and writes its answer; a bare value is cached under `minted`. */
  async runFactory(id: BrandedId<K>, _args: undefined, minted: BrandedId, flight: Flight): Promise<Fetched<T>> {
    const loaded = await this.#t.spec.loader(id);
    const { value, version } = loaded instanceof Versioned ? loaded : { value: loaded, version: minted };
    await this.writeEntry(id, { value, version }, flight);
    return { value, source: 'fill', version };
  }

  /**
   * `SET ecc:{<name>}:<id> <frame> PX ttlMs`, then L1. A fill's row goes in by the fill's rules; a
   * plain write (a put) goes in as it is, after telling a running fill its version, so a fill that
   * read the older frame before this `SET` does not land on top of it.
   */
  async writeEntry(id: BrandedId<K>, { value, version }: RowWrite<T>, flight: Flight | null): Promise<void> {
    const t = this.#t;
    const frame = encodeFrame(version, t.encode(id, value));
    await writes.sendWrite(t.runtime.connection, writes.cacheRowSet({ table: t.name, id, frame, ttlMs: t.spec.ttlMs }));
    if (flight === null) {
      t.noteVersion(id, version);
      t.admit(id, value, version);
      return;
    }
    t.counters.fills++;
    t.admitFilled(id, { value, source: 'fill', version }, flight);
  }
}
