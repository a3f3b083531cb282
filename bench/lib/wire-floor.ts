/**
 * The least a Node client can spend on the wire, for the cache bench's fill and set rows: no driver,
 * one socket write per tick for every command asked in it, and a reply reader for the four reply
 * types `GET`, `SET`, `AUTH` and `PING` answer (simple string, error, integer, bulk string). No
 * reconnect, timeouts, cluster or RESP3: it measures what is left of a row once a client does
 * nothing but send the commands, so a ratio to bentocache above its own is out of any client's reach.
 */
import { type Socket, connect } from 'node:net';

/** A reply: a simple or bulk string (bulk as UTF-8 text), an integer, or `null` for a missing bulk. */
export type WireReply = string | number | null;

interface Waiter {
  readonly resolve: (reply: WireReply) => void;
  readonly reject: (error: Error) => void;
}

const CR = 13;
const LF = 10;

/** One connection to one server; replies come back in the order the commands went out. */
export class WireFloor {
  readonly #socket: Socket;
  readonly #waiting: Waiter[] = [];
  #head = 0;
  #queued: string[] = [];
  #unread: Buffer | null = null;

  private constructor(socket: Socket) {
    this.#socket = socket;
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.#read(chunk));
    socket.on('error', (error) => this.#failAll(error));
    socket.on('close', () => this.#failAll(new Error('connection closed')));
  }

  /** Connects, and authenticates when the server has a password. */
  static async open(host: string, port: number, password?: string): Promise<WireFloor> {
    const socket = connect({ host, port });
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
    const wire = new WireFloor(socket);
    if (password !== undefined) await wire.call('AUTH', password);
    return wire;
  }

  /** Sends one command with the rest of this tick's, in one write. */
  call(...args: readonly (string | number)[]): Promise<WireReply> {
    let command = `*${String(args.length)}\r\n`;
    for (const arg of args) {
      const text = String(arg);
      command += `$${String(Buffer.byteLength(text))}\r\n${text}\r\n`;
    }
    if (this.#queued.push(command) === 1) queueMicrotask(() => this.#flush());
    return new Promise((resolve, reject) => this.#waiting.push({ resolve, reject }));
  }

  /** Ends the connection once the server has read what was sent. */
  async close(): Promise<void> {
    await new Promise<void>((resolve) => this.#socket.end(resolve));
  }

  #flush(): void {
    const queued = this.#queued;
    this.#queued = [];
    this.#socket.write(queued.length === 1 ? (queued[0] as string) : queued.join(''));
  }

  #next(): Waiter {
    const waiter = this.#waiting[this.#head++];
    if (waiter === undefined) throw new Error('a reply nobody asked for');
    // Drop answered waiters in blocks, not one shift per reply.
    if (this.#head > 1024) {
      this.#waiting.splice(0, this.#head);
      this.#head = 0;
    }
    return waiter;
  }

  #read(chunk: Buffer): void {
    const data = this.#unread === null ? chunk : Buffer.concat([this.#unread, chunk]);
    let at = 0;
    for (;;) {
      const end = data.indexOf(LF, at);
      if (end < 0 || data[end - 1] !== CR) break;
      const type = data[at];
      const line = data.toString('latin1', at + 1, end - 1);
      if (type === 0x24) {
        const length = Number(line);
        if (length < 0) {
          this.#next().resolve(null);
          at = end + 1;
          continue;
        }
        if (end + 1 + length + 2 > data.length) break;
        this.#next().resolve(data.toString('utf8', end + 1, end + 1 + length));
        at = end + 1 + length + 2;
        continue;
      }
      if (type === 0x2b) this.#next().resolve(line);
      else if (type === 0x3a) this.#next().resolve(Number(line));
      else if (type === 0x2d) this.#next().reject(new Error(line));
      else throw new Error(`reply type ${String.fromCharCode(type ?? 0)} is not read here`);
      at = end + 1;
    }
    this.#unread = at === data.length ? null : data.subarray(at);
  }

  #failAll(error: Error): void {
    const waiting = this.#waiting.splice(this.#head);
    this.#head = 0;
    this.#waiting.length = 0;
    for (const waiter of waiting) waiter.reject(error);
  }
}
