/**
 * The names a user of the published API meets, read from the API reports
 * (`packages/<pkg>/api/<entry>.api.md`, written by `scripts/api-report.ts`) at the time the check
 * runs, so a rename or a removal elsewhere is seen the moment its report is updated:
 *
 * - verbs: exported functions, and the methods of exported classes and interfaces (static ones too);
 * - options: the properties of exported interfaces whose name ends in `Options`, `Spec` or `Opts`
 *   (what a call takes), and the members of exported object types of the same names.
 *
 * Types, errors, constants and the properties of answers (what a call returns) are not names a reader
 * looks for in a guide; the API reference lists them.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** One name of the public surface. */
export interface ApiName {
  /** The report it comes from, without `.api.md`: `queue`, `cache-tables`, `queue-internal`. */
  readonly report: string;
  /** `verb` or `option`. */
  readonly kind: 'verb' | 'option';
  /** The word a guide must name: `enqueue`, `negativeTtl`, `queueAclRules`. */
  readonly name: string;
  /** Where it lives: `Queue.enqueue`, `NamespaceOptions.negativeTtl`, `queueAclRules`. */
  readonly qualified: string;
}

/** Every API report in the repository: `[report name, path]`. */
export function reports(root: string): [string, string][] {
  const out: [string, string][] = [];
  for (const pkg of readdirSync(join(root, 'packages')).sort()) {
    const dir = join(root, 'packages', pkg, 'api');
    if (!existsSync(dir)) continue;
    for (const f of readdirSync(dir).sort()) if (f.endsWith('.api.md')) out.push([f.slice(0, -'.api.md'.length), join(dir, f)]);
  }
  return out;
}

const OPTION_HOLDER = /(Options|Spec|Opts)$/;
const MEMBER = /^ {4}(?:static |readonly |abstract |protected )*(get |set )?([A-Za-z_$][\w$]*)(\?)?(<[^(]*>)?(\()?/;

/** The names one report declares (see the module comment for what counts). */
export function namesOf(report: string, text: string): ApiName[] {
  const out: ApiName[] = [];
  const add = (kind: ApiName['kind'], name: string, qualified: string): void => {
    if (!out.some((n) => n.qualified === qualified && n.kind === kind)) out.push({ report, kind, name, qualified });
  };
  let owner: { name: string; options: boolean } | undefined;
  for (const line of text.split('\n')) {
    const fn = /^export (?:declare )?function ([A-Za-z_$][\w$]*)/.exec(line);
    if (fn?.[1] !== undefined) {
      add('verb', fn[1], fn[1]);
      continue;
    }
    const decl = /^export (?:declare )?(?:abstract )?(class|interface|type) ([A-Za-z_$][\w$]*)/.exec(line);
    if (decl?.[1] !== undefined && decl[2] !== undefined) {
      const opens = line.trimEnd().endsWith('{');
      owner = opens ? { name: decl[2], options: OPTION_HOLDER.test(decl[2]) } : undefined;
      continue;
    }
    if (line.startsWith('}')) {
      owner = undefined;
      continue;
    }
    if (owner === undefined || line.trimStart().startsWith('//')) continue;
    const m = MEMBER.exec(line);
    if (m?.[2] === undefined || m[2] === 'constructor') continue;
    const name = m[2];
    const isMethod = m[5] === '(' && m[1] === undefined;
    if (isMethod && !owner.options) add('verb', name, `${owner.name}.${name}`);
    else if (owner.options) add('option', name, `${owner.name}.${name}`);
  }
  return out;
}

/** Every name of every report. */
export function apiNames(root: string): ApiName[] {
  return reports(root).flatMap(([report, path]) => namesOf(report, readFileSync(path, 'utf8')));
}
