import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const PACKAGES = fileURLToPath(new URL('../../', import.meta.url));

interface Manifest {
  readonly name: string;
  readonly dependencies?: Readonly<Record<string, string>>;
  readonly peerDependencies?: Readonly<Record<string, string>>;
}

function manifest(dir: string): Manifest {
  return JSON.parse(readFileSync(`${PACKAGES}${dir}/package.json`, 'utf8')) as Manifest;
}

/** Everything a package pulls in at run time, following our own packages through their manifests. */
function closure(dir: string, seen = new Set<string>()): Set<string> {
  const m = manifest(dir);
  for (const dep of Object.keys({ ...m.dependencies, ...m.peerDependencies })) {
    if (seen.has(dep)) continue;
    seen.add(dep);
    if (dep.startsWith('@echo/')) closure(dep.slice('@echo/'.length), seen);
  }
  return seen;
}

describe('package graph', () => {
  it('an app that installs only @echo/queue (or the bus, or the cache) pulls in no tool', () => {
    const tools = ['@echo/cli', '@echo/dashboard', '@echo/otel', '@opentelemetry/api', 'prom-client', 'hono', '@hono/node-server', 'cac', 'playwright-core'];
    for (const pillar of ['queue', 'bus', 'cache']) {
      expect([...closure(pillar)].filter((dep) => tools.includes(dep))).toEqual([]);
    }
    // croner reads cron patterns for the queue's job schedulers; nothing else comes along but
    // ioredis and the types its own declarations import (@types/redis-errors, see @echo/protocol).
    expect([...closure('queue')].sort()).toEqual(['@echo/protocol', '@types/redis-errors', 'croner', 'ioredis']);
  });

  it('OpenTelemetry comes only with @echo/otel, which needs no pillar', () => {
    expect([...closure('otel')].sort()).toEqual(['@echo/protocol', '@opentelemetry/api', '@types/redis-errors', 'ioredis']);
  });

  it('the dashboard needs no CLI, and the CLI brings the dashboard for `emq dashboard`', () => {
    expect(closure('dashboard').has('@echo/cli')).toBe(false);
    expect(closure('cli').has('@echo/dashboard')).toBe(true);
  });
});
