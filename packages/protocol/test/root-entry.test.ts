import { readFileSync } from 'node:fs';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../src/index.ts', import.meta.url);

/**
 * Every name an entry file exports, types included, read from its syntax: the entry files re-export
 * by name, so a bare `export *` (whose names only a whole program could count) is refused here.
 */
function exportedNames(text: string): string[] {
  const source = ts.createSourceFile('index.ts', text, ts.ScriptTarget.ES2022, false, ts.ScriptKind.TS);
  const names: string[] = [];
  for (const statement of source.statements) {
    if (ts.isExportDeclaration(statement)) {
      const clause = statement.exportClause;
      if (clause === undefined) throw new Error(`a bare export * hides what the entry exports: ${statement.getText(source)}`);
      if (ts.isNamespaceExport(clause)) names.push(clause.name.text);
      else names.push(...clause.elements.map((element) => element.name.text));
    } else if (ts.canHaveModifiers(statement) && ts.getModifiers(statement)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) {
      const named = statement as ts.Statement & { name?: ts.Identifier };
      if (ts.isVariableStatement(statement)) names.push(...statement.declarationList.declarations.map((d) => d.name.getText(source)));
      else if (named.name !== undefined) names.push(named.name.text);
    }
  }
  return names.sort();
}

describe('the root entry point, @echo/protocol', () => {
  const names = exportedNames(readFileSync(ROOT, 'utf8'));

  it('is a front door for applications: at most 60 names, types included', () => {
    // The pillars' contracts sit behind @echo/protocol/queue|bus|cache and the machinery behind
    // /extend (the API report, api/protocol.api.md, lists the same names).
    expect(names.length, names.join(', ')).toBeLessThanOrEqual(60);
    expect(names).toContain('Connection');
    // The library authors' machinery stays off the root.
    for (const internal of ['bind', 'claimOrVerify', 'deferred', 'hashReply']) expect(names).not.toContain(internal);
  });

  it('counts every form an entry file exports by, and refuses a bare export *', () => {
    const text = ["export { A, B as C } from './a.js';", "export type { D } from './d.js';", "export * as ns from './n.js';", 'export const e = 1, f = 2;', 'export function g(): void {}', 'export interface H {}'].join('\n');
    expect(exportedNames(text)).toEqual(['A', 'C', 'D', 'H', 'e', 'f', 'g', 'ns']);
    expect(() => exportedNames("export * from './x.js';")).toThrow('bare export *');
  });
});
