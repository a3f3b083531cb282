/**
 * The root of every error Echo throws, so a caller can tell ours from a transport fault with one
 * `instanceof` check. `code` is a stable machine-readable word; `message` is for people.
 */
export class EchoError extends Error {
  /** A stable word naming the failure, safe to switch on. */
  readonly code: string;

  constructor(code: string, message: string, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
    this.name = new.target.name;
  }
}
