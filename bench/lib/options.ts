/**
 * Bench sizes come from the command line (`--jobs=2000` or `--jobs 2000`) or the environment
 * (`JOBS=2000`); the command line wins. Names are kebab-case on the command line and
 * SCREAMING_SNAKE in the environment: `--warmup-jobs` / `WARMUP_JOBS`.
 */
function rawOption(name: string): string | undefined {
  const flag = `--${name}`;
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg.startsWith(`${flag}=`)) return arg.slice(flag.length + 1);
    // A bare flag (`--quick`, then nothing or another flag) is a yes.
    if (arg === flag) return argv[i + 1] === undefined || argv[i + 1]?.startsWith('--') ? 'true' : argv[i + 1];
  }
  return process.env[name.toUpperCase().replace(/-/g, '_')];
}

/** A whole-number option of at least `min`; a bad value stops the bench before anything starts. */
export function intOption(name: string, fallback: number, min = 1): number {
  const raw = rawOption(name);
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < min) throw new Error(`--${name} must be an integer >= ${min}, got ${JSON.stringify(raw)}`);
  return value;
}

/** A yes/no option: 1/true/yes or 0/false/no. */
export function boolOption(name: string, fallback: boolean): boolean {
  const raw = rawOption(name)?.toLowerCase();
  if (raw === undefined || raw === '') return fallback;
  if (['1', 'true', 'yes'].includes(raw)) return true;
  if (['0', 'false', 'no'].includes(raw)) return false;
  throw new Error(`--${name} must be true or false, got ${JSON.stringify(raw)}`);
}

/** Free text (a filter, a name); empty when not given. */
export function textOption(name: string): string {
  return rawOption(name) ?? '';
}

/** One of `choices`; a bad value stops the bench before anything starts. */
export function stringOption<C extends string>(name: string, fallback: C, choices: readonly C[] = [fallback]): C {
  const raw = rawOption(name);
  if (raw === undefined || raw === '') return fallback;
  if (!(choices as readonly string[]).includes(raw)) throw new Error(`--${name} must be one of ${choices.join(', ')}, got ${JSON.stringify(raw)}`);
  return raw as C;
}
