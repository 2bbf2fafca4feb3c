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

class Hooks {
  #handle;
  #closed = false;
  #closing = null; // the promise close() returned
  #inFlight = new Set(); // fire() promises not yet settled

  /**
   * @param {object} [options] engine options (README, "Options"); `undefined` or
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
      const p = native.fire(this.#handle, json);
      const settled = () => this.#inFlight.delete(p);
      this.#inFlight.add(p);
      p.then(settled, settled);
      return p.then(JSON.parse, rethrow);
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
   * Closes the instance at once for new calls, then releases the engine off
   * the event loop: after the fire() calls still in flight settle (they
   * resolve normally), the engine is freed on the libuv thread pool, which
   * waits for its background hooks. Resolves when all that is done.
   * Idempotent: every call returns the same promise.
   */
  close() {
    if (this.#closing) return this.#closing;
    this.#closed = true;
    this.#closing = (async () => {
      while (this.#inFlight.size) await Promise.allSettled([...this.#inFlight]);
      await native.closeAsync(this.#handle);
    })();
    return this.#closing;
  }

  /**
   * close() that blocks: releases the engine now, on this thread, waiting
   * for its background hooks (with fire() calls in flight, the last of them
   * releases it). Idempotent; for `using` and for code that cannot await.
   */
  closeSync() {
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

module.exports = { Hooks, OhHooksError, version, headerVersion };
