import { EventEmitter } from 'node:events';
import { Connection, InvalidArgumentError, mintId, strictOptions } from '@echo/protocol/queue';
import { Queue as EchoQueue, type FlowChild, type FlowResult } from '@echo/queue';
import { echoConnection, type ConnectionOptions } from './connection.js';
import type { Envelope } from './envelope.js';
import { BullMQInputError, JobStateError, NotSupportedError } from './errors.js';
import { keepCompletedByDefault } from './defaults.js';
import { DEFAULT_PREFIX, definedOnly, echoQueueName, keyOfJobId, rememberJobId } from './ids.js';
import { Job } from './job.js';
import { recordOfJobId } from './job-lookup.js';
import { checkOptions, keepBound, type JobsOptions } from './job-options.js';
import { makeEnvelope } from './envelope.js';
import { getFlow, type NodeOpts } from './flow/get-flow.js';
import { addUnder, findParent, type ParentOption } from './flow/parent-option.js';
import { Queue } from './queue.js';

/** One node of a flow: a job in `queueName`, done after its `children`. */
export interface FlowJob {
  /** The job's name. */
  readonly name: string;
  /** The queue it goes to. */
  readonly queueName: string;
  /** The job's data. */
  readonly data?: unknown;
  /** Its options; on a child, `failParentOnFailure` and `ignoreDependencyOnFailure` too. */
  readonly opts?: JobsOptions;
  /** Jobs that must finish first. */
  readonly children?: readonly FlowJob[];
  /** This node's key prefix (see `QueueOptions.prefix`); default the producer's. */
  readonly prefix?: string;
}

/** A flow as added: each node's job and its children's nodes. */
export interface JobNode {
  /** The node's job. */
  readonly job: Job;
  /** Its children, when it has any. */
  readonly children?: JobNode[];
}

/** `FlowProducer.add`'s second argument: per queue, the job options its nodes take by default. */
export interface FlowOpts {
  /** Queue name → `{ defaultJobOptions }`, applied under each node's own options. */
  readonly queuesOptions?: Readonly<Record<string, { readonly defaultJobOptions?: JobsOptions }>>;
}

/** `new FlowProducer(opts)`'s options. */
export interface FlowProducerOptions {
  /** Where Redis is: `{ host, port }`, or an Echo `Connection` to share. */
  readonly connection?: ConnectionOptions;
  /** BullMQ's key prefix for every node without its own (see `QueueOptions.prefix`). */
  readonly prefix?: string;
  /** See `QueueOptions.sharedConnection`. */
  readonly sharedConnection?: boolean;
}

const checkProducerOptions = strictOptions('FlowProducer options', { known: ['connection', 'prefix', 'sharedConnection'] });
const checkFlowJob = strictOptions('flow job', { known: ['name', 'queueName', 'data', 'opts', 'children', 'prefix'] });

/**
 * Options a flow node may carry: the rest of the job options are not in Echo's flow admission. A
 * node without children is a lone job (`Queue.add`), so it takes every option `add` takes.
 */
const FLOW_OPTIONS = new Set(['jobId', 'attempts', 'backoff', 'removeOnComplete', 'removeOnFail', 'failParentOnFailure', 'ignoreDependencyOnFailure', 'continueParentOnFailure', 'removeDependencyOnFailure', 'priority', 'delay']);

/**
 * BullMQ's `FlowProducer`: adds a parent and its children (across queues) in one step; the parent
 * runs when every child completed. A child with `failParentOnFailure` fails its parent when it fails
 * for good; one with `ignoreDependencyOnFailure` lets the parent run anyway.
 */
export class FlowProducer extends EventEmitter {
  readonly #connection: Promise<{ connection: Connection; owned: boolean }>;
  readonly #queues = new Map<string, EchoQueue<Envelope>>();
  readonly #prefix: string | undefined;

  constructor(opts: FlowProducerOptions = {}) {
    super();
    checkProducerOptions(definedOnly(opts));
    this.#prefix = opts.prefix;
    const target = echoConnection(opts.connection);
    this.#connection = 'connection' in target ? Promise.resolve({ connection: target.connection, owned: false }) : Connection.connect(target.connect).then((connection) => ({ connection, owned: true }));
    this.#connection.catch((error: unknown) => {
      if (this.listenerCount('error') > 0) this.emit('error', error);
    });
  }

  /**
   * Adds one flow; answers its tree of jobs. A root without children (none given, or `[]`) is a
   * lone job, added as `Queue.add` adds it (deduplication included), and answered without `children`.
   * `opts.queuesOptions` gives the nodes of a queue their `defaultJobOptions` (a node's own win).
   */
  async add(flowJob: FlowJob, opts?: FlowOpts): Promise<JobNode> {
    const flow = opts === undefined ? flowJob : withQueueDefaults(flowJob, opts);
    if (flow.children === undefined || flow.children.length === 0) {
      checkFlowJob(flow);
      return { job: await this.#addLone(flow) };
    }
    if (flow.opts?.parent !== undefined) return this.#addUnder(flow, flow.opts.parent);
    check(flow, false);
    // Ids are minted here, not by Echo, so each node's envelope can name its parent and its children
    // (by the node's `jobId` when it has one, found through its business key).
    const id = mintId('JOB');
    const parentRef = { id: flow.opts?.jobId ?? id, queueKey: this.#qualified(flow) };
    const existing = await this.#existingChildren(flow);
    const children = flow.children.map((child) => this.#child(child, parentRef, existing));
    const queue = await this.#queue(flow);
    await this.#applyKeep(flow);
    const parent: Envelope = { ...makeEnvelope(flow.name, flow.data, flow.opts ?? {}), ...childKeys(children) };
    const key = flow.opts?.jobId === undefined ? {} : { key: keyOfJobId(flow.opts.jobId) };
    const result = await queue.addFlow({ parent: { payload: parent, id, ...key, ...timing(flow.opts, true) }, children: children.map((c) => c.spec) });
    return this.#node(flow, parent, result, children.map((c) => c.envelopes));
  }

  /**
   * A flow whose root names an existing `parent`: the whole tree joins that parent as one more child
   * it waits for (BullMQ's way of chaining flows at run time, as from a step job).
   */
  async #addUnder(flow: FlowJob, parentOption: ParentOption): Promise<JobNode> {
    const { parent: _parent, ...opts } = flow.opts ?? {};
    const root: FlowJob = { ...flow, opts };
    const parent = await findParent((queueName, prefix) => this.#queue(prefix === undefined ? { name: '', queueName } : { name: '', queueName, prefix }), parentOption, 'addJob');
    const child = this.#child(root, parent.ref);
    await this.#applyKeep(root);
    const landed = await addUnder(parent, child.spec, 'addJob', () => child.key);
    return this.#node(root, child.envelopes.envelope, landed, child.envelopes.children);
  }

  /**
   * Adds several flows; answers their trees. As in BullMQ, whose flows land in one pipeline where a
   * refused one does not stop the others, a flow the server refuses for its state (a `parent` that
   * is missing, finished or cannot be replaced) is left out and answered with a job of the id it
   * would have had, which names no job; input that is not valid still throws.
   */
  async addBulk(flows: readonly FlowJob[]): Promise<JobNode[]> {
    const out: JobNode[] = [];
    for (const flow of flows) {
      try {
        out.push(await this.add(flow));
      } catch (error) {
        if (!(error instanceof JobStateError)) throw error;
        out.push({ job: new Job(await this.#queue(flow), mintId('JOB'), makeEnvelope(flow.name, flow.data, flow.opts ?? {})) });
      }
    }
    return out;
  }

  /**
   * Reads a flow back from one of its nodes: the node's job and its children, down to `depth`
   * levels (default 10), at most `maxChildren` (default 20) of each kind per node. Answers
   * undefined when the node does not exist.
   */
  getFlow(opts: NodeOpts): Promise<JobNode | undefined> {
    return getFlow((queueName, prefix) => this.#queue(prefix === undefined ? { name: '', queueName } : { name: '', queueName, prefix }), opts);
  }

  /** Closes the connection it opened. */
  async close(): Promise<void> {
    const { connection, owned } = await this.#connection;
    if (owned) await connection.close();
  }

  /**
   * The Echo ids of the jobs that children of the tree name by `jobId` in their parent's queue, by
   * `<queue>\n<jobId>`: such a child is that job, linked to its new parent (see `@echo/queue`'s
   * `addFlow`), so its parent's envelope pairs its key with the job's own id.
   */
  async #existingChildren(root: FlowJob): Promise<ReadonlyMap<string, string>> {
    const out = new Map<string, string>();
    const visit = async (node: FlowJob, parentQueue: string | undefined): Promise<void> => {
      const queueName = echoQueueName(node.queueName, node.prefix ?? this.#prefix);
      const jobId = node.opts?.jobId;
      if (jobId !== undefined && queueName === parentQueue && (node.children ?? []).length === 0) {
        const record = await recordOfJobId(await this.#queue(node), jobId);
        if (record !== undefined) out.set(`${queueName}\n${jobId}`, record.id);
      }
      for (const child of node.children ?? []) await visit(child, queueName);
    };
    await visit(root, undefined);
    return out;
  }

  #child(flow: FlowJob, parent: { readonly id: string; readonly queueKey: string }, existing: ReadonlyMap<string, string> = new Map()): ChildNode {
    check(flow, true);
    const opts = flow.opts ?? {};
    // A child removed when it fails (`removeOnFail: true`, no failure policy) can no longer be waited
    // for: BullMQ takes it out of its parent's dependencies, as `removeDependencyOnFailure` does.
    const policy = opts.failParentOnFailure === true || opts.ignoreDependencyOnFailure === true || opts.continueParentOnFailure === true;
    const forgets = opts.removeDependencyOnFailure === true || (opts.removeOnFail === true && !policy);
    const queueName = echoQueueName(flow.queueName, flow.prefix ?? this.#prefix);
    const id = (opts.jobId === undefined ? undefined : existing.get(`${queueName}\n${opts.jobId}`)) ?? mintId('JOB');
    const bullmqId = opts.jobId ?? id;
    const qualified = this.#qualified(flow);
    const kids = (flow.children ?? []).map((child) => this.#child(child, { id: bullmqId, queueKey: qualified }, existing));
    const payload: Envelope = { ...makeEnvelope(flow.name, flow.data, opts), p: parent, ...(kids.length === 0 ? {} : childKeys(kids)) };
    return {
      spec: {
        payload,
        id,
        ...(opts.jobId === undefined ? {} : { key: keyOfJobId(opts.jobId) }),
        queue: queueName,
        ...(kids.length === 0 ? {} : { children: kids.map((k) => k.spec) }),
        ...timing(opts, kids.length > 0),
        ...(opts.failParentOnFailure === undefined ? {} : { failParentOnFailure: opts.failParentOnFailure }),
        // A forgotten dependency is an ignored one in Echo, left out of the parent's lists by its envelope's `f`.
        ...(opts.ignoreDependencyOnFailure === undefined && !forgets ? {} : { ignoreDependencyOnFailure: opts.ignoreDependencyOnFailure === true || forgets }),
        ...(opts.continueParentOnFailure === undefined ? {} : { continueParentOnFailure: opts.continueParentOnFailure }),
      },
      envelopes: { envelope: payload, flow, children: kids.map((k) => k.envelopes) },
      key: `${qualified}:${bullmqId}`,
      echoId: id,
      forgotten: forgets,
    };
  }

  /** A childless root, added through a `Queue` of the node's queue on this producer's connection. */
  async #addLone(flow: FlowJob): Promise<Job> {
    const { connection } = await this.#connection;
    const prefix = flow.prefix ?? this.#prefix;
    const queue = new Queue(flow.queueName, prefix === undefined ? { connection } : { connection, prefix });
    try {
      return await queue.add(flow.name, flow.data, flow.opts ?? {});
    } finally {
      await queue.close();
    }
  }

  /** BullMQ's qualified name of a node's queue (`<prefix>:<queue>`). */
  #qualified(flow: FlowJob): string {
    return `${flow.prefix ?? this.#prefix ?? DEFAULT_PREFIX}:${flow.queueName}`;
  }

  async #node(flow: FlowJob, envelope: Envelope, result: FlowResult, children: readonly Tree[]): Promise<JobNode> {
    const queue = await this.#queue(flow);
    const nodes: JobNode[] = [];
    for (const [i, child] of result.children.entries()) {
      const tree = children[i];
      if (tree) nodes.push(await this.#node(tree.flow, tree.envelope, child, tree.children));
    }
    const job = new Job(queue, result.id, envelope);
    if (envelope.i !== undefined) rememberJobId(result.id, envelope.i);
    return nodes.length === 0 ? { job } : { job, children: nodes };
  }

  /**
   * A node's `removeOnComplete` / `removeOnFail` is its queue's retention (a queue setting in Echo,
   * as on `Queue.add`); `attempts` and `backoff` travel in the node's envelope, read by the worker.
   */
  async #applyKeep(flow: FlowJob): Promise<void> {
    const { removeOnComplete, removeOnFail } = flow.opts ?? {};
    if (removeOnComplete !== undefined || removeOnFail !== undefined) {
      const queue = await this.#queue(flow);
      // Echo writes both bounds at once: a node that names only removeOnFail keeps BullMQ's default
      // for completed jobs (keep them), or its queue's parents would lose their children's values.
      await queue.setRetention({
        completed: keepBound(removeOnComplete ?? false),
        ...(removeOnFail === undefined ? {} : { failed: keepBound(removeOnFail) }),
      });
    }
    for (const child of flow.children ?? []) await this.#applyKeep(child);
  }

  async #queue(flow: FlowJob): Promise<EchoQueue<Envelope>> {
    const name = echoQueueName(flow.queueName, flow.prefix ?? this.#prefix);
    const known = this.#queues.get(name);
    if (known) return known;
    const { connection } = await this.#connection;
    const queue = await EchoQueue.open<Envelope>(name, { connection });
    await keepCompletedByDefault(queue);
    this.#queues.set(name, queue);
    return queue;
  }
}

/** A node under its parent: its Echo spec, its envelopes, its BullMQ key, its Echo id, and whether its failure removes the dependency. */
interface ChildNode {
  readonly spec: FlowChild<Envelope>;
  readonly envelopes: Tree;
  readonly key: string;
  readonly echoId: string;
  readonly forgotten: boolean;
}

/** A parent's record of its children: their keys, and those its failure forgets (`removeDependencyOnFailure`). */
function childKeys(children: readonly ChildNode[]): Pick<Envelope, 'k' | 'e' | 'f'> {
  const forgotten = children.filter((c) => c.forgotten).map((c) => c.key);
  // Echo reports a child by its Echo id; a child keyed by its `jobId` is found through `e`.
  const named = children.some((c) => !c.key.endsWith(`:${c.echoId}`));
  return { k: children.map((c) => c.key), ...(named ? { e: children.map((c) => c.echoId) } : {}), ...(forgotten.length === 0 ? {} : { f: forgotten }) };
}

const checkFlowOpts = strictOptions('flow options', { known: ['queuesOptions'] });
const checkQueueOptions = strictOptions('flow queuesOptions entry', { known: ['defaultJobOptions'] });

/** The tree with each node's options laid over its queue's `defaultJobOptions`, as BullMQ merges them. */
function withQueueDefaults(flow: FlowJob, opts: FlowOpts): FlowJob {
  checkFlowOpts(opts);
  const byQueue = opts.queuesOptions ?? {};
  for (const entry of Object.values(byQueue)) checkQueueOptions(entry);
  const visit = (node: FlowJob): FlowJob => {
    const defaults = byQueue[node.queueName]?.defaultJobOptions;
    const merged = defaults === undefined ? node.opts : { ...defaults, ...node.opts };
    return { ...node, ...(merged === undefined ? {} : { opts: merged }), ...(node.children === undefined ? {} : { children: node.children.map(visit) }) };
  };
  return visit(flow);
}

interface Tree {
  readonly envelope: Envelope;
  readonly flow: FlowJob;
  readonly children: readonly Tree[];
}

/**
 * A node's BullMQ priority and delay as Echo's flow admission takes them: priority flips to Echo's
 * higher-first order (BullMQ runs 1 before 2, and unprioritized jobs before both); a delay is a
 * leaf's only (a parent is released by its last child, into pending).
 */
function timing(opts: JobsOptions | undefined, hasChildren: boolean): { priority?: number; delayMs?: number } {
  const { priority, delay } = opts ?? {};
  const out: { priority?: number; delayMs?: number } = {};
  if (priority !== undefined && priority > 0) out.priority = -priority;
  if (delay !== undefined && delay > 0) {
    if (hasChildren) throw new NotSupportedError('flow job option delay on a node with children', 'a parent enters the queue when its last child settles, never delayed; delay its children instead');
    out.delayMs = Math.round(delay);
  }
  return out;
}

function check(flow: FlowJob, child: boolean): void {
  checkFlowJob(flow);
  const opts = flow.opts ?? {};
  checkOptions(opts, true);
  if (opts.deduplication !== undefined && (flow.children ?? []).length > 0) {
    throw new BullMQInputError('deduplication', 'Deduplication options cannot be used on flow nodes with children');
  }
  for (const key of Object.keys(opts)) {
    if (!FLOW_OPTIONS.has(key) && (opts as Record<string, unknown>)[key] !== undefined) {
      throw new NotSupportedError(`flow job option ${key}`, "Echo's flow admission takes a child's failure policy and backoff; other options are set per queue or by Queue.add");
    }
  }
  if (!child && (opts.failParentOnFailure !== undefined || opts.ignoreDependencyOnFailure !== undefined || opts.continueParentOnFailure !== undefined || opts.removeDependencyOnFailure !== undefined)) {
    throw new InvalidArgumentError('flow.opts', 'failParentOnFailure, ignoreDependencyOnFailure, continueParentOnFailure and removeDependencyOnFailure apply to children');
  }
}
