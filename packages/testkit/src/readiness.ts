import { connect } from 'node:net';

/**
 * What a single readiness probe saw: `ready` (with the answering server's pid when it could be
 * read), `loading` (up, still replaying its AOF), or `unreachable`.
 */
export type ProbeResult = { readonly state: 'ready'; readonly pid: number | undefined } | { readonly state: 'loading' | 'unreachable' };

function encode(args: readonly string[]): string {
  return `*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join('')}`;
}

/**
 * Splits complete RESP2 replies off the front of `buffer` (only the simple, error, integer and
 * bulk types that AUTH, INFO and PING produce). Bytes are latin1 so string length equals byte length.
 */
function parseReplies(buffer: string): string[] {
  const replies: string[] = [];
  let at = 0;
  while (at < buffer.length) {
    const eol = buffer.indexOf('\r\n', at);
    if (eol === -1) break;
    const header = buffer.slice(at, eol);
    if (header.startsWith('$')) {
      const length = Number(header.slice(1));
      if (length < 0) {
        replies.push('');
        at = eol + 2;
        continue;
      }
      const end = eol + 2 + length;
      if (buffer.length < end + 2) break;
      replies.push(buffer.slice(eol + 2, end));
      at = end + 2;
    } else {
      replies.push(header);
      at = eol + 2;
    }
  }
  return replies;
}

/**
 * One readiness check over a raw socket: `[AUTH]`, `INFO server`, `PING`. A raw socket rather than
 * an ioredis client gives exactly one attempt with no reconnect loop, offline queue or "Unhandled
 * error event" noise while the server is still coming up.
 *
 * `INFO server` reports the answering process's pid, which lets the caller tell its own server from
 * another one that grabbed the port first. `PING` is what detects AOF replay (`-LOADING`); INFO is
 * allowed while loading and cannot. A `-NOAUTH` (default user locked by extra args, no password
 * known here) still proves the server accepts commands, just without a pid.
 */
export function probe(host: string, port: number, password: string | undefined, timeoutMs = 1_000): Promise<ProbeResult> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const commands = [...(password === undefined ? [] : [['AUTH', password]]), ['INFO', 'server'], ['PING']];
    let buffered = '';
    let settled = false;
    const finish = (result: ProbeResult): void => {
      if (settled) return;
      settled = true;
      socket.destroy();
      resolve(result);
    };
    socket.setTimeout(timeoutMs, () => finish({ state: 'unreachable' }));
    socket.once('error', () => finish({ state: 'unreachable' }));
    socket.once('close', () => finish({ state: 'unreachable' }));
    socket.once('connect', () => socket.write(commands.map(encode).join('')));
    socket.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('latin1');
      const replies = parseReplies(buffered);
      if (replies.length < commands.length) return;
      const info = replies[commands.length - 2] ?? '';
      const ping = replies[commands.length - 1] ?? '';
      if (ping.startsWith('-LOADING')) {
        finish({ state: 'loading' });
        return;
      }
      const pid = /^process_id:(\d+)\r?$/m.exec(info)?.[1];
      finish({ state: 'ready', pid: pid === undefined ? undefined : Number(pid) });
    });
  });
}
