import { describe, expect, it } from 'vitest';
import { mintId } from '../ids/default-minter.js';
import { parseOutcomesEntry } from './outcomes-entry.js';

describe('parseOutcomesEntry', () => {
  const id = mintId('JOB');
  it('reads a completion with and without a result; the current entries carry no token', () => {
    expect(parseOutcomesEntry(['job', id])).toEqual([{ job: id, token: undefined, result: undefined }]);
    expect(parseOutcomesEntry(['job', id, 'result', '{"n":1}'])).toEqual([{ job: id, token: undefined, result: '{"n":1}' }]);
  });
  it('skips a malformed entry', () => {
    expect(parseOutcomesEntry(['job'])).toEqual([]);
    expect(parseOutcomesEntry(['result', 'x'])).toEqual([]);
    expect(parseOutcomesEntry(['job', 'not an id'])).toEqual([]);
  });
});
