import { createHash } from 'node:crypto';
import { hostname } from 'node:os';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type * as Validation from '../errors/validation.js';
import { decodeId } from './codec.js';
import type * as DefaultMinter from './default-minter.js';
import { snowflakeParts } from './snowflake.js';

type Fresh = typeof DefaultMinter & typeof Validation;

/**
 * Each test gets fresh modules so the process-wide minter starts unset; the error classes come from
 * the same fresh graph, or `instanceof` would compare against a stale copy.
 */
async function freshModule(): Promise<Fresh> {
  vi.resetModules();
  return { ...(await import('./default-minter.js')), ...(await import('../errors/validation.js')) };
}

function nodeOf(id: string): number {
  return snowflakeParts(decodeId(id).snowflake).node;
}

beforeEach(() => {
  vi.stubEnv('ECHO_NODE_ID', undefined);
});

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('mintId and the default node', () => {
  it('derives the node from host name and pid when nothing is configured', async () => {
    const { defaultNodeId, mintId } = await freshModule();
    const expected = createHash('sha256').update(`${hostname()}\0${process.pid}`).digest().readUInt16BE(0) % 1024;
    expect(defaultNodeId()).toBe(expected);
    expect(nodeOf(mintId('JOB'))).toBe(expected);
  });

  it('treats an empty ECHO_NODE_ID as unset', async () => {
    vi.stubEnv('ECHO_NODE_ID', '');
    const { defaultNodeId } = await freshModule();
    expect(defaultNodeId()).toBeGreaterThanOrEqual(0);
    expect(defaultNodeId()).toBeLessThan(1024);
  });

  it('reads ECHO_NODE_ID', async () => {
    vi.stubEnv('ECHO_NODE_ID', '42');
    const { defaultNodeId, mintId } = await freshModule();
    expect(defaultNodeId()).toBe(42);
    expect(nodeOf(mintId('JOB'))).toBe(42);
  });

  it.each(['1024', '-1', '1.5', 'abc', ' 7', '0x10', '99999'])('refuses ECHO_NODE_ID=%j', async (raw) => {
    vi.stubEnv('ECHO_NODE_ID', raw);
    const { InvalidArgumentError, defaultNodeId, mintId } = await freshModule();
    expect(() => defaultNodeId()).toThrow(InvalidArgumentError);
    expect(() => mintId('JOB')).toThrow(/ECHO_NODE_ID/);
  });

  it('prefers configureIds over ECHO_NODE_ID', async () => {
    vi.stubEnv('ECHO_NODE_ID', '42');
    const { configureIds, defaultNodeId, mintId } = await freshModule();
    configureIds({ node: 7 });
    expect(defaultNodeId()).toBe(7);
    expect(nodeOf(mintId('EVT'))).toBe(7);
  });

  it('keeps ids increasing when the node is reconfigured after minting', async () => {
    const { configureIds, mintId } = await freshModule();
    configureIds({ node: 1000 });
    const before = mintId('JOB');
    configureIds({ node: 0 });
    const after = mintId('JOB');
    expect(before < after).toBe(true);
    expect(nodeOf(after)).toBe(0);
  });

  it('refuses an invalid configured node', async () => {
    const { InvalidArgumentError, configureIds } = await freshModule();
    expect(() => configureIds({ node: 1024 })).toThrow(InvalidArgumentError);
    expect(() => configureIds({ node: -1 })).toThrow(InvalidArgumentError);
  });

  it('mints strictly increasing ids process-wide', async () => {
    const { mintId } = await freshModule();
    const ids = Array.from({ length: 2000 }, () => mintId('JOB'));
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
