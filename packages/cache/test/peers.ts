import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const fixture = fileURLToPath(new URL('./fixtures/keyed-peer.ts', import.meta.url));
const packageRoot = fileURLToPath(new URL('..', import.meta.url));

/** A keyed-namespace user in its own OS process (see fixtures/keyed-peer.ts). */
export interface Peer {
  readonly child: ChildProcessWithoutNullStreams;
  readonly ready: Promise<void>;
  /** Sends one command and resolves with its answer line. */
  ask<R = Record<string, unknown>>(command: Record<string, unknown>): Promise<R>;
  kill(): Promise<void>;
}

/** Starts a peer process on namespace `ns` of the server at `url`. */
export function spawnPeer(url: string, ns: string, env: Readonly<Record<string, string>> = {}): Peer {
  const child = spawn(process.execPath, ['--conditions=@echo/source', '--import', 'tsx', fixture], {
    cwd: packageRoot,
    env: { ...process.env, PEER_URL: url, PEER_NS: ns, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  child.stdin.on('error', () => undefined);
  let err = '';
  child.stderr.on('data', (chunk: Buffer) => (err = (err + chunk.toString()).slice(-4000)));
  const exit = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const pending = new Map<number, (body: Record<string, unknown>) => void>();
  let nextId = 1;
  let buffered = '';
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      let nl: number;
      while ((nl = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        if (line.startsWith('ready ')) resolve();
        else if (line.startsWith('{')) {
          const body = JSON.parse(line) as Record<string, unknown>;
          pending.get(Number(body.id))?.(body);
          pending.delete(Number(body.id));
        }
      }
    });
    void exit.then(() => reject(new Error(`peer ${String(child.pid)} exited:\n${err}`)));
  });
  ready.catch(() => undefined);
  return {
    child,
    ready,
    ask: <R>(command: Record<string, unknown>) =>
      new Promise<R>((resolve) => {
        const id = nextId++;
        pending.set(id, (body) => resolve(body as R));
        child.stdin.write(`${JSON.stringify({ ...command, id })}\n`);
      }),
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exit;
    },
  };
}
