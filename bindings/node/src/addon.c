/*
 * oh-hooks Node.js addon: a thin N-API layer over the oh-hooks C ABI.
 *
 * The native side deals only in strings: options and envelopes come in as
 * JSON text, outcomes and errors go out as JSON text. index.js does the
 * JSON.stringify / JSON.parse and builds OhHooksError, so this file stays
 * small and has no policy of its own.
 *
 * Exports (all private to index.js):
 *   create(optionsJson | null)  -> external handle, or an error JSON string
 *   fireSync(handle, envelope)  -> outcome JSON string
 *   fire(handle, envelope)      -> Promise<outcome JSON string>
 *   reload(handle)              -> undefined, or an error JSON string
 *   close(handle)               -> true if released now, false if deferred
 *   closeAsync(handle)          -> Promise<void>: the engine is freed on the
 *                                  libuv thread pool (freeing waits for its
 *                                  background hooks, which must not block the
 *                                  event loop); with fires in flight it is
 *                                  close() (the last fire releases the engine)
 *   pending(handle)             -> number of fire() calls still in flight
 *   version()                   -> oh_hooks_version()
 *   headerVersion               -> "MAJOR.MINOR.PATCH" of the header compiled against
 *
 * Threading. Every napi_* call and every field of Handle is touched only on
 * the JS thread. fire() copies the envelope and the engine pointer into a
 * FireJob; the libuv worker reads only that job (engine, envelope) and writes
 * only job->outcome. The engine is never freed while a job is in flight:
 * close() on a handle with fires in flight marks it closed (new calls throw)
 * and the last completing fire releases the engine. Each queued job holds a
 * strong reference to the external, so its finalizer cannot run under a
 * queued fire either.
 */
#define NAPI_VERSION 8
#include <node_api.h>

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oh_hooks.h"

typedef struct {
    OhHooks *engine;     /* NULL once released */
    uint32_t in_flight;  /* fire() jobs queued or running (JS thread only) */
    bool closed;         /* close() was called: no new calls */
    bool finalized;      /* the external was garbage-collected */
} Handle;

typedef struct {
    napi_async_work work;
    napi_deferred deferred;
    napi_ref keep;           /* strong ref to the external while queued */
    Handle *handle;          /* JS thread only */
    const OhHooks *engine;   /* read by the worker */
    char *envelope;          /* read by the worker */
    char *outcome;           /* written by the worker */
} FireJob;

/* Distinguishes our externals from any other external passed in by mistake. */
static const napi_type_tag HANDLE_TAG = {0x6f685f686f6f6b73ULL, 0x6e6f64652d763031ULL};

static const char OOM_OUTCOME_MSG[] =
    "oh_hooks_fire returned NULL (out of memory)";

/* ---------------------------------------------------------------- helpers */

/* Throws a JS Error carrying `code`, unless an exception is already pending. */
static void throw_code(napi_env env, const char *code, const char *msg) {
    bool pending = false;
    if (napi_is_exception_pending(env, &pending) == napi_ok && pending) return;
    napi_throw_error(env, code, msg);
}

/* After a failed napi_* call: surface N-API's own message as an exception. */
static void throw_napi_failure(napi_env env, const char *what) {
    const napi_extended_error_info *info = NULL;
    char buf[256];
    napi_get_last_error_info(env, &info);
    snprintf(buf, sizeof buf, "oh-hooks addon: %s failed: %s", what,
             (info && info->error_message) ? info->error_message : "unknown N-API error");
    throw_code(env, "internal", buf);
}

#define NAPI_OK(env, call, what)            \
    do {                                    \
        if ((call) != napi_ok) {            \
            throw_napi_failure(env, what);  \
            return NULL;                    \
        }                                   \
    } while (0)

static napi_value undefined_value(napi_env env) {
    napi_value v = NULL;
    napi_get_undefined(env, &v);
    return v;
}

/* Copies a JS string argument into a new NUL-terminated UTF-8 buffer.
 * Throws a TypeError and returns NULL if it is not a string or holds a NUL
 * (a C string cannot carry it, and cutting the text short would change what
 * the engine sees). */
static char *copy_string_arg(napi_env env, napi_value v, const char *what) {
    napi_valuetype t;
    size_t len = 0, got = 0;
    char *buf;
    char msg[160];

    if (napi_typeof(env, v, &t) != napi_ok || t != napi_string) {
        snprintf(msg, sizeof msg, "%s must be a string", what);
        napi_throw_type_error(env, "ERR_INVALID_ARG_TYPE", msg);
        return NULL;
    }
    if (napi_get_value_string_utf8(env, v, NULL, 0, &len) != napi_ok) {
        throw_napi_failure(env, "napi_get_value_string_utf8");
        return NULL;
    }
    buf = malloc(len + 1);
    if (!buf) {
        throw_code(env, "internal", "oh-hooks addon: out of memory");
        return NULL;
    }
    if (napi_get_value_string_utf8(env, v, buf, len + 1, &got) != napi_ok) {
        free(buf);
        throw_napi_failure(env, "napi_get_value_string_utf8");
        return NULL;
    }
    if (memchr(buf, '\0', got) != NULL) {
        free(buf);
        snprintf(msg, sizeof msg, "%s contains a NUL character, which cannot cross the C ABI", what);
        napi_throw_type_error(env, "ERR_INVALID_ARG_VALUE", msg);
        return NULL;
    }
    return buf;
}

/* Returns the Handle behind argument `v`, or throws and returns NULL. */
static Handle *get_handle(napi_env env, napi_value v, bool must_be_open) {
    napi_valuetype t;
    bool tagged = false;
    void *data = NULL;
    Handle *h;

    /* Node versions that cannot type-tag externals fail the check itself;
     * then only the type and the pointer are checked. */
    if (napi_typeof(env, v, &t) != napi_ok || t != napi_external ||
        (napi_check_object_type_tag(env, v, &HANDLE_TAG, &tagged) == napi_ok && !tagged) ||
        napi_get_value_external(env, v, &data) != napi_ok || data == NULL) {
        napi_throw_type_error(env, "ERR_INVALID_ARG_TYPE", "oh-hooks addon: not an oh-hooks handle");
        return NULL;
    }
    h = data;
    if (must_be_open && (h->closed || h->engine == NULL)) {
        throw_code(env, "closed", "this Hooks instance is closed");
        return NULL;
    }
    return h;
}

/* Turns an owned C string into a JS string and frees it (NULL-safe). */
static napi_value take_c_string(napi_env env, char *s) {
    napi_value v = NULL;
    napi_status st = napi_create_string_utf8(env, s, NAPI_AUTO_LENGTH, &v);
    oh_hooks_string_free(s);
    if (st != napi_ok) {
        throw_napi_failure(env, "napi_create_string_utf8");
        return NULL;
    }
    return v;
}

static void release_engine(Handle *h) {
    if (h->engine) {
        OhHooks *e = h->engine;
        h->engine = NULL;
        oh_hooks_free(e);
    }
}

/* -------------------------------------------------------------- finalizer */

static void finalize_handle(napi_env env, void *data, void *hint) {
    Handle *h = data;
    (void)env;
    (void)hint;
    h->finalized = true;
    /* A queued fire holds a strong reference, so normally in_flight is 0
     * here. If the environment is being torn down under a running fire, the
     * worker may still be using the engine: leave it to the completion
     * callback (which frees both) rather than free under it. */
    if (h->in_flight == 0) {
        release_engine(h);
        free(h);
    }
}

/* ----------------------------------------------------------------- create */

static napi_value js_create(napi_env env, napi_callback_info info) {
    size_t argc = 1;
    napi_value argv[1], ext;
    napi_valuetype t = napi_undefined;
    char *options = NULL, *err = NULL;
    OhHooks *engine;
    Handle *h;

    NAPI_OK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL), "napi_get_cb_info");
    if (argc >= 1) NAPI_OK(env, napi_typeof(env, argv[0], &t), "napi_typeof");
    if (t != napi_undefined && t != napi_null) {
        options = copy_string_arg(env, argv[0], "options JSON");
        if (!options) return NULL;
    }

    engine = oh_hooks_new(options, &err);
    free(options);
    if (!engine) {
        if (err) return take_c_string(env, err);
        napi_value v = NULL;
        napi_create_string_utf8(env,
            "{\"code\":\"internal\",\"message\":\"oh_hooks_new failed without an error report\"}",
            NAPI_AUTO_LENGTH, &v);
        return v;
    }
    oh_hooks_string_free(err); /* NULL on success, but be defensive */

    h = calloc(1, sizeof *h);
    if (!h) {
        oh_hooks_free(engine);
        throw_code(env, "internal", "oh-hooks addon: out of memory");
        return NULL;
    }
    h->engine = engine;
    if (napi_create_external(env, h, finalize_handle, NULL, &ext) != napi_ok) {
        oh_hooks_free(engine);
        free(h);
        throw_napi_failure(env, "napi_create_external");
        return NULL;
    }
    /* From here the finalizer owns h. Tagging an external needs a Node that
     * supports it; without it get_handle skips the tag check. */
    napi_type_tag_object(env, ext, &HANDLE_TAG);
    return ext;
}

/* --------------------------------------------------------------- fireSync */

static napi_value js_fire_sync(napi_env env, napi_callback_info info) {
    size_t argc = 2;
    napi_value argv[2];
    Handle *h;
    char *envelope, *outcome;

    NAPI_OK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL), "napi_get_cb_info");
    if (argc < 2) {
        napi_throw_type_error(env, "ERR_MISSING_ARGS", "fireSync(handle, envelopeJson) needs 2 arguments");
        return NULL;
    }
    if (!(h = get_handle(env, argv[0], true))) return NULL;
    if (!(envelope = copy_string_arg(env, argv[1], "envelope JSON"))) return NULL;

    outcome = oh_hooks_fire(h->engine, envelope);
    free(envelope);
    if (!outcome) {
        throw_code(env, "internal", OOM_OUTCOME_MSG);
        return NULL;
    }
    return take_c_string(env, outcome);
}

/* ------------------------------------------------------------------- fire */

/* libuv worker thread: no napi_* calls, no Handle access. */
static void fire_execute(napi_env env, void *data) {
    FireJob *job = data;
    (void)env;
    job->outcome = oh_hooks_fire(job->engine, job->envelope);
}

/* JS thread. */
static void fire_complete(napi_env env, napi_status status, void *data) {
    FireJob *job = data;
    Handle *h = job->handle;
    napi_value value = NULL;
    bool ok = false;

    /* Bookkeeping first, so nothing below can skip it. */
    free(job->envelope);
    job->envelope = NULL;
    h->in_flight--;
    if (h->in_flight == 0) {
        if (h->closed || h->finalized) release_engine(h); /* deferred close */
        if (h->finalized) free(h);
    }

    if (status == napi_ok && job->outcome) {
        ok = napi_create_string_utf8(env, job->outcome, NAPI_AUTO_LENGTH, &value) == napi_ok;
    }
    if (ok) {
        napi_resolve_deferred(env, job->deferred, value);
    } else {
        napi_value code = NULL, msg = NULL, err = NULL;
        const char *text = status == napi_cancelled ? "fire was cancelled"
                         : status != napi_ok        ? "fire failed in the addon"
                         : job->outcome == NULL     ? OOM_OUTCOME_MSG
                                                    : "could not convert the outcome to a JS string";
        napi_create_string_utf8(env, "internal", NAPI_AUTO_LENGTH, &code);
        napi_create_string_utf8(env, text, NAPI_AUTO_LENGTH, &msg);
        napi_create_error(env, code, msg, &err);
        napi_reject_deferred(env, job->deferred, err);
    }

    oh_hooks_string_free(job->outcome);
    napi_delete_reference(env, job->keep);
    napi_delete_async_work(env, job->work);
    free(job);
}

static napi_value js_fire(napi_env env, napi_callback_info info) {
    size_t argc = 2;
    napi_value argv[2], promise, name;
    Handle *h;
    FireJob *job;

    NAPI_OK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL), "napi_get_cb_info");
    if (argc < 2) {
        napi_throw_type_error(env, "ERR_MISSING_ARGS", "fire(handle, envelopeJson) needs 2 arguments");
        return NULL;
    }
    if (!(h = get_handle(env, argv[0], true))) return NULL;

    job = calloc(1, sizeof *job);
    if (!job) {
        throw_code(env, "internal", "oh-hooks addon: out of memory");
        return NULL;
    }
    job->handle = h;
    job->engine = h->engine;
    if (!(job->envelope = copy_string_arg(env, argv[1], "envelope JSON"))) goto fail;

    if (napi_create_string_utf8(env, "oh_hooks.fire", NAPI_AUTO_LENGTH, &name) != napi_ok) {
        throw_napi_failure(env, "napi_create_string_utf8");
        goto fail;
    }
    if (napi_create_reference(env, argv[0], 1, &job->keep) != napi_ok) {
        throw_napi_failure(env, "napi_create_reference");
        goto fail;
    }
    if (napi_create_async_work(env, NULL, name, fire_execute, fire_complete, job, &job->work) != napi_ok) {
        throw_napi_failure(env, "napi_create_async_work");
        goto fail;
    }
    if (napi_create_promise(env, &job->deferred, &promise) != napi_ok) {
        throw_napi_failure(env, "napi_create_promise");
        goto fail;
    }
    if (napi_queue_async_work(env, job->work) != napi_ok) {
        /* The promise exists but will never settle: reject it, then throw. */
        napi_value code = NULL, msg = NULL, err = NULL;
        napi_create_string_utf8(env, "internal", NAPI_AUTO_LENGTH, &code);
        napi_create_string_utf8(env, "napi_queue_async_work failed", NAPI_AUTO_LENGTH, &msg);
        napi_create_error(env, code, msg, &err);
        napi_reject_deferred(env, job->deferred, err);
        throw_napi_failure(env, "napi_queue_async_work");
        goto fail;
    }
    h->in_flight++;
    return promise;

fail:
    if (job->work) napi_delete_async_work(env, job->work);
    if (job->keep) napi_delete_reference(env, job->keep);
    free(job->envelope);
    free(job);
    return NULL;
}

/* ----------------------------------------------------------------- reload */

static napi_value js_reload(napi_env env, napi_callback_info info) {
    size_t argc = 1;
    napi_value argv[1];
    Handle *h;
    char *err = NULL;
    int rc;

    NAPI_OK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL), "napi_get_cb_info");
    if (argc < 1) {
        napi_throw_type_error(env, "ERR_MISSING_ARGS", "reload(handle) needs 1 argument");
        return NULL;
    }
    if (!(h = get_handle(env, argv[0], true))) return NULL;

    rc = oh_hooks_reload(h->engine, &err);
    if (rc == 0) {
        oh_hooks_string_free(err);
        return undefined_value(env);
    }
    if (err) return take_c_string(env, err);
    {
        char buf[128];
        napi_value v = NULL;
        snprintf(buf, sizeof buf,
                 "{\"code\":\"internal\",\"message\":\"oh_hooks_reload returned %d without an error report\"}", rc);
        napi_create_string_utf8(env, buf, NAPI_AUTO_LENGTH, &v);
        return v;
    }
}

/* ------------------------------------------------------------------ close */

static napi_value js_close(napi_env env, napi_callback_info info) {
    size_t argc = 1;
    napi_value argv[1], result;
    Handle *h;
    bool released_now;

    NAPI_OK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL), "napi_get_cb_info");
    if (argc < 1) {
        napi_throw_type_error(env, "ERR_MISSING_ARGS", "close(handle) needs 1 argument");
        return NULL;
    }
    if (!(h = get_handle(env, argv[0], false))) return NULL;

    h->closed = true; /* idempotent */
    released_now = h->in_flight == 0;
    if (released_now) release_engine(h);
    /* else: the last fire_complete releases it */
    NAPI_OK(env, napi_get_boolean(env, released_now, &result), "napi_get_boolean");
    return result;
}

/* ------------------------------------------------------------- closeAsync */

typedef struct {
    napi_async_work work;
    napi_deferred deferred;
    napi_ref keep;    /* strong ref to the external while queued */
    OhHooks *engine;  /* taken from the Handle on the JS thread; freed by the worker */
} CloseJob;

/* libuv worker thread: no napi_* calls. */
static void close_execute(napi_env env, void *data) {
    CloseJob *job = data;
    (void)env;
    oh_hooks_free(job->engine);
    job->engine = NULL;
}

/* JS thread. */
static void close_complete(napi_env env, napi_status status, void *data) {
    CloseJob *job = data;
    napi_value undef = NULL;
    if (job->engine) oh_hooks_free(job->engine); /* cancelled before it ran: free here */
    (void)status;
    napi_get_undefined(env, &undef);
    napi_resolve_deferred(env, job->deferred, undef);
    napi_delete_reference(env, job->keep);
    napi_delete_async_work(env, job->work);
    free(job);
}

static napi_value js_close_async(napi_env env, napi_callback_info info) {
    size_t argc = 1;
    napi_value argv[1], promise, name, undef;
    napi_deferred deferred;
    Handle *h;
    CloseJob *job;

    NAPI_OK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL), "napi_get_cb_info");
    if (argc < 1) {
        napi_throw_type_error(env, "ERR_MISSING_ARGS", "closeAsync(handle) needs 1 argument");
        return NULL;
    }
    if (!(h = get_handle(env, argv[0], false))) return NULL;
    h->closed = true; /* idempotent */
    if (h->in_flight > 0 || h->engine == NULL) {
        /* Nothing to free now: already released, or the last fire releases it. */
        NAPI_OK(env, napi_create_promise(env, &deferred, &promise), "napi_create_promise");
        NAPI_OK(env, napi_get_undefined(env, &undef), "napi_get_undefined");
        NAPI_OK(env, napi_resolve_deferred(env, deferred, undef), "napi_resolve_deferred");
        return promise;
    }
    job = calloc(1, sizeof *job);
    if (!job) {
        throw_code(env, "internal", "oh-hooks addon: out of memory");
        return NULL;
    }
    /* The handle lets go of the engine before the work is queued (the worker may start at
     * once); no other path frees it from here on. */
    job->engine = h->engine;
    h->engine = NULL;
    if (napi_create_string_utf8(env, "oh_hooks.close", NAPI_AUTO_LENGTH, &name) != napi_ok ||
        napi_create_reference(env, argv[0], 1, &job->keep) != napi_ok ||
        napi_create_async_work(env, NULL, name, close_execute, close_complete, job, &job->work) != napi_ok ||
        napi_create_promise(env, &job->deferred, &promise) != napi_ok ||
        napi_queue_async_work(env, job->work) != napi_ok) {
        /* Nothing queued: the handle owns its engine again (a later close() frees it). */
        throw_napi_failure(env, "queueing the close");
        h->engine = job->engine;
        if (job->work) napi_delete_async_work(env, job->work);
        if (job->keep) napi_delete_reference(env, job->keep);
        free(job);
        return NULL;
    }
    return promise;
}

static napi_value js_pending(napi_env env, napi_callback_info info) {
    size_t argc = 1;
    napi_value argv[1], result;
    Handle *h;

    NAPI_OK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL), "napi_get_cb_info");
    if (argc < 1) {
        napi_throw_type_error(env, "ERR_MISSING_ARGS", "pending(handle) needs 1 argument");
        return NULL;
    }
    if (!(h = get_handle(env, argv[0], false))) return NULL;
    NAPI_OK(env, napi_create_uint32(env, h->in_flight, &result), "napi_create_uint32");
    return result;
}

static napi_value js_version(napi_env env, napi_callback_info info) {
    napi_value v;
    const char *s = oh_hooks_version();
    (void)info;
    NAPI_OK(env, napi_create_string_utf8(env, s ? s : "", NAPI_AUTO_LENGTH, &v), "napi_create_string_utf8");
    return v;
}

/* ------------------------------------------------------------------- init */

#define STR_(x) #x
#define STR(x) STR_(x)

NAPI_MODULE_INIT() {
    napi_value header_version;
#if defined(OH_HOOKS_VERSION_MAJOR) && defined(OH_HOOKS_VERSION_MINOR) && defined(OH_HOOKS_VERSION_PATCH)
    const char *hv = STR(OH_HOOKS_VERSION_MAJOR) "." STR(OH_HOOKS_VERSION_MINOR) "." STR(OH_HOOKS_VERSION_PATCH);
#else
    const char *hv = "";
#endif
    NAPI_OK(env, napi_create_string_utf8(env, hv, NAPI_AUTO_LENGTH, &header_version), "napi_create_string_utf8");

    napi_property_descriptor props[] = {
        {"create", NULL, js_create, NULL, NULL, NULL, napi_enumerable, NULL},
        {"fireSync", NULL, js_fire_sync, NULL, NULL, NULL, napi_enumerable, NULL},
        {"fire", NULL, js_fire, NULL, NULL, NULL, napi_enumerable, NULL},
        {"reload", NULL, js_reload, NULL, NULL, NULL, napi_enumerable, NULL},
        {"close", NULL, js_close, NULL, NULL, NULL, napi_enumerable, NULL},
        {"closeAsync", NULL, js_close_async, NULL, NULL, NULL, napi_enumerable, NULL},
        {"pending", NULL, js_pending, NULL, NULL, NULL, napi_enumerable, NULL},
        {"version", NULL, js_version, NULL, NULL, NULL, napi_enumerable, NULL},
        {"headerVersion", NULL, NULL, NULL, NULL, header_version, napi_enumerable, NULL},
    };
    NAPI_OK(env, napi_define_properties(env, exports, sizeof props / sizeof props[0], props),
            "napi_define_properties");
    return exports;
}
