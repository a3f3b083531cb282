import { describe, expect, it } from 'vitest';
import { SCRIPT_NAMES } from '../../src/scripts/catalog.js';
import { SHAPED } from './shape.js';

describe('the wire-shape files', () => {
  it('write out every script of the catalog, and no other', () => {
    // Each file checks after its run that it wrote out exactly its list; together the lists are the catalog.
    const written = new Set(Object.values(SHAPED).flat());
    expect([...written].sort()).toEqual([...SCRIPT_NAMES].sort());
  });
});
