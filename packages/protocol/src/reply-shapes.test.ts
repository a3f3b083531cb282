import { describe, expect, it } from 'vitest';
import { MalformedReplyError } from './errors/wire.js';
import { count, decimal, decimals, fieldsOf, flag, integer, list, optionalText, text, texts, tuple } from './reply-shapes.js';

// Pure: the checks are fed replies, no server. What a caller sees of a refusal is the error's class,
// the command it names, and the message, which names the part read when the parser named it.
function refusal(check: () => unknown): MalformedReplyError {
  try {
    check();
  } catch (error) {
    expect(error).toBeInstanceOf(MalformedReplyError);
    return error as MalformedReplyError;
  }
  throw new Error('accepted');
}

describe('reply-shape checks', () => {
  it('read the shapes they name, strings and Buffers alike', () => {
    expect(text('GET', Buffer.from('é'))).toBe('é');
    expect(optionalText('GET', null)).toBeUndefined();
    expect(integer('PTTL', -2)).toBe(-2);
    expect(decimal('EVALSHA claim', '-12')).toBe(-12);
    expect(count('XINFO GROUPS', '3')).toBe(3);
    expect(flag('EXISTS', 1)).toBe(true);
    expect(texts('LRANGE', ['a', Buffer.from('b')])).toEqual(['a', 'b']);
    expect(decimals('EVALSHA counts', [1, '2'])).toEqual([1, 2]);
    expect(tuple('EVALSHA claim', [1, 2, 3], [1, 2, 3], 2)).toEqual([1, 2, 3]);
  });

  it('name the command and the whole reply, and the part only when the parser names it', () => {
    const whole = ['x', 7];
    const unnamed = refusal(() => text('HMGET', whole, whole[1]));
    expect(unnamed.command).toBe('HMGET');
    expect(unnamed.message).toBe('malformed HMGET reply (not a string): ["x",7]');
    expect(refusal(() => text('EVALSHA claim', whole, whole[1], 'the payload')).message).toBe('malformed EVALSHA claim reply (the payload is not a string): ["x",7]');
    expect(refusal(() => texts('EVALSHA recover', whole, whole, 'the dead')).message).toContain('(the dead[1] is not a string)');
    expect(refusal(() => texts('LRANGE', whole)).message).toContain('(not a string)');
    expect(refusal(() => tuple('EVALSHA claim', whole, whole, 6, 'a claim entry')).message).toContain('(a claim entry is not a list of 6 or more)');
    expect(refusal(() => count('XACK', -1)).message).toContain('(a count is not a non-negative integer)');
    expect(refusal(() => list('SCAN', 'OK')).message).toContain('(not a list)');
  });

  it('refuse what is near the shape but not it', () => {
    for (const bad of ['1', 1.5, null]) refusal(() => integer('ZCARD', bad));
    for (const bad of ['1.5', '', ' 1', 'x']) refusal(() => decimal('EVALSHA claim', bad));
    for (const bad of [2, '1', true]) refusal(() => flag('EXISTS', bad));
    for (const bad of [['f'], [1, 'v'], 'OK', null]) refusal(() => fieldsOf('HGETALL', bad));
  });
});
