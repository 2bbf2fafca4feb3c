'use strict';
// Node.js binding of oh-hooks. Objects in, objects out: this file does the
// JSON; build/oh_hooks.node (src/addon.c) only moves strings across the C ABI.

const path = require('node:path');

let native;
try {
  native = require(path.join(__dirname, 'build', 'oh_hooks.node'));
} catch (e) {
  const err = new Error(
    `oh-hooks: could not load the native addon ${path.join(__dirname, 'build', 'oh_hooks.node')} ` +
      `(${e.message}). Build it with \`npm run build\` after \`cargo build --release\` in the repository root.`,
  );
  err.code = 'ERR_OH_HOOKS_ADDON';
  err.cause = e;
  throw err;
}

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

class Hooks {
  #handle;
  #closed = false;

  /**
   * @param {object} [options] engine options (CONTRACT §2); `undefined` or
   *   `null` means all defaults.
   * @throws {OhHooksError} invalid_options, invalid_config, io_error
   */
  constructor(options) {
    const json = options === undefined || options === null ? null : toJson(options, 'options');
    const r = native.create(json);
    if (typeof r === 'string') throw OhHooksError.fromJson(r);
    this.#handle = r;
  }

  /**
   * Fires an event and blocks until its blocking hooks have run.
   * Returns the outcome object; bad input yields an outcome with `error` set
   * (it is not thrown).
   */
  fireSync(envelope) {
    if (this.#closed) throw closedError();
    const json = envelopeJson(envelope);
    let out;
    try {
      out = native.fireSync(this.#handle, json);
    } catch (e) {
      rethrow(e);
    }
    return JSON.parse(out);
  }

  /**
   * Fires an event on the libuv thread pool; the event loop keeps running
   * while hooks run. Resolves with the outcome object (also when its `error`
   * is set); rejects only with OhHooksError('closed') or a TypeError for an
   * envelope that cannot be serialized.
   */
  fire(envelope) {
    try {
      if (this.#closed) throw closedError();
      const json = envelopeJson(envelope);
      return native.fire(this.#handle, json).then(JSON.parse, rethrow);
    } catch (e) {
      try {
        rethrow(e);
      } catch (e2) {
        return Promise.reject(e2);
      }
    }
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
   * Releases the engine (waiting for its background hooks). Idempotent.
   * With fire() calls still in flight, the instance is closed at once for new
   * calls and the engine is released when the last of them settles; those
   * promises resolve normally.
   */
  close() {
    if (this.#closed) return;
    this.#closed = true;
    native.close(this.#handle);
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

if (typeof Symbol.dispose === 'symbol') {
  Hooks.prototype[Symbol.dispose] = function dispose() {
    this.close();
  };
}

/** Version of the loaded liboh_hooks (oh_hooks_version()). */
const version = native.version();
/** Version of the oh_hooks.h the addon was compiled against. */
const headerVersion = native.headerVersion;

module.exports = { Hooks, OhHooksError, version, headerVersion };
