import { type BrandedId, assertBrandedId } from '@echo/protocol/cache';

/**
 * A loader's answer that carries its own version (cache.md §1), typically the source row's update
 * id. A class rather than a `{value, version}` literal, so that a cached value which happens to have
 * `value` and `version` fields is never mistaken for this wrapper.
 */
export class Versioned<T> {
  readonly value: T;
  readonly version: BrandedId;

  /** @throws MalformedIdError when `version` is not a branded id. */
  constructor(value: T, version: BrandedId) {
    assertBrandedId(version);
    this.value = value;
    this.version = version;
  }
}

/**
 * Wraps a loaded value with the version it should be cached under; a loader that returns a bare
 * value gets the version minted when its fill started.
 *
 * @throws MalformedIdError when `version` is not a branded id.
 */
export function versioned<T>(value: T, version: BrandedId): Versioned<T> {
  return new Versioned(value, version);
}
