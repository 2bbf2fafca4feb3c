'use strict';
// Node.js binding of oh-hooks. Objects in, objects out: this file does the
// JSON; build/oh_hooks.node (src/addon.c) only moves strings across the C ABI.

const fs = require('node:fs');
const path = require('node:path');

// The platform key of a prebuilt addon: process.platform-process.arch, plus -musl on a Linux
// whose C library is not glibc (a glibc build does not load there).
function platformKey() {
  let key = `${process.platform}-${process.arch}`;
  if (process.platform === 'linux') {
    const report = typeof process.report?.getReport === 'function' ? process.report.getReport() : null;
    if (report && report.header && !report.header.glibcVersionRuntime) key += '-musl';
  }
  return key;
}

// The addon: a from-source build in build/ when there is one (`npm run build`), else the
// prebuild for this platform, which links the engine statically (no library path needed).
function loadNative() {
  const key = platformKey();
  const candidates = [
    path.join(__dirname, 'build', 'oh_hooks.node'),
    path.join(__dirname, 'prebuilds', key, 'oh_hooks.node'),
  ];
  const found = candidates.find((file) => fs.existsSync(file));
  if (!found) {
    let shipped = [];
    try {
      shipped = fs.readdirSync(path.join(__dirname, 'prebuilds'));
    } catch {
      /* a source checkout has no prebuilds/ */
    }
    const err = new Error(
      `oh-hooks: no prebuilt addon for ${key} (this package has prebuilds for: ` +
        `${shipped.length ? shipped.join(', ') : 'none'}). Build it from source: in a clone of the ` +
        'oh-hooks repository run `cargo build --release`, then in this package ' +
        '`OH_HOOKS_LIB_DIR=<clone>/target/release npm run build` (needs gcc and Node\'s headers); ' +
        'see "Install" in the README.',
    );
    err.code = 'ERR_OH_HOOKS_NO_PREBUILD';
    throw err;
  }
  try {
    return require(found);
  } catch (e) {
    const err = new Error(
      `oh-hooks: could not load the native addon ${found} (${e.message}). ` +
        (found.includes(`${path.sep}build${path.sep}`)
          ? 'Rebuild it with `npm run build` after `cargo build --release` in the repository root.'
          : `The prebuild for ${key} does not load on this system; build from source (see "Install" in the README).`),
    );
    err.code = 'ERR_OH_HOOKS_ADDON';
    err.cause = e;
    throw err;
  }
}

const native = loadNative();

/**
 * Error thrown by `new Hooks()`, `reload()`, and by any call on a closed
 * instance. `code` is one of the contract's codes (`invalid_options`,
 * `invalid_config`, `io_error`, `internal`) or `closed`; `file`, `line` and
 * `path` are set when the engine reported them.
 */
class OhHooksError extends Error {
  constructor(code, message, details) {
    super(message);
    this.name = 'OhHooksError';
    this.code = code;
    if (details) {
      if (details.file !== undefined) this.file = details.file;
      if (details.line !== undefined) this.line = details.line;
      if (details.path !== undefined) this.path = details.path;
    }
    // The error object exactly as the engine returned it (for tests and logs).
    Object.defineProperty(this, 'details', {
      value: details || { code, message },
      enumerable: false,
      writable: false,
    });
  }

  static fromJson(text) {
    let obj;
    try {
      obj = JSON.parse(text);
    } catch {
      return new OhHooksError('internal', `oh-hooks returned an error that is not JSON: ${text}`);
    }
    if (obj === null || typeof obj !== 'object') {
      return new OhHooksError('internal', `oh-hooks returned an error that is not an object: ${text}`);
    }
    return new OhHooksError(String(obj.code), String(obj.message), obj);
  }
}

function closedError() {
  return new OhHooksError('closed', 'this Hooks instance is closed');
}

function toJson(value, what) {
  if (value === undefined) return 'null';
  const s = JSON.stringify(value); // throws TypeError on BigInt / cycles
  if (s === undefined) {
    throw new TypeError(`${what} cannot be serialized to JSON (got ${typeof value})`);
  }
  return s;
}

// A string envelope is raw JSON text passed through unchanged (so malformed
// input can be tested); anything else is serialized.
function envelopeJson(envelope) {
  return typeof envelope === 'string' ? envelope : toJson(envelope, 'envelope');
}

// Errors thrown by the addon for a closed handle carry code 'closed'.
function rethrow(e) {
  if (e && e.code === 'closed' && !(e instanceof OhHooksError)) throw closedError();
  throw e;
}

// Kinds of what the addon delivers to dispatch (src/addon.c).
const CALL = 0;
const DONE = 1;
const RECORD = 2;
const RELEASE = 3;

function errorText(e) {
  if (e instanceof Error) return `${e.name}: ${e.message}`;
  try {
    return `${typeof e === 'string' ? e : JSON.stringify(e)}`;
  } catch {
    return String(e);
  }
}

// A failed callback, as the engine reads it: a deny (on a blocking event) whose reason is
// the text of what went wrong, which lands in the hook's trace.
function failure(name, what) {
  return JSON.stringify({ decision: 'deny', reason: `callback "${name}" failed: ${what}` });
}

/**
 * A callback's answer given as response text, passed to the engine exactly as it is (read
 * like a jsonIO hook's stdout: text that is not JSON is a malformed response). For hosts that
 * already hold the answer as JSON, such as one relayed from another process.
 */
class RawResponse {
  constructor(text) {
    if (typeof text !== 'string') throw new TypeError('RawResponse(text): text must be a string');
    this.text = text;
  }
}

// The response JSON for what a callback returned, or null for "no decision".
function answerJson(name, value) {
  if (value === undefined || value === null) return null;
  if (value instanceof RawResponse) {
    return value.text.includes('\0') ? failure(name, 'its RawResponse contains a NUL character') : value.text;
  }
  if (typeof value !== 'object' || Array.isArray(value)) {
    return failure(name, `it returned ${Array.isArray(value) ? 'an array' : typeof value}; ` +
      'return a response object such as { decision: "deny", reason: "..." }, or null for no decision');
  }
  try {
    return JSON.stringify(value);
  } catch (e) {
    return failure(name, `its response cannot be serialized to JSON (${errorText(e)})`);
  }
}

function isThenable(v) {
  return v !== null && (typeof v === 'object' || typeof v === 'function') && typeof v.then === 'function';
}

function abortError(signal, outcome) {
  const e = new Error('The fire was aborted; its running hooks were stopped', { cause: signal.reason });
  e.name = 'AbortError';
  e.code = 'ABORT_ERR';
  if (outcome) e.outcome = outcome;
  return e;
}

// What the addon calls back into. It must not reference the Hooks object (nor its handle,
// except through a fire in flight), or the native side's reference to it would keep the
// instance from ever being collected.
function makeState() {
  const state = {
    callbacks: new Map(), // regId -> { name, fn }
    pending: new Map(), // fire id -> { resolve, reject, signal, onAbort, keep }
    idle: [], // resolvers waiting for `pending` to empty (close())
    observer: null,
    promiseInSync: null, // the first callback that returned a Promise inside fireSync
    regSeq: 0,
  };
  state.dispatch = (kind, a, b, c) => {
    switch (kind) {
      case CALL:
        return call(state, a, b, c);
      case DONE:
        return done(state, a, b);
      case RECORD:
        return record(state, a);
      case RELEASE:
        state.callbacks.delete(a);
        return undefined;
      default:
        return undefined;
    }
  };
  return state;
}

// A callback hook or the prompt evaluator: returns the answer now (string or null), or
// undefined when a Promise will answer through native.respond(callId, ...). callId 0 means
// "inside fireSync": the answer is needed now.
function call(state, regId, requestJson, callId) {
  const reg = state.callbacks.get(regId);
  if (reg === undefined) return failure('?', 'its registration was replaced or dropped');
  let result;
  try {
    result = reg.fn(JSON.parse(requestJson));
  } catch (e) {
    return failure(reg.name, `it threw ${errorText(e)}`);
  }
  if (!isThenable(result)) return answerJson(reg.name, result);
  if (callId === 0) {
    if (state.promiseInSync === null) state.promiseInSync = reg.name;
    Promise.resolve(result).catch(() => {}); // settled by nobody: never an unhandled rejection
    return failure(reg.name, 'it returned a Promise, which fireSync cannot wait for; use await hooks.fire()');
  }
  try {
    result.then(
      (v) => native.respond(callId, answerJson(reg.name, v)),
      (e) => native.respond(callId, failure(reg.name, `its Promise rejected with ${errorText(e)}`)),
    );
  } catch (e) {
    return failure(reg.name, `calling then() on its result threw ${errorText(e)}`);
  }
  return undefined;
}

function done(state, id, outcomeJson) {
  const entry = state.pending.get(id);
  if (entry === undefined) return;
  state.pending.delete(id);
  if (state.pending.size === 0 && state.idle.length > 0) {
    for (const wake of state.idle.splice(0)) wake();
  }
  if (entry.onAbort !== null) entry.signal.removeEventListener('abort', entry.onAbort);
  if (outcomeJson === null) {
    entry.reject(new OhHooksError('internal', 'could not convert the outcome to a JS string'));
    return;
  }
  let outcome;
  try {
    outcome = JSON.parse(outcomeJson);
  } catch (e) {
    entry.reject(new OhHooksError('internal', `the engine returned an outcome that is not JSON: ${e.message}`));
    return;
  }
  if (entry.signal !== undefined && outcome.error && outcome.error.code === 'cancelled') {
    entry.reject(abortError(entry.signal, outcome));
  } else {
    entry.resolve(outcome);
  }
}

function record(state, recordJson) {
  const fn = state.observer;
  if (fn === null) return;
  try {
    fn(JSON.parse(recordJson));
  } catch (e) {
    // An observer that throws must not take down the event loop or lose later records.
    process.emitWarning(`oh-hooks: the onDecision observer threw: ${errorText(e)}`, 'OhHooksWarning');
  }
}

class Hooks {
  #handle;
  #state;
  #closed = false;
  #closing = null; // the promise close() returned
  #observing = false;

  /**
   * @param {object} [options] engine options (see docs/options.md); `undefined` or `null` means all
   *   defaults.
   * @throws {OhHooksError} invalid_options, invalid_config, io_error
   */
  constructor(options) {
    const json = options === undefined || options === null ? null : toJson(options, 'options');
    const state = makeState();
    const r = native.create(json, state.dispatch);
    if (typeof r === 'string') throw OhHooksError.fromJson(r);
    this.#handle = r;
    this.#state = state;
  }

  /**
   * Fires an event and blocks until its blocking hooks have run.
   * Returns the outcome object; bad input yields an outcome with `error` set
   * (it is not thrown). Callback hooks run right here, on this thread; one
   * whose function returns a Promise fails, and fireSync then throws
   * OhHooksError('promise_in_fire_sync').
   */
  fireSync(envelope) {
    if (this.#closed) throw closedError();
    const json = envelopeJson(envelope);
    const state = this.#state;
    const saved = state.promiseInSync;
    state.promiseInSync = null;
    let out;
    let promised;
    try {
      out = native.fireSync(this.#handle, json);
    } catch (e) {
      rethrow(e);
    } finally {
      promised = state.promiseInSync;
      state.promiseInSync = saved;
    }
    if (promised !== null) {
      throw new OhHooksError(
        'promise_in_fire_sync',
        `callback "${promised}" returned a Promise, but fireSync runs callbacks on this thread and cannot ` +
          'wait for one (the hook failed). Use await hooks.fire(), or make the callback synchronous.',
      );
    }
    // undefined: the engine's no-match outcome, the most common one by far (no string to build
    // and parse; a new object each time, as JSON.parse gives).
    return out === undefined ? { allowed: true, hooks: [] } : JSON.parse(out);
  }

  /**
   * Fires an event on the engine's own threads; the event loop keeps running
   * while hooks run. Resolves with the outcome object (also when its `error`
   * is set); rejects with OhHooksError('closed'), a TypeError for an envelope
   * that cannot be serialized, or an AbortError when `options.signal` aborts
   * (the engine then stops the fire's running hooks); with an internal Error
   * only where the system kept the completion pipe small (README "Threads").
   */
  fire(envelope, options) {
    try {
      if (this.#closed) throw closedError();
      const signal = options === undefined || options === null ? undefined : options.signal;
      if (signal !== undefined && signal !== null) {
        if (typeof signal.aborted !== 'boolean' || typeof signal.addEventListener !== 'function') {
          throw new TypeError('options.signal must be an AbortSignal');
        }
        if (signal.aborted) return Promise.reject(abortError(signal));
      }
      const json = envelopeJson(envelope);
      const state = this.#state;
      const handle = this.#handle;
      // The outcome comes back as dispatch(DONE, id, ...), on a later turn of the event loop
      // (never inside this call), so the entry below is in place before it.
      const id = native.fire(handle, json);
      return new Promise((resolve, reject) => {
        const entry = { resolve, reject, signal: undefined, onAbort: null, keep: handle };
        if (signal !== undefined && signal !== null) {
          entry.signal = signal;
          entry.onAbort = () => native.cancel(handle, id);
          signal.addEventListener('abort', entry.onAbort, { once: true });
        }
        state.pending.set(id, entry);
      });
    } catch (e) {
      try {
        rethrow(e);
      } catch (e2) {
        return Promise.reject(e2);
      }
    }
  }

  /**
   * Registers `fn` under `name` for `callback: <name>` hooks (and, under the
   * name `prompt`, as the evaluator of prompt hooks), replacing any function
   * registered under that name. `fn(request)` gets the envelope (for `prompt`:
   * `{ prompt, envelope }`) and returns a response object (`{ decision,
   * reason, hookSpecificOutput }`), null/undefined for no decision, or a
   * Promise of one. A throw or a rejection fails the hook. `fn` null removes
   * the registration.
   */
  register(name, fn) {
    if (this.#closed) throw closedError();
    if (typeof name !== 'string' || name === '') throw new TypeError('register(name, fn): name must be a non-empty string');
    if (fn !== null && typeof fn !== 'function') throw new TypeError('register(name, fn): fn must be a function or null');
    const state = this.#state;
    let regId = 0; // 0: remove the registration
    if (fn !== null) {
      regId = state.regSeq = (state.regSeq + 1) >>> 0 || 1;
      state.callbacks.set(regId, { name, fn });
    }
    let r;
    try {
      r = native.register(this.#handle, name, regId);
    } catch (e) {
      state.callbacks.delete(regId);
      rethrow(e);
    }
    if (typeof r === 'string') {
      state.callbacks.delete(regId);
      throw OhHooksError.fromJson(r);
    }
  }

  /**
   * Calls `fn(record)` once per fire, after all its hooks (background ones
   * included) have finished, with `{ envelope, outcome }`. Runs on the event
   * loop, never inside fireSync. `null` stops observing.
   */
  onDecision(fn) {
    if (this.#closed) throw closedError();
    if (fn !== null && typeof fn !== 'function') throw new TypeError('onDecision(fn): fn must be a function or null');
    const want = fn !== null;
    if (want !== this.#observing) {
      let r;
      try {
        r = native.observe(this.#handle, want);
      } catch (e) {
        rethrow(e);
      }
      if (typeof r === 'string') throw OhHooksError.fromJson(r);
      this.#observing = want;
    }
    this.#state.observer = fn;
  }

  /**
   * Re-reads the configuration files now. On failure the previous config
   * stays in force and an OhHooksError is thrown.
   */
  reload() {
    if (this.#closed) throw closedError();
    let r;
    try {
      r = native.reload(this.#handle);
    } catch (e) {
      rethrow(e);
    }
    if (typeof r === 'string') throw OhHooksError.fromJson(r);
  }

  /**
   * Closes the instance at once for new calls, then releases the engine off
   * the event loop: after the fire() calls still in flight settle (they
   * resolve normally, their callbacks still answered), the engine is freed on
   * the libuv thread pool, which waits for its background hooks. Callbacks
   * still waiting for an answer then fail (deny) with a reason saying so.
   * Resolves when all that is done. Idempotent: every call returns the same
   * promise.
   */
  close() {
    if (this.#closing) return this.#closing;
    this.#closed = true;
    const state = this.#state;
    const handle = this.#handle;
    this.#closing = (async () => {
      // Never free the engine under a fireSync running on this stack (close() called from a
      // callback): the native part runs after the current JS has returned.
      await null;
      while (state.pending.size) await new Promise((resolve) => state.idle.push(resolve));
      await native.closeAsync(handle);
    })();
    return this.#closing;
  }

  /**
   * close() that blocks: releases the engine now, on this thread, waiting
   * for its background hooks (with fire() calls in flight, the last of them
   * releases it). Idempotent; for `using` and for code that cannot await.
   * Throws OhHooksError('closed_in_callback') from a callback that fireSync runs.
   */
  closeSync() {
    native.close(this.#handle);
    this.#closed = true;
  }

  /** True once close() has been called. */
  get closed() {
    return this.#closed;
  }

  /** Number of fire() calls not yet settled. */
  get pendingFires() {
    return native.pending(this.#handle);
  }
}

// `using hooks = new Hooks()` closes with closeSync(); `await using` with close().
if (typeof Symbol.dispose === 'symbol') {
  Hooks.prototype[Symbol.dispose] = function dispose() {
    this.closeSync();
  };
}
if (typeof Symbol.asyncDispose === 'symbol') {
  Hooks.prototype[Symbol.asyncDispose] = function asyncDispose() {
    return this.close();
  };
}

/** Version of the loaded liboh_hooks (oh_hooks_version()). */
const version = native.version();
/** Version of the oh_hooks.h the addon was compiled against. */
const headerVersion = native.headerVersion;

module.exports = { Hooks, OhHooksError, RawResponse, version, headerVersion };
