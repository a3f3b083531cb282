import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../errors/validation.js';
import { checkConnectionChoice } from './connection.js';
import { UnknownOptionError } from './strict.js';

describe('connection / connect', () => {
  const fake = { command: () => 0, run: () => 0, duplicate: () => 0, close: () => 0 };

  it('admits either one, or neither', () => {
    expect(() => checkConnectionChoice('Bus.open options', {})).not.toThrow();
    expect(() => checkConnectionChoice('Bus.open options', { connection: fake })).not.toThrow();
    expect(() => checkConnectionChoice('Bus.open options', { connect: 'redis://x' })).not.toThrow();
  });

  it('refuses driver options under connection, with the hint to use connect', () => {
    expect(() => checkConnectionChoice('Bus.open options', { connection: { host: 'h', port: 1 } })).toThrow(UnknownOptionError);
    expect(() => checkConnectionChoice('Bus.open options', { connection: 'redis://x' })).toThrow("BullMQ's connection: { host, port }) as connect");
  });

  it('refuses both at once', () => {
    expect(() => checkConnectionChoice('Cache.open options', { connection: fake, connect: 'redis://x' })).toThrow(InvalidArgumentError);
    expect(() => checkConnectionChoice('Cache.open options', { connection: fake, connect: 'redis://x' })).toThrow('not both');
  });
});
