// TaskHandle and TaskUpdates: the bookkeeping of one subscription (callbacks, waiting promises,
// iterators, the abort signal). What the subscription means is decided in WebAssembly: the client
// makes each handle and hands it over when the subscription starts; the WebAssembly side tells it
// of every snapshot (`_status`) and of the end (`_done`, with the record, what `result()` settles
// with and whether the first promise resolves), and answers what the handle asks through the
// client's port (the snapshot getters, `stop`, `cancel`, `delete`).
import { call, failure } from "./extras.js";

const noop = () => {};
const step = (value, done) => ({ value, done });

/** A new iterator queue: what one `updates()` iterator has yet to hand out. */
const queue = () => ({ tasks: [], last: undefined, waiter: undefined, finished: false });

function push(q, task) {
  if (q.finished) return;
  q.last = task;
  const w = q.waiter;
  q.waiter = undefined;
  if (w) w(step(task, false));
  else q.tasks.push(task);
}

function finish(q) {
  q.finished = true;
  const w = q.waiter;
  if (!q.tasks.length && w) {
    q.waiter = undefined;
    w(step(undefined, true));
  }
}

/** Whether two snapshots are the same (both are plain JSON written by the client). */
const same = (a, b) => a !== undefined && JSON.stringify(a) === JSON.stringify(b);

/** The async iterator `TaskHandle.updates()` returns. */
export class TaskUpdates {
  /** The class's name, kept through minification (local names are shortened). */
  static name = "TaskUpdates";
  #q;

  constructor(q) {
    this.#q = q;
  }

  [Symbol.asyncIterator]() {
    return this;
  }

  next() {
    const q = this.#q;
    if (q.tasks.length) return Promise.resolve(step(q.tasks.shift(), false));
    if (q.finished) return Promise.resolve(step(undefined, true));
    return new Promise((resolve) => {
      q.waiter?.(step(undefined, true));
      q.waiter = resolve;
    });
  }

  return() {
    this.#q.tasks.length = 0;
    finish(this.#q);
    return Promise.resolve(step(undefined, true));
  }

  free() {
    void this.return();
  }
}

/** One subscription to one task (or plain request); created by the client. */
export class TaskHandle {
  /** The class's name, kept through minification (local names are shortened). */
  static name = "TaskHandle";
  /** The client's side of its handles. */
  #port;
  /** The subscription's id (`undefined` for a handle that ended before it had one). */
  #sub;
  /** `onStatus` and `onDone` callbacks in registration order, as `{ f, done }`. */
  #cbs = [];
  /** Bumped on every delivered snapshot. */
  #version = 0;
  /** Settles the promise `callTool`/`request` return: `[resolve, reject]`. */
  #first;
  /** Once ended: `{ record, ok, value }` (`value`: what `result()` resolves or rejects with). */
  #end;
  /** What only some handles use, created on first use: see `#more()`. */
  #extras;

  constructor(port, signal, first) {
    this.#port = port;
    this.#first = first;
    if (signal?.aborted) this.#more().reason = signal.reason;
    else if (signal) this.#more().signal = signal;
  }

  /** For the client: the subscription `sub` started (`undefined`: it never did); from now on the
   *  handle stops when its signal aborts. */
  _start(sub) {
    this.#sub = sub;
    const more = this.#extras;
    const signal = more?.signal;
    if (!signal) return;
    more.signal = undefined;
    if (sub === undefined) return;
    const abort = () => {
      this.#more().reason = signal.reason;
      this.stop();
    };
    signal.addEventListener("abort", abort);
    this.#more().unlisten = () => signal.removeEventListener("abort", abort);
  }

  /** Waiting `result()` calls, `updates()` queues, `cancel()` calls before the task id is known,
   *  the abort signal until the subscription starts, its reason and the removal of its listener. */
  #more() {
    return (this.#extras ??= { waiters: [], queues: [], cancels: [], signal: undefined, reason: undefined, unlisten: undefined });
  }

  get id() {
    return this.#end ? this.#end.record.taskId : this.#port.id(this.#sub);
  }

  get status() {
    return this.#end ? this.#end.record.status : this.#port.status(this.#sub);
  }

  get task() {
    return this.#end ? this.#end.record.task : this.#port.task(this.#sub);
  }

  get isDone() {
    return this.#end !== undefined;
  }

  #add(f, done) {
    const entry = { f, done };
    this.#cbs.push(entry);
    return entry;
  }

  #off(entry) {
    return () => {
      const i = this.#cbs.indexOf(entry);
      if (i >= 0) this.#cbs.splice(i, 1);
    };
  }

  onStatus(cb) {
    if (this.#end) return noop;
    const entry = this.#add(cb, false);
    const version = this.#version;
    // Replayed only if still subscribed and nothing newer was delivered meanwhile.
    if (version) {
      queueMicrotask(() => {
        if (this.#cbs.includes(entry) && this.#version === version) call(cb, this.task);
      });
    }
    return this.#off(entry);
  }

  onDone(cb) {
    const end = this.#end;
    if (end) {
      queueMicrotask(() => call(cb, end.record));
      return noop;
    }
    return this.#off(this.#add(cb, true));
  }

  result() {
    const end = this.#end;
    if (end) return end.ok ? Promise.resolve(end.value) : Promise.reject(end.value);
    return new Promise((resolve, reject) => this.#more().waiters.push([resolve, reject]));
  }

  updates() {
    const q = queue();
    if (this.#end || this.#version) {
      const task = this.task;
      if (task) push(q, task);
    }
    if (this.#end) finish(q);
    else this.#more().queues.push(q);
    return new TaskUpdates(q);
  }

  cancel() {
    if (this.#end) return Promise.resolve();
    const id = this.id;
    if (id !== null) return this.#port.cancel(id);
    return new Promise((resolve, reject) => this.#more().cancels.push([resolve, reject]));
  }

  delete() {
    return this.#port.delete(this.id);
  }

  stop() {
    if (!this.#end && this.#sub !== undefined) this.#port.stop(this.#sub);
  }

  free() {
    this.stop();
  }

  /** For the client: whether `_status` should get the snapshot (someone receives it). */
  get _wantsTasks() {
    return this.#cbs.some((e) => !e.done) || this.#extras?.queues.length > 0;
  }

  /** For the client: the abort signal's reason, the `cause` of an `aborted` end. */
  get _abortReason() {
    return this.#extras?.reason;
  }

  /** For the client: a snapshot arrived (`task`: as JS when `_wantsTasks` said so). A terminal
   *  one reaches the iterators once, as the final one, with the end. */
  _status(task, terminal) {
    if (this.#end) return;
    this.#version++;
    const cbs = this.#cbs.filter((e) => !e.done);
    const first = this.#first;
    this.#first = undefined;
    first?.[0](this);
    const more = this.#extras;
    if (more && !terminal) for (const q of more.queues) push(q, task);
    for (const e of cbs) call(e.f, task);
    if (more?.cancels.length) {
      const cancels = more.cancels;
      more.cancels = [];
      for (const [resolve, reject] of cancels) this.cancel().then(resolve, reject);
    }
  }

  /** For the client: the subscription ended (once). `result()` resolves with the record's result
   *  (`null` when there is none) unless the record has an `error`: then it rejects with the error
   *  that `ErrorInfo` describes (an `aborted` one with the signal's reason as `cause`);
   *  `resolvesFirst`: whether the first promise resolves with this handle (else it rejects with the
   *  error). */
  _done(record, resolvesFirst) {
    if (this.#end) return;
    const more = this.#extras;
    const { error } = record;
    const ok = !error;
    const value = ok ? (record.outcome?.result ?? null) : failure(error, error.kind === "aborted" ? more?.reason : undefined);
    this.#end = { record, ok, value };
    this.#extras = undefined;
    more?.unlisten?.();
    const first = this.#first;
    this.#first = undefined;
    if (first) {
      if (resolvesFirst) first[0](this);
      else first[1](ok ? undefined : value);
    }
    for (const [resolve, reject] of more?.waiters ?? []) (ok ? resolve : reject)(value);
    for (const q of more?.queues ?? []) {
      if (record.task && !same(q.last, record.task)) push(q, record.task);
      finish(q);
    }
    const cbs = this.#cbs;
    this.#cbs = [];
    for (const e of cbs) if (e.done) call(e.f, record);
    for (const [resolve] of more?.cancels ?? []) resolve();
  }
}

// `free()` and `Symbol.dispose` end what the object stands for (never throwing).
if (Symbol.dispose) {
  TaskHandle.prototype[Symbol.dispose] = TaskHandle.prototype.stop;
  TaskUpdates.prototype[Symbol.dispose] = TaskUpdates.prototype.free;
}
