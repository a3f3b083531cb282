import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { argPrelude, keyPrelude, namedKeys } from '../src/scripts/source.js';
import { checkKeyLaw, defineScript, LUA_DIR_FOR_TESTS, SCRIPT_NAMES, scripts, sha1, strictVariant } from './support.js';

const files = readdirSync(LUA_DIR_FOR_TESTS)
  .filter((f) => f.endsWith('.lua'))
  .map((f) => f.replace(/\.lua$/, ''))
  .sort();
const LIB_DIR = new URL('lib/', LUA_DIR_FOR_TESTS);
const libs = readdirSync(LIB_DIR).filter((f) => f.endsWith('.lua')).sort();

describe('script catalog', () => {
  it('lists exactly the .lua files of the folder', () => {
    expect([...SCRIPT_NAMES].sort()).toEqual(files);
  });

  it.each(SCRIPT_NAMES.map((n) => [n]))('%s: header, includes and SHA agree with the file', (name) => {
    const script = scripts()[name];
    const file = readFileSync(new URL(`${name}.lua`, LUA_DIR_FOR_TESTS), 'utf8');
    expect(script.name).toBe(name);
    expect(script.body).toBe(file);
    expect(script.source.endsWith(file)).toBe(true);
    expect(script.sha).toBe(sha1(script.source));
    expect(script.sha).toMatch(/^[0-9a-f]{40}$/);
    expect(script.header.purpose.length).toBeGreaterThan(10);
    expect(script.header.returns.length).toBeGreaterThan(0);
    // Every KEYS[i] the body reads is declared, unless the header admits trailing keys.
    const highest = Math.max(0, ...[...file.matchAll(/KEYS\[(\d+)\]/g)].map((m) => Number(m[1])));
    if (script.header.restKeys === undefined) expect(highest).toBeLessThanOrEqual(script.header.keys.length);
    const highestArg = Math.max(0, ...[...file.matchAll(/ARGV\[(\d+)\]/g)].map((m) => Number(m[1])));
    if (script.header.restArgs === undefined) expect(highestArg).toBeLessThanOrEqual(script.header.args.length);
    // Every error class the body emits is listed in the header.
    for (const m of file.matchAll(/error_reply\('(EMQ[A-Z]+ [^']+)'\)/g)) {
      expect(script.header.errors).toContain(m[1]);
    }
  });

  it.each(SCRIPT_NAMES.map((n) => [n]))('%s: the body names its declared keys instead of indexing KEYS', (name) => {
    const script = scripts()[name];
    const code = script.body.split('\n').filter((line) => !line.trim().startsWith('--'));
    const named = new Set(namedKeys(script.header).map((k) => k.index));
    const indexed = code.flatMap((line) => [...line.matchAll(/KEYS\[(\d+)\]/g)].map((m) => Number(m[1])));
    expect(indexed.filter((i) => named.has(i))).toEqual([]);
    // Every name the body binds is bound by the prelude, and only those.
    const prelude = keyPrelude(script.header, script.body);
    for (const [local] of script.body.matchAll(/\bk_\w+/g)) expect(prelude).toMatch(new RegExp(`\\b${local}\\b`));
  });

  it.each(SCRIPT_NAMES.map((n) => [n]))('%s: the body reads no KEYS or ARGV at a written position, and no lane keys by index', (name) => {
    const script = scripts()[name];
    const code = script.body
      .split('\n')
      .filter((line) => !line.trim().startsWith('--'))
      .join('\n');
    // The header is the one place the order lives: a position written in the body would be a second.
    expect(code.match(/\b(KEYS|ARGV)\[\d+\]/g) ?? []).toEqual([]);
    expect(code).not.toMatch(/\blb_at\(/);
    // Every argument name the body uses is bound by the prelude, from the header.
    const prelude = argPrelude(script.header, script.body);
    for (const [local] of script.body.matchAll(/\ba_\w+/g)) expect(prelude).toMatch(new RegExp(`\\b${local}\\b`));
  });

  it.each(libs.map((f) => [f]))('lib/%s: reads no KEYS or ARGV at a written position, and no lane keys by index', (file) => {
    // A library runs inside the scripts that include it: a position written here would tie it to
    // one script's header order, a second place the order lives. Keys come in as arguments.
    const code = readFileSync(new URL(file, LIB_DIR), 'utf8')
      .split('\n')
      .filter((line) => !line.trim().startsWith('--'))
      .join('\n');
    expect(code.match(/\b(KEYS|ARGV)\[\d+\]/g) ?? []).toEqual([]);
    expect(code).not.toMatch(/\blb_at\(/);
  });

  it.each(SCRIPT_NAMES.map((n) => [n]))('%s: obeys the declared-keys law (static read)', (name) => {
    const script = scripts()[name];
    expect(checkKeyLaw(script, script.body)).toEqual([]);
  });

  it('the static check catches a key built from ARGV and a concatenated declared key', () => {
    const rogue = defineScript({
      origin: 'rogue',
      source: [
        '-- @script rogue',
        '-- @purpose Breaks the key law on purpose.',
        '-- @key row emq:{q}:job:<id>',
        '-- @arg name anything',
        '-- @returns nothing',
        "redis.call('GET', 'emq:{q}:' .. ARGV[1])",
        "redis.call('DEL', KEYS[1] .. ':logs')",
        "redis.call('DEL', k_row .. ':logs')",
        "local alias = k_row .. ':x'",
        "redis.call('GET', alias)",
        "redis.call('EVAL', 'return 1', 0)",
      ].join('\n'),
    });
    const found = checkKeyLaw(rogue, rogue.body).map((v) => v.message);
    expect(found.some((m) => m.includes('of get is neither declared nor rooted'))).toBe(true);
    expect(found.filter((m) => m.includes('a declared key is concatenated'))).toHaveLength(3);
    expect(found.some((m) => m.includes('key argument alias of get is neither declared nor rooted'))).toBe(true);
    expect(found.some((m) => m.includes('command eval is not in the key-position table'))).toBe(true);
  });

  it('the strict twin routes every call through the checker and has its own SHA', () => {
    const script = scripts().complete;
    const strict = strictVariant(script);
    expect(strict.sha).not.toBe(script.sha);
    expect(strict.source).not.toMatch(/\bredis\.call\((?!cmd)/);
    expect(strictVariant(script)).toBe(strict);
  });
});
