import { describe, expect, it } from 'vitest';
import * as root from '@echo/bus';
import * as wire from '@echo/bus/wire';

/** The exported values that are plain functions rather than classes. */
function freeFunctions(module: Record<string, unknown>): string[] {
  return Object.entries(module)
    .filter(([, value]) => typeof value === 'function' && !/^class\b/.test(Function.prototype.toString.call(value)))
    .map(([name]) => name)
    .sort();
}

describe('the public face', () => {
  it('exports classes, constants and types from the root, no free function', () => {
    expect(freeFunctions(root)).toEqual([]);
    expect(root.Stream).toBeTypeOf('function');
  });

  it('keeps the raw-id helpers under @echo/bus/wire, where they answer as before', () => {
    expect(freeFunctions(wire)).toEqual(['eventNameOf', 'maxidCeil', 'minidFloor', 'xaddId']);
    expect(wire.xaddId('EVT000004Zqs4W')).toBe('1704067201000-0');
    expect([wire.minidFloor(1704067201000), wire.maxidCeil(1704067201000)]).toEqual(['1704067201000-0', '1704067201000-4194303']);
    expect(wire.eventNameOf('{"event":"completed","job":"JOB000004Zqs4W"}')).toBe('completed');
  });
});
