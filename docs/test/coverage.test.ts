import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { checkCoverage, describe as describeReport, readAllowlist } from '../scripts/api-coverage/check.js';
import { apiNames, namesOf } from '../scripts/api-coverage/names.js';

const root = resolve(fileURLToPath(new URL('../..', import.meta.url)));

// A report as API Extractor writes it, shrunk: what the parser must read.
const REPORT = [
  '// @public',
  'export class Widget {',
  '    close(): Promise<void>;',
  '    static open(options?: WidgetOptions): Promise<Widget>;',
  '    readonly name: string;',
  '    get size(): number;',
  '    frobnicate<T>(x: T): T;',
  '}',
  '',
  '// @public',
  'export interface WidgetOptions {',
  '    // (undocumented)',
  '    readonly spinUpMs?: number;',
  '    readonly onError?: (error: unknown) => void;',
  '}',
  '',
  '// @public',
  'export function widgetAclRules(names: readonly string[]): string[];',
  '',
  '// @public',
  'export interface WidgetStats {',
  '    readonly hits: number;',
  '}',
].join('\n');

describe('docs coverage of the published API', () => {
  it('every verb and option name of the API reports is named in a guide page or allowlisted with a reason', () => {
    const names = apiNames(root);
    // The reports are read now, so a rename elsewhere (an option, a removed function) is seen at once.
    expect(names.length).toBeGreaterThan(500);
    const report = checkCoverage(root, names);
    // Stale or redundant allowlist entries are reported, not failed: other branches rename names.
    for (const line of describeReport(report, root).slice(1)) if (!line.includes('undocumented')) console.warn(line);
    expect(report.undocumented.map((n) => `${n.report}:${n.qualified}`)).toEqual([]);
  });

  it('reads verbs (methods, static ones, functions) and options (members of *Options) from a report, not properties or answers', () => {
    const names = namesOf('widget', REPORT).map((n) => `${n.kind} ${n.qualified}`);
    expect(names).toEqual([
      'verb Widget.close',
      'verb Widget.open',
      'verb Widget.frobnicate',
      'option WidgetOptions.spinUpMs',
      'option WidgetOptions.onError',
      'verb widgetAclRules',
    ]);
  });

  it('fails on a name no guide names (a renamed option: spinUp is not spinUpMs), and an allowlist entry with a reason covers it', () => {
    const names = namesOf('widget', REPORT);
    const none = checkCoverage(root, names, {});
    // `close`, `open`, `onError` are words the guides use; the others are not.
    expect(none.undocumented.map((n) => n.qualified)).toEqual(['Widget.frobnicate', 'WidgetOptions.spinUpMs', 'widgetAclRules']);
    const allowed = checkCoverage(root, names, { 'widget:Widget.*': 'a planted type', 'widget:WidgetOptions.spinUpMs': 'planted', 'widget:gone': 'a removed name' });
    expect(allowed.undocumented.map((n) => n.qualified)).toEqual(['widgetAclRules']);
    expect(allowed.stale).toEqual(['widget:gone']);
    expect(describeReport(allowed, root).join('\n')).toContain('undocumented verb widget:widgetAclRules (name `widgetAclRules` in a guide page');
  });

  it('refuses an allowlist entry without a reason', () => {
    expect(Object.keys(readAllowlist(root)).length).toBeGreaterThan(0);
    for (const reason of Object.values(readAllowlist(root))) expect(reason.split(/\s+/).length).toBeGreaterThanOrEqual(3);
  });
});
