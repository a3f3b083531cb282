import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { startRedis, type RedisServer } from '@echo/testkit';

const root = fileURLToPath(new URL('../..', import.meta.url));
const cleanups: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

describe('pnpm local-install (before the first publish)', () => {
  it('packs @echo/queue with the protocol it needs, installs both into an app outside the workspace, and the app runs', async () => {
    const app = mkdtempSync(join(tmpdir(), 'echo-local-install-'));
    cleanups.push(() => rmSync(app, { recursive: true, force: true }));
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'shop', private: true, type: 'module' }));
    const printed = execFileSync('pnpm', ['--silent', 'local-install', app, 'queue'], { cwd: root, encoding: 'utf8' });
    expect(printed).toContain('2 packages installed');

    const manifest = JSON.parse(readFileSync(join(app, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    expect(Object.keys(manifest.dependencies).sort()).toEqual(['@echo/protocol', '@echo/queue']);
    expect(manifest.dependencies['@echo/queue']).toMatch(/^file:vendor\/echo\/echo-queue-.*\.tgz$/);
    expect(existsSync(join(app, 'node_modules/@echo/bus'))).toBe(false);

    const server: RedisServer = await startRedis();
    cleanups.push(() => server.stop());
    writeFileSync(
      join(app, 'main.js'),
      [
        "import { Queue } from '@echo/queue';",
        "const q = await Queue.open('orders', { connect: process.env.REDIS_URL });",
        "await q.enqueue({ sku: 'A1' });",
        "console.log('pending', (await q.counts('pending')).pending);",
        'await q.close();',
      ].join('\n'),
    );
    const out = execFileSync(process.execPath, ['main.js'], { cwd: app, encoding: 'utf8', env: { ...process.env, REDIS_URL: server.url } });
    expect(out.trim()).toBe('pending 1');
    // A bound on a hung install, not a speed check: at load 16 (a fault run and helpers' builds
    // beside `pnpm test`) pack, build check and `npm install` took 282 s; quiet they take 10-15 s.
  }, 600_000);

  it('refuses a package that does not exist, naming the known ones', () => {
    const app = mkdtempSync(join(tmpdir(), 'echo-local-install-'));
    cleanups.push(() => rmSync(app, { recursive: true, force: true }));
    writeFileSync(join(app, 'package.json'), '{"name":"x"}');
    let stderr = '';
    try {
      execFileSync('pnpm', ['--silent', 'local-install', app, 'queu'], { cwd: root, encoding: 'utf8', stdio: 'pipe' });
    } catch (error) {
      stderr = (error as { stderr: string }).stderr;
    }
    expect(stderr).toContain('no published package @echo/queu (known: bullmq, bus, cache, cli, conformance, dashboard, otel, protocol, queue, testkit)');
    expect(existsSync(join(app, 'vendor'))).toBe(false);
  });
});
