/*
 * oh-hooks Node.js addon: a thin N-API layer over the oh-hooks C ABI.
 *
 * The native side deals only in strings: options, envelopes and callback answers come in as
 * JSON text, outcomes, requests and records go out as JSON text. index.js does the
 * JSON.stringify / JSON.parse, keeps the registered functions and the pending promises, and
 * builds the errors, so this file stays small and has no policy of its own.
 *
 * Exports (all private to index.js):
 *   create(optionsJson | null, dispatch) -> external handle, or an error JSON string
 *   fireSync(handle, envelope)           -> outcome JSON string, or undefined for the engine's
 *                                           no-match outcome {"allowed":true,"hooks":[]}, which
 *                                           index.js builds without a string or JSON.parse
 *   fire(handle, envelope)               -> the engine's fire id (a Number); the outcome arrives
 *                                           later as dispatch(DONE, fireId, outcomeJson)
 *   cancel(handle, fireId)               -> undefined
 *   register(handle, name, regId)        -> undefined, or an error JSON string (regId 0: remove)
 *   respond(callId, responseJson | null) -> undefined (a late or repeated answer is ignored)
 *   observe(handle, on)                  -> undefined, or an error JSON string
 *   reload(handle)                       -> undefined, or an error JSON string
 *   close(handle)                        -> true if released now, false if deferred
 *   closeAsync(handle)                   -> Promise<void>: the engine is freed on the libuv thread
 *                                           pool (freeing waits for its background hooks, which
 *                                           must not block the event loop); with fires in flight
 *                                           it is close() (the last DONE releases the engine)
 *   pending(handle)                      -> number of fire() calls still in flight
 *   version()                            -> oh_hooks_version()
 *   headerVersion                        -> "MAJOR.MINOR.PATCH" of the header compiled against
 *
 * Everything that comes back from the engine reaches JS through ONE function, `dispatch`
 * (index.js), called as dispatch(kind, a, b, c):
 *   CALL   (0, regId, requestJson, callId) -> a response JSON string (answer now), null (no
 *          decision) or undefined (index.js answers later with respond(callId, ...))
 *   DONE   (1, fireId, outcomeJson)        -> an async fire finished (outcomeJson null: it could
 *                                             not be made a JS string)
 *   RECORD (2, recordJson)                 -> the decision observer's record
 *   RELEASE(3, regId)                      -> the engine dropped a registration
 *
 * Threading. Engine threads never touch JS. An async fire completes through
 * oh_hooks_fire_async_fd: the engine writes a 16-byte record (fire id, outcome pointer) to the
 * handle's pipe, whose read end a uv_poll_t watches on the env's own loop; the poll callback
 * reads the records and calls dispatch(DONE) on the JS thread. That is one pipe write and one
 * epoll wake-up per fire, where a threadsafe function (TSFN) also takes its queue's mutex on both
 * sides and wakes the loop through a uv_async_t (docs/performance.md, "Node `await fire` through
 * the completion pipe": 1.25-1.6x less wall time, 1.45x less JS-thread CPU). Callback calls,
 * observer records and registration releases still go through the handle's one TSFN: they
 * carry more than two words and are not on the no-hook round trip. The exception is a callback
 * hook run by fireSync: the engine calls it on the calling thread, which is the JS thread
 * inside fireSync, so dispatch is called directly (and a Promise answer is refused there:
 * nothing could settle it while fireSync blocks the thread).
 *
 * The pipe never fills, so an engine thread never waits on it and oh_hooks_free on the JS
 * thread (closeSync, env teardown) cannot wait for a read that only the JS thread would do:
 * the pipe is made 1 MiB (65536 records) where the system allows, and fire() drains it itself
 * (delivering the DONEs at once) whenever more fires are in flight than the pipe could hold
 * beside the engine's own bound (8 running + 4096 queued, after which it refuses at once).
 * A pipe the system keeps smaller is drained before every fire(), and fire() throws rather than
 * have more fires in flight than it holds.
 *
 * Lifetimes. The engine is freed (release_engine) before the TSFN is released, so no engine
 * thread can ever call a released TSFN; an env cleanup hook, registered after the TSFN (cleanup
 * hooks run in reverse order), does the same at environment teardown. While the engine is being
 * freed it is "closing": callbacks are answered at once with a failure and every call still
 * waiting for JS is answered too, so oh_hooks_free on the JS thread never waits for the JS
 * thread. The Handle struct is freed when the external and the TSFN are finalized and the poll
 * handle is closed (on_poll_closed, which also closes the pipe: only once the engine is freed, so
 * no engine thread can write to a closed, maybe reused, descriptor). A second, asynchronous env
 * cleanup hook closes the poll at teardown: Node runs the loop until its close callback ran.
 * close() with fires in flight only marks the handle closed; the last DONE releases the engine.
 */
#define _GNU_SOURCE /* pipe2 */
#define NAPI_VERSION 8
#include <node_api.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* libuv: Node exports it, but the npm package node-api-headers (how a machine without Node's own
 * headers builds this addon) ships no uv.h. Then the handful of libuv 1.x entry points used here
 * are declared by hand; the poll handle is allocated with uv_handle_size and reached through
 * uv_handle_get/set_data, so its layout is never needed. Where uv.h exists it is used, and the
 * two constants are checked against it. */
#if defined(__has_include)
#if __has_include(<uv.h>)
#include <uv.h>
#define OH_HAVE_UV_H 1
_Static_assert(UV_POLL == 8 && UV_READABLE == 1, "libuv constants declared below for builds without uv.h");
#endif
#endif
#ifndef OH_HAVE_UV_H
typedef struct uv_loop_s uv_loop_t;
typedef struct uv_handle_s uv_handle_t;
typedef struct uv_poll_s uv_poll_t;
typedef void (*uv_poll_cb)(uv_poll_t *handle, int status, int events);
typedef void (*uv_close_cb)(uv_handle_t *handle);
enum { UV_POLL = 8, UV_READABLE = 1 };
size_t uv_handle_size(int type);
int uv_poll_init(uv_loop_t *loop, uv_poll_t *handle, int fd);
int uv_poll_start(uv_poll_t *handle, int events, uv_poll_cb cb);
void uv_close(uv_handle_t *handle, uv_close_cb close_cb);
void uv_ref(uv_handle_t *handle);
void uv_unref(uv_handle_t *handle);
void *uv_handle_get_data(const uv_handle_t *handle);
void uv_handle_set_data(uv_handle_t *handle, void *data);
#endif

#include "oh_hooks.h"

enum { ITEM_CALL = 0, ITEM_DONE = 1, ITEM_RECORD = 2, ITEM_RELEASE = 3 };

/* What the engine may hold of one handle's fires before their records are written: 8 running
 * plus 4096 queued (oh_hooks_fire_async: beyond that it refuses at once, and a refused fire's
 * record is written at once), with room to spare. */
#define ENGINE_MAX_OUTSTANDING 4200

typedef struct Handle Handle;

/* One callback invocation handed to JS and not answered yet. Guarded by g_mu. */
typedef struct PendingCall {
    struct PendingCall *prev, *next; /* in g_calls while `listed` */
    Handle *h;
    OhHooksCall *call;
    double id;           /* what JS answers with (respond(callId, ...)) */
    uint32_t reg_id;
    char *request;       /* owned copy; freed once JS has it */
    bool listed;         /* unanswered */
    bool queued;         /* still in the TSFN queue: call_js owns the memory */
} PendingCall;

/* What one TSFN call carries to the JS thread. */
typedef struct {
    int kind;
    PendingCall *pc;     /* ITEM_CALL */
    char *text;          /* ITEM_RECORD: malloc'd */
    uint32_t reg_id;     /* ITEM_RELEASE */
} Item;

/* The user_data of one registration: which handle, and which JS function (by id). */
typedef struct {
    Handle *h;
    uint32_t reg_id;
} Reg;

struct Handle {
    OhHooks *engine;          /* NULL once released */
    napi_env env;             /* the env this handle lives in (JS thread only) */
    pthread_t js_thread;      /* the thread of `env`: immutable */
    napi_threadsafe_function tsfn;
    napi_ref dispatch;        /* strong; for callbacks run inside fireSync */
    uint32_t sync_depth;      /* fireSync calls on the stack (JS thread only) */
    uint32_t in_flight;       /* fire() calls whose DONE was not delivered (JS thread only) */
    uint32_t refs;            /* the external + the TSFN + the poll: Handle freed at 0 (JS thread only) */
    /* Completion of fire(): the engine writes records to wfd; `poll` watches rfd. JS thread only. */
    int rfd, wfd;             /* -1 when not open */
    uv_poll_t *poll;          /* uv_handle_size(UV_POLL) bytes; freed by on_poll_closed */
    uint32_t drain_at;        /* fire() drains the pipe itself from this many in flight */
    uint32_t cap_records;     /* records the pipe holds: never more fires in flight than this */
    unsigned char carry[16];  /* a partial record (never expected: pipe writes are atomic) */
    size_t carry_len;
    napi_async_context actx;  /* the poll callback's async context (microtasks run after it) */
    napi_async_cleanup_hook_handle ach; /* closes the poll at env teardown; NULL once removed */
    bool poll_open;           /* uv_poll_init done, uv_close not yet called */
    bool poll_refd;           /* the poll keeps the event loop alive (fires in flight) */
    bool closed;              /* close() was called: no new calls */
    bool finalized;           /* the external was garbage-collected */
    bool cleanup_hook;        /* env_cleanup is registered */
    bool closing;             /* the engine is being freed: answer callbacks at once (g_mu) */
    bool freeing;             /* closeAsync's worker is freeing the engine (g_mu, g_cv) */
};

/* The calls waiting for JS, of every handle in the process (worker threads included). */
static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_cv = PTHREAD_COND_INITIALIZER; /* a closeAsync worker finished */
static PendingCall *g_calls;
static double g_next_call_id;

/* Distinguishes our externals from any other external passed in by mistake. */
static const napi_type_tag HANDLE_TAG = {0x6f685f686f6f6b73ULL, 0x6e6f64652d763031ULL};

static const char OOM_OUTCOME_MSG[] = "oh_hooks_fire returned NULL (out of memory)";

/* Answers given by the addon itself. A failure is a deny with a reason, which is how the engine
 * reads a failed hook: it denies on blocking events, and the reason lands in the trace. */
static const char FAIL_CLOSED[] =
    "{\"decision\":\"deny\",\"reason\":\"callback not answered: the Hooks instance was closed\"}";
static const char FAIL_NOMEM[] =
    "{\"decision\":\"deny\",\"reason\":\"callback not answered: out of memory in the oh-hooks addon\"}";
static const char FAIL_JS[] =
    "{\"decision\":\"deny\",\"reason\":\"callback not answered: calling JavaScript failed in the oh-hooks addon\"}";

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

/* copy_string_arg into `small` (cap bytes) when the text fits there, which saves V8 measuring its
 * UTF-8 length first and a malloc; else into a new buffer. Free the result with free_string_arg. */
static char *read_string_arg(napi_env env, napi_value v, const char *what, char *small, size_t cap) {
    napi_valuetype t;
    size_t got = 0;
    char msg[160];

    if (napi_typeof(env, v, &t) != napi_ok || t != napi_string) {
        snprintf(msg, sizeof msg, "%s must be a string", what);
        napi_throw_type_error(env, "ERR_INVALID_ARG_TYPE", msg);
        return NULL;
    }
    if (napi_get_value_string_utf8(env, v, small, cap, &got) != napi_ok) {
        throw_napi_failure(env, "napi_get_value_string_utf8");
        return NULL;
    }
    /* V8 stops short of a character that does not fit (up to 4 bytes) and NUL-terminates: text
     * that ends more than 4 bytes before the end of the buffer is whole. */
    if (got + 5 > cap) return copy_string_arg(env, v, what);
    if (memchr(small, '\0', got) != NULL) {
        snprintf(msg, sizeof msg, "%s contains a NUL character, which cannot cross the C ABI", what);
        napi_throw_type_error(env, "ERR_INVALID_ARG_VALUE", msg);
        return NULL;
    }
    return small;
}

static void free_string_arg(char *s, const char *small) {
    if (s != small) free(s);
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

/* An error JSON string for an int-returning ABI call that failed. */
static napi_value error_result(napi_env env, char *err, const char *what, int rc) {
    char buf[160];
    napi_value v = NULL;
    if (err) return take_c_string(env, err);
    snprintf(buf, sizeof buf, "{\"code\":\"internal\",\"message\":\"%s returned %d without an error report\"}",
             what, rc);
    napi_create_string_utf8(env, buf, NAPI_AUTO_LENGTH, &v);
    return v;
}

static void unlink_call(PendingCall *pc) { /* g_mu held */
    if (pc->prev) pc->prev->next = pc->next;
    else g_calls = pc->next;
    if (pc->next) pc->next->prev = pc->prev;
    pc->prev = pc->next = NULL;
    pc->listed = false;
}

/* Answers the pending call `id` (any thread). A call already answered (by close, or twice from
 * JS) is ignored: the engine's call object is answered exactly once. */
static void answer_call(double id, const char *json) {
    PendingCall *pc;
    OhHooksCall *call = NULL;
    bool free_it = false;

    pthread_mutex_lock(&g_mu);
    for (pc = g_calls; pc; pc = pc->next) {
        if (pc->id == id) {
            call = pc->call;
            pc->call = NULL;
            unlink_call(pc);
            free_it = !pc->queued;
            break;
        }
    }
    pthread_mutex_unlock(&g_mu);
    if (call) oh_hooks_respond(call, json);
    if (free_it) {
        free(pc->request);
        free(pc);
    }
}

/* ---------------------------------------------------- engine -> JS (any thread) */

static void queue_item(Handle *h, Item *item) {
    /* The TSFN outlives the engine (released only after oh_hooks_free), and this runs only from
     * the engine's callbacks, so the TSFN is alive here. Its queue is unbounded: nonblocking
     * never fails for a full queue, only when the environment is going away. */
    if (napi_call_threadsafe_function(h->tsfn, item, napi_tsfn_nonblocking) != napi_ok) {
        free(item->text);
        free(item);
    }
}

/* Calls dispatch(CALL, ...) on the JS thread inside fireSync and answers from its result. */
static void call_js_inline(Handle *h, uint32_t reg_id, const char *request, OhHooksCall *call) {
    napi_env env = h->env;
    napi_handle_scope scope;
    napi_value fn, recv, argv[4], result;
    napi_valuetype t;
    char *answer = NULL;
    const char *reply = FAIL_JS;

    if (napi_open_handle_scope(env, &scope) != napi_ok) {
        oh_hooks_respond(call, FAIL_JS);
        return;
    }
    if (napi_get_reference_value(env, h->dispatch, &fn) == napi_ok && fn != NULL &&
        napi_get_undefined(env, &recv) == napi_ok &&
        napi_create_uint32(env, ITEM_CALL, &argv[0]) == napi_ok &&
        napi_create_uint32(env, reg_id, &argv[1]) == napi_ok &&
        napi_create_string_utf8(env, request, NAPI_AUTO_LENGTH, &argv[2]) == napi_ok &&
        napi_create_double(env, 0, &argv[3]) == napi_ok) {
        napi_status st = napi_call_function(env, recv, fn, 4, argv, &result);
        if (st == napi_ok && napi_typeof(env, result, &t) == napi_ok) {
            if (t == napi_null) {
                reply = NULL;
            } else if (t == napi_string) {
                size_t len = 0;
                if (napi_get_value_string_utf8(env, result, NULL, 0, &len) == napi_ok &&
                    (answer = malloc(len + 1)) != NULL &&
                    napi_get_value_string_utf8(env, result, answer, len + 1, &len) == napi_ok) {
                    reply = answer;
                } else {
                    reply = FAIL_NOMEM;
                }
            }
        } else {
            /* dispatch catches everything; if it threw anyway, keep the exception from
             * poisoning fireSync and fail the hook instead. */
            napi_value exc;
            bool pending = false;
            if (napi_is_exception_pending(env, &pending) == napi_ok && pending)
                napi_get_and_clear_last_exception(env, &exc);
        }
    }
    oh_hooks_respond(call, reply);
    free(answer);
    napi_close_handle_scope(env, scope);
}

/* OhHooksCallback: the engine asks a registered function. */
static void callback_trampoline(void *user_data, const char *request_json, OhHooksCall *call) {
    Reg *reg = user_data;
    Handle *h = reg->h;
    PendingCall *pc;
    Item *item;

    /* fireSync runs callback hooks on its own thread: JS can be called right here. */
    if (pthread_equal(pthread_self(), h->js_thread) && h->sync_depth > 0) {
        call_js_inline(h, reg->reg_id, request_json, call);
        return;
    }
    pc = calloc(1, sizeof *pc);
    item = calloc(1, sizeof *item);
    if (pc) pc->request = strdup(request_json ? request_json : "null");
    if (!pc || !item || !pc->request) {
        if (pc) free(pc->request);
        free(pc);
        free(item);
        oh_hooks_respond(call, FAIL_NOMEM);
        return;
    }
    pc->h = h;
    pc->call = call;
    pc->reg_id = reg->reg_id;
    item->kind = ITEM_CALL;
    item->pc = pc;

    pthread_mutex_lock(&g_mu);
    if (h->closing) {
        pthread_mutex_unlock(&g_mu);
        free(pc->request);
        free(pc);
        free(item);
        oh_hooks_respond(call, FAIL_CLOSED);
        return;
    }
    pc->id = ++g_next_call_id;
    pc->next = g_calls;
    if (g_calls) g_calls->prev = pc;
    g_calls = pc;
    pc->listed = true;
    pc->queued = true;
    pthread_mutex_unlock(&g_mu);

    if (napi_call_threadsafe_function(h->tsfn, item, napi_tsfn_nonblocking) != napi_ok) {
        pthread_mutex_lock(&g_mu);
        pc->queued = false;
        pthread_mutex_unlock(&g_mu);
        free(item);
        answer_call(pc->id, FAIL_CLOSED); /* frees pc: no longer queued */
    }
}

/* Runs when the engine drops a registration (replaced, or the engine freed). */
static void reg_release(void *user_data) {
    Reg *reg = user_data;
    Item *item = calloc(1, sizeof *item);
    if (item) {
        item->kind = ITEM_RELEASE;
        item->reg_id = reg->reg_id;
        queue_item(reg->h, item);
    }
    free(reg);
}

/* OhHooksObserver: one record per fire (engine thread or the firing thread). Always delivered
 * through the queue, so the observer runs on the event loop, never inside fireSync. */
static void observer_trampoline(void *user_data, const char *record_json) {
    Handle *h = user_data;
    Item *item = calloc(1, sizeof *item);
    if (!item) return;
    item->kind = ITEM_RECORD;
    item->text = strdup(record_json ? record_json : "null");
    if (!item->text) {
        free(item);
        return;
    }
    queue_item(h, item);
}

static void observer_release(void *user_data) { (void)user_data; }

/* ------------------------------------------------------- release and finalizers */

static void maybe_free_handle(Handle *h) {
    if (--h->refs == 0) free(h);
}

/* From now on callbacks of `h` are answered at once with a failure, and so is every call still
 * waiting for JS: freeing the engine then never waits for the JS thread. */
static void begin_closing(Handle *h) {
    PendingCall *pc, *next, *mine = NULL;

    pthread_mutex_lock(&g_mu);
    h->closing = true;
    for (pc = g_calls; pc; pc = next) {
        next = pc->next;
        if (pc->h != h) continue;
        unlink_call(pc);
        pc->next = mine; /* reuse the link for a private list */
        mine = pc;
    }
    pthread_mutex_unlock(&g_mu);
    for (pc = mine; pc; pc = next) {
        OhHooksCall *call = pc->call;
        bool free_it;
        next = pc->next;
        pthread_mutex_lock(&g_mu);
        pc->call = NULL;
        pc->next = NULL;
        free_it = !pc->queued;
        pthread_mutex_unlock(&g_mu);
        if (call) oh_hooks_respond(call, FAIL_CLOSED);
        if (free_it) {
            free(pc->request);
            free(pc);
        }
    }
}

/* Frees the engine on this thread, without ever waiting for the JS thread. */
static void free_engine(Handle *h) {
    OhHooks *e = h->engine;
    if (!e) return;
    h->engine = NULL;
    begin_closing(h);
    oh_hooks_free(e);
}

/* ------------------------------------------------ fire() completions (JS thread) */

static void release_engine(napi_env env, Handle *h);
static void maybe_free_handle(Handle *h);

/* Calls dispatch(DONE, id, outcome) and frees the outcome. A handle scope is open. */
static void deliver_done(napi_env env, Handle *h, uint64_t id, char *outcome) {
    napi_value fn, recv, argv[3], result;
    if (h->dispatch != NULL && napi_get_reference_value(env, h->dispatch, &fn) == napi_ok && fn != NULL &&
        napi_get_undefined(env, &recv) == napi_ok && napi_create_uint32(env, ITEM_DONE, &argv[0]) == napi_ok &&
        napi_create_double(env, (double)id, &argv[1]) == napi_ok) {
        if (outcome == NULL || napi_create_string_utf8(env, outcome, NAPI_AUTO_LENGTH, &argv[2]) != napi_ok)
            napi_get_null(env, &argv[2]); /* index.js rejects the fire: no outcome */
        if (napi_call_function(env, recv, fn, 3, argv, &result) != napi_ok) {
            napi_value exc; /* dispatch catches everything; never let a throw escape the loop */
            napi_get_and_clear_last_exception(env, &exc);
        }
    }
    oh_hooks_string_free(outcome);
}

/* Handles one whole record: with `deliver`, through dispatch; else (teardown) frees its outcome. */
static void take_record(napi_env env, Handle *h, const unsigned char *rec, bool deliver) {
    uint64_t id, addr;
    char *outcome;
    memcpy(&id, rec, 8);
    memcpy(&addr, rec + 8, 8);
    outcome = (char *)(uintptr_t)addr;
    /* No fire has id 0 (and fire() never counted one): drop whatever carries it. */
    if (id == 0 || !deliver) {
        oh_hooks_string_free(outcome);
        return;
    }
    if (h->in_flight > 0) h->in_flight--;
    deliver_done(env, h, id, outcome);
}

/* Reads every record waiting in the pipe (rfd is non-blocking). With `deliver` each settles its
 * fire through dispatch (a handle scope is open); without it (the engine is gone, env teardown)
 * the outcomes are only freed. */
static void read_records(napi_env env, Handle *h, bool deliver) {
    unsigned char buf[16 * 64];
    for (;;) {
        size_t have = h->carry_len, room = sizeof buf - h->carry_len, i;
        ssize_t n;
        memcpy(buf, h->carry, have);
        n = read(h->rfd, buf + have, room);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return; /* EAGAIN: drained (EOF cannot happen: we hold wfd) */
        have += (size_t)n;
        /* dispatch runs no user code synchronously (it settles promises), so nothing re-enters
         * this function while a batch is being handed out. */
        for (i = 0; i + 16 <= have; i += 16) take_record(env, h, buf + i, deliver);
        h->carry_len = have - i;
        memcpy(h->carry, buf + i, h->carry_len);
        if ((size_t)n < room) return; /* a short read: the pipe is empty */
    }
}

/* libuv: the pipe is readable. The records are delivered inside a callback scope, so promise
 * reactions and process.nextTick run when it closes, as after any libuv callback of Node's. */
static void on_pipe_readable(uv_poll_t *poll, int status, int events) {
    Handle *h = uv_handle_get_data((uv_handle_t *)poll);
    napi_env env = h->env;
    napi_handle_scope hs;
    napi_callback_scope cs;
    napi_value resource;
    (void)status;
    (void)events;
    if (napi_open_handle_scope(env, &hs) != napi_ok) return;
    if (napi_create_object(env, &resource) == napi_ok &&
        napi_open_callback_scope(env, resource, h->actx, &cs) == napi_ok) {
        read_records(env, h, true);
        napi_close_callback_scope(env, cs);
    }
    /* JS may have fired again, or closed the handle (then the poll is closing already). */
    if (h->in_flight == 0) {
        if (h->poll_open && h->poll_refd) {
            uv_unref((uv_handle_t *)h->poll);
            h->poll_refd = false;
        }
        if (h->closed || h->finalized) release_engine(env, h); /* deferred close */
    }
    napi_close_handle_scope(env, hs);
}

static void on_poll_closed(uv_handle_t *handle) {
    Handle *h = uv_handle_get_data(handle);
    free(h->poll);
    h->poll = NULL;
    if (h->rfd >= 0) close(h->rfd);
    if (h->wfd >= 0) close(h->wfd);
    h->rfd = h->wfd = -1;
    if (h->ach) {
        napi_async_cleanup_hook_handle ach = h->ach;
        h->ach = NULL;
        napi_remove_async_cleanup_hook(ach);
    }
    maybe_free_handle(h);
}

/* JS thread, once the engine is freed (so every record has been written and none will be):
 * frees what no one will read and closes the poll; its close callback closes the pipe. */
static void close_pipe(napi_env env, Handle *h) {
    if (!h->poll_open) return;
    h->poll_open = false;
    read_records(env, h, false);
    if (h->actx) {
        napi_async_destroy(env, h->actx);
        h->actx = NULL;
    }
    uv_close((uv_handle_t *)h->poll, on_poll_closed);
}

/* Environment teardown (worker termination, process end): the engine is freed first (env_cleanup
 * ran before, hooks run in reverse order; this is for safety), then the poll is closed; Node
 * keeps the loop running until on_poll_closed removes this hook. */
static void env_async_cleanup(napi_async_cleanup_hook_handle ach, void *arg) {
    Handle *h = arg;
    (void)ach;
    free_engine(h);
    pthread_mutex_lock(&g_mu);
    while (h->freeing) pthread_cond_wait(&g_cv, &g_mu);
    pthread_mutex_unlock(&g_mu);
    close_pipe(h->env, h); /* no-op when already closing: on_poll_closed removes the hook */
}

/* Makes the pipe and starts watching it on the env's loop; 0, or -1 with errno-ish failure
 * thrown as a JS error by the caller. */
static int open_pipe(napi_env env, Handle *h) {
    int fds[2], cap;
    uv_loop_t *loop = NULL;
    napi_value resource, name;

    h->rfd = h->wfd = -1;
    if (napi_get_uv_event_loop(env, &loop) != napi_ok || loop == NULL) return -1;
    /* Close-on-exec: a hook process spawned meanwhile by an engine thread must not inherit it. */
#ifdef __linux__
    if (pipe2(fds, O_CLOEXEC) != 0) return -1;
#else
    if (pipe(fds) != 0) return -1;
#endif
    h->rfd = fds[0];
    h->wfd = fds[1];
    /* Non-blocking for reads only: the engine's writes never find the pipe full (see the top). */
    if (fcntl(h->rfd, F_SETFD, FD_CLOEXEC) != 0 || fcntl(h->wfd, F_SETFD, FD_CLOEXEC) != 0 ||
        fcntl(h->rfd, F_SETFL, O_NONBLOCK) != 0)
        goto fail;
#ifdef F_SETPIPE_SZ
    fcntl(h->wfd, F_SETPIPE_SZ, 1 << 20); /* best effort: the limit may be lower */
    cap = fcntl(h->wfd, F_GETPIPE_SZ);
#else
    cap = 65536;
#endif
    cap = cap > 0 ? cap / 16 : 0;
    h->cap_records = (uint32_t)cap;
    h->drain_at = cap > 2 * ENGINE_MAX_OUTSTANDING ? (uint32_t)(cap - ENGINE_MAX_OUTSTANDING) : 0;
    if (napi_create_object(env, &resource) != napi_ok ||
        napi_create_string_utf8(env, "oh_hooks.fire", NAPI_AUTO_LENGTH, &name) != napi_ok ||
        napi_async_init(env, resource, name, &h->actx) != napi_ok)
        goto fail;
    if (!(h->poll = malloc(uv_handle_size(UV_POLL)))) goto fail;
    if (uv_poll_init(loop, h->poll, h->rfd) != 0) {
        free(h->poll);
        h->poll = NULL;
        goto fail;
    }
    uv_handle_set_data((uv_handle_t *)h->poll, h);
    h->poll_open = true;
    h->refs++; /* the poll: on_poll_closed drops it */
    /* Idle, the poll must not keep the process alive; fire() refs it while fires are in flight. */
    uv_unref((uv_handle_t *)h->poll);
    if (uv_poll_start(h->poll, UV_READABLE, on_pipe_readable) != 0) return -1; /* caller closes */
    return 0;
fail:
    if (h->actx) {
        napi_async_destroy(env, h->actx);
        h->actx = NULL;
    }
    close(h->rfd);
    close(h->wfd);
    h->rfd = h->wfd = -1;
    return -1;
}

/* Environment teardown (process exit, worker termination): runs before the TSFN's own cleanup. */
static void env_cleanup(void *arg) {
    Handle *h = arg;
    h->cleanup_hook = false;
    free_engine(h);
    /* A closeAsync worker may still be freeing it: engine threads may use the TSFN until then. */
    pthread_mutex_lock(&g_mu);
    while (h->freeing) pthread_cond_wait(&g_cv, &g_mu);
    pthread_mutex_unlock(&g_mu);
}

/* JS thread, once the engine is freed: nothing will use the TSFN or the dispatch function again. */
static void finish_release(napi_env env, Handle *h) {
    if (h->cleanup_hook) {
        napi_remove_env_cleanup_hook(env, env_cleanup, h);
        h->cleanup_hook = false;
    }
    if (h->dispatch) {
        napi_delete_reference(env, h->dispatch);
        h->dispatch = NULL;
    }
    /* Items already queued (records, releases) are still delivered; then the TSFN finalizes. */
    napi_release_threadsafe_function(h->tsfn, napi_tsfn_release);
    close_pipe(env, h);
}

/* JS thread: the engine is no longer needed (closed or collected, no fire in flight). */
static void release_engine(napi_env env, Handle *h) {
    if (!h->engine) return; /* released already, or a closeAsync worker is freeing it */
    free_engine(h);
    finish_release(env, h);
}

static void finalize_handle(napi_env env, void *data, void *hint) {
    Handle *h = data;
    (void)hint;
    h->finalized = true;
    /* Each fire in flight is held by index.js, so in_flight is 0 here except at environment
     * teardown, when env_cleanup has freed the engine already. */
    if (h->in_flight == 0) release_engine(env, h);
    maybe_free_handle(h);
}

static void finalize_tsfn(napi_env env, void *data, void *hint) {
    Handle *h = data;
    (void)env;
    (void)hint;
    maybe_free_handle(h);
}

/* JS thread: one queued item. env is NULL when the TSFN is torn down with items left. */
static void call_js(napi_env env, napi_value js_cb, void *context, void *data) {
    Handle *h = context;
    Item *item = data;
    napi_value recv, argv[4], result;
    size_t argc = 0;
    bool deliver = env != NULL && js_cb != NULL;

    switch (item->kind) {
    case ITEM_CALL: {
        PendingCall *pc = item->pc;
        bool listed;
        pthread_mutex_lock(&g_mu);
        pc->queued = false;
        listed = pc->listed;
        pthread_mutex_unlock(&g_mu);
        if (!listed) { /* answered already (the engine was freed) */
            free(pc->request);
            free(pc);
            break;
        }
        if (!deliver || napi_create_uint32(env, ITEM_CALL, &argv[0]) != napi_ok ||
            napi_create_uint32(env, pc->reg_id, &argv[1]) != napi_ok ||
            napi_create_string_utf8(env, pc->request, NAPI_AUTO_LENGTH, &argv[2]) != napi_ok ||
            napi_create_double(env, pc->id, &argv[3]) != napi_ok) {
            answer_call(pc->id, FAIL_JS);
            break;
        }
        {
            double id = pc->id;
            napi_valuetype t = napi_undefined;
            napi_status st;
            /* From here JS may answer (and so free pc) at any time. */
            free(pc->request);
            pc->request = NULL;
            napi_get_undefined(env, &recv);
            st = napi_call_function(env, recv, js_cb, 4, argv, &result);
            if (st != napi_ok) {
                napi_value exc;
                napi_get_and_clear_last_exception(env, &exc);
                answer_call(id, FAIL_JS);
            } else if (napi_typeof(env, result, &t) == napi_ok && t == napi_null) {
                answer_call(id, NULL);
            } else if (t == napi_string) {
                size_t len = 0;
                char *answer = NULL;
                if (napi_get_value_string_utf8(env, result, NULL, 0, &len) == napi_ok &&
                    (answer = malloc(len + 1)) != NULL &&
                    napi_get_value_string_utf8(env, result, answer, len + 1, &len) == napi_ok) {
                    answer_call(id, answer);
                } else {
                    answer_call(id, FAIL_NOMEM);
                }
                free(answer);
            }
            /* undefined: index.js answers later through respond(). */
        }
        break;
    }
    case ITEM_RECORD:
        if (deliver && napi_create_uint32(env, ITEM_RECORD, &argv[0]) == napi_ok &&
            napi_create_string_utf8(env, item->text, NAPI_AUTO_LENGTH, &argv[1]) == napi_ok)
            argc = 2;
        free(item->text);
        item->text = NULL;
        break;
    case ITEM_RELEASE:
        if (deliver && napi_create_uint32(env, ITEM_RELEASE, &argv[0]) == napi_ok &&
            napi_create_uint32(env, item->reg_id, &argv[1]) == napi_ok)
            argc = 2;
        break;
    }
    if (argc > 0) {
        napi_get_undefined(env, &recv);
        if (napi_call_function(env, recv, js_cb, argc, argv, &result) != napi_ok) {
            napi_value exc;
            napi_get_and_clear_last_exception(env, &exc);
        }
    }
    (void)h;
    free(item);
}

/* ----------------------------------------------------------------- create */

static napi_value js_create(napi_env env, napi_callback_info info) {
    size_t argc = 2;
    napi_value argv[2], ext, name;
    napi_valuetype t = napi_undefined;
    char *options = NULL, *err = NULL;
    OhHooks *engine;
    Handle *h;

    NAPI_OK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL), "napi_get_cb_info");
    if (argc < 2) {
        napi_throw_type_error(env, "ERR_MISSING_ARGS", "create(optionsJson, dispatch) needs 2 arguments");
        return NULL;
    }
    NAPI_OK(env, napi_typeof(env, argv[1], &t), "napi_typeof");
    if (t != napi_function) {
        napi_throw_type_error(env, "ERR_INVALID_ARG_TYPE", "dispatch must be a function");
        return NULL;
    }
    NAPI_OK(env, napi_typeof(env, argv[0], &t), "napi_typeof");
    if (t != napi_undefined && t != napi_null) {
        options = copy_string_arg(env, argv[0], "options JSON");
        if (!options) return NULL;
    }

    engine = oh_hooks_new(options, &err);
    free(options);
    if (!engine) return error_result(env, err, "oh_hooks_new", 0);
    oh_hooks_string_free(err); /* NULL on success, but be defensive */

    h = calloc(1, sizeof *h);
    if (!h) {
        oh_hooks_free(engine);
        throw_code(env, "internal", "oh-hooks addon: out of memory");
        return NULL;
    }
    h->engine = engine;
    h->env = env;
    h->js_thread = pthread_self();
    if (napi_create_string_utf8(env, "oh_hooks", NAPI_AUTO_LENGTH, &name) != napi_ok ||
        napi_create_threadsafe_function(env, argv[1], NULL, name, 0, 1, h, finalize_tsfn, h, call_js,
                                        &h->tsfn) != napi_ok) {
        oh_hooks_free(engine);
        free(h);
        throw_napi_failure(env, "napi_create_threadsafe_function");
        return NULL;
    }
    h->refs = 1; /* the TSFN */
    /* The TSFN never keeps the process alive: while a fire is in flight, the poll does. */
    napi_unref_threadsafe_function(env, h->tsfn);
    /* Cleanup hooks run in reverse order: env_cleanup (frees the engine), then the pipe's
     * (closes the poll), then the TSFN's. */
    if (open_pipe(env, h) != 0) {
        char buf[200];
        snprintf(buf, sizeof buf, "oh-hooks addon: cannot set up the completion pipe of fire(): %s",
                 errno ? strerror(errno) : "libuv or N-API refused");
        oh_hooks_free(engine);
        h->engine = NULL;
        close_pipe(env, h); /* when the poll was made: its close callback drops its ref */
        napi_release_threadsafe_function(h->tsfn, napi_tsfn_abort); /* the last ref frees h */
        throw_code(env, "internal", buf);
        return NULL;
    }
    if (napi_add_async_cleanup_hook(env, env_async_cleanup, h, &h->ach) != napi_ok ||
        napi_create_reference(env, argv[1], 1, &h->dispatch) != napi_ok ||
        napi_add_env_cleanup_hook(env, env_cleanup, h) != napi_ok) {
        throw_napi_failure(env, "setting up the Hooks instance");
        if (h->dispatch) napi_delete_reference(env, h->dispatch);
        oh_hooks_free(engine);
        h->engine = NULL;
        h->dispatch = NULL;
        close_pipe(env, h); /* on_poll_closed removes the async hook, if added */
        napi_release_threadsafe_function(h->tsfn, napi_tsfn_abort); /* the last ref frees h */
        return NULL;
    }
    h->cleanup_hook = true;
    if (napi_create_external(env, h, finalize_handle, NULL, &ext) != napi_ok) {
        release_engine(env, h);
        throw_napi_failure(env, "napi_create_external");
        return NULL;
    }
    h->refs++; /* the external */
    /* Tagging an external needs a Node that supports it; without it get_handle skips the check. */
    napi_type_tag_object(env, ext, &HANDLE_TAG);
    return ext;
}

/* --------------------------------------------------------------- fireSync */

/* The engine's outcome when no hook ran (a constant of the engine, pinned by its tests and by
 * test/envelope.test.js here). */
static const char NOTHING_RAN[] = "{\"allowed\":true,\"hooks\":[]}";

static napi_value js_fire_sync(napi_env env, napi_callback_info info) {
    size_t argc = 2;
    napi_value argv[2];
    Handle *h;
    char *envelope, *outcome;
    char small[4096];

    NAPI_OK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL), "napi_get_cb_info");
    if (argc < 2) {
        napi_throw_type_error(env, "ERR_MISSING_ARGS", "fireSync(handle, envelopeJson) needs 2 arguments");
        return NULL;
    }
    if (!(h = get_handle(env, argv[0], true))) return NULL;
    if (!(envelope = read_string_arg(env, argv[1], "envelope JSON", small, sizeof small))) return NULL;

    h->sync_depth++;
    outcome = oh_hooks_fire(h->engine, envelope);
    h->sync_depth--;
    free_string_arg(envelope, small);
    if (!outcome) {
        throw_code(env, "internal", OOM_OUTCOME_MSG);
        return NULL;
    }
    if (strcmp(outcome, NOTHING_RAN) == 0) {
        oh_hooks_string_free(outcome);
        return undefined_value(env);
    }
    return take_c_string(env, outcome);
}

/* ------------------------------------------------------------------- fire */

static napi_value js_fire(napi_env env, napi_callback_info info) {
    size_t argc = 2;
    napi_value argv[2], result;
    Handle *h;
    char *envelope;
    uint64_t id;

    NAPI_OK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL), "napi_get_cb_info");
    if (argc < 2) {
        napi_throw_type_error(env, "ERR_MISSING_ARGS", "fire(handle, envelopeJson) needs 2 arguments");
        return NULL;
    }
    if (!(h = get_handle(env, argv[0], true))) return NULL;
    if (!h->poll_open) {
        throw_code(env, "internal", "oh-hooks addon: this instance has no completion pipe");
        return NULL;
    }
    if (!(envelope = copy_string_arg(env, argv[1], "envelope JSON"))) return NULL;

    /* Keep the pipe from ever filling (see the top): settle what is waiting in it first. */
    if (h->in_flight >= h->drain_at) {
        napi_handle_scope hs;
        if (napi_open_handle_scope(env, &hs) == napi_ok) {
            read_records(env, h, true);
            napi_close_handle_scope(env, hs);
        }
    }
    /* Unread records never outnumber the fires in flight, so with no more fires in flight than
     * the pipe holds, no write to it ever waits. A 1 MiB pipe holds more than the engine ever
     * keeps (then this never refuses); a pipe the system kept small (a user over its pipe
     * memory limit gets one page, 256 records) refuses here instead of risking a JS thread
     * blocked in the engine's write of a refused fire. */
    if (h->in_flight >= h->cap_records) {
        char msg[200];
        free(envelope);
        snprintf(msg, sizeof msg,
                 "%u fires are already in flight on this Hooks instance, as many as its completion pipe holds; "
                 "await some before firing more",
                 h->in_flight);
        throw_code(env, "internal", msg);
        return NULL;
    }
    /* Exactly one record per fire, a refused one included (written at once, on this thread): it
     * is read on this thread, after this returns. */
    id = oh_hooks_fire_async_fd(h->engine, envelope, h->wfd);
    free(envelope);
    if (id == 0) {
        throw_code(env, "internal", "oh_hooks_fire_async_fd returned 0 (no fire was started)");
        return NULL;
    }
    if (h->in_flight++ == 0 && !h->poll_refd) {
        uv_ref((uv_handle_t *)h->poll);
        h->poll_refd = true;
    }
    /* Fire ids count up from 1 per engine: a double holds them exactly (up to 2^53). */
    NAPI_OK(env, napi_create_double(env, (double)id, &result), "napi_create_double");
    return result;
}

static napi_value js_cancel(napi_env env, napi_callback_info info) {
    size_t argc = 2;
    napi_value argv[2];
    Handle *h;
    double id = 0;

    NAPI_OK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL), "napi_get_cb_info");
    if (argc < 2) {
        napi_throw_type_error(env, "ERR_MISSING_ARGS", "cancel(handle, fireId) needs 2 arguments");
        return NULL;
    }
    if (!(h = get_handle(env, argv[0], false))) return NULL;
    NAPI_OK(env, napi_get_value_double(env, argv[1], &id), "napi_get_value_double");
    if (!(id >= 1 && id < 9007199254740992.0)) return undefined_value(env); /* not a fire id */
    /* A closed-but-not-released engine still runs its fires: cancel them too. After release
     * every fire has finished, and cancelling a finished fire does nothing anyway. */
    if (h->engine) oh_hooks_cancel(h->engine, (uint64_t)id);
    return undefined_value(env);
}

/* -------------------------------------------------------- callbacks, observer */

static napi_value js_register(napi_env env, napi_callback_info info) {
    size_t argc = 3;
    napi_value argv[3];
    Handle *h;
    char *name, *err = NULL;
    uint32_t reg_id;
    Reg *reg;
    int rc;

    NAPI_OK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL), "napi_get_cb_info");
    if (argc < 3) {
        napi_throw_type_error(env, "ERR_MISSING_ARGS", "register(handle, name, regId) needs 3 arguments");
        return NULL;
    }
    if (!(h = get_handle(env, argv[0], true))) return NULL;
    NAPI_OK(env, napi_get_value_uint32(env, argv[2], &reg_id), "napi_get_value_uint32");
    if (!(name = copy_string_arg(env, argv[1], "callback name"))) return NULL;
    if (reg_id == 0) { /* remove the registration */
        rc = oh_hooks_register(h->engine, name, NULL, NULL, NULL, &err);
        free(name);
        if (rc == 0) {
            oh_hooks_string_free(err);
            return undefined_value(env);
        }
        return error_result(env, err, "oh_hooks_register", rc);
    }
    reg = malloc(sizeof *reg);
    if (!reg) {
        free(name);
        throw_code(env, "internal", "oh-hooks addon: out of memory");
        return NULL;
    }
    reg->h = h;
    reg->reg_id = reg_id;
    rc = oh_hooks_register(h->engine, name, callback_trampoline, reg, reg_release, &err);
    free(name);
    if (rc == 0) {
        oh_hooks_string_free(err);
        return undefined_value(env);
    }
    /* A refused registration does not keep user_data, so release is not called for it. */
    free(reg);
    return error_result(env, err, "oh_hooks_register", rc);
}

static napi_value js_respond(napi_env env, napi_callback_info info) {
    size_t argc = 2;
    napi_value argv[2];
    napi_valuetype t = napi_undefined;
    double id;
    char *json = NULL;

    NAPI_OK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL), "napi_get_cb_info");
    if (argc < 2) {
        napi_throw_type_error(env, "ERR_MISSING_ARGS", "respond(callId, responseJson) needs 2 arguments");
        return NULL;
    }
    NAPI_OK(env, napi_get_value_double(env, argv[0], &id), "napi_get_value_double");
    NAPI_OK(env, napi_typeof(env, argv[1], &t), "napi_typeof");
    if (t != napi_null && t != napi_undefined) {
        if (!(json = copy_string_arg(env, argv[1], "response JSON"))) {
            /* Still answer the engine, so the hook does not wait for its timeout. */
            answer_call(id, FAIL_JS);
            return NULL;
        }
    }
    answer_call(id, json);
    free(json);
    return undefined_value(env);
}

static napi_value js_observe(napi_env env, napi_callback_info info) {
    size_t argc = 2;
    napi_value argv[2];
    Handle *h;
    bool on = false;
    char *err = NULL;
    int rc;

    NAPI_OK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL), "napi_get_cb_info");
    if (argc < 2) {
        napi_throw_type_error(env, "ERR_MISSING_ARGS", "observe(handle, on) needs 2 arguments");
        return NULL;
    }
    if (!(h = get_handle(env, argv[0], true))) return NULL;
    NAPI_OK(env, napi_get_value_bool(env, argv[1], &on), "napi_get_value_bool");
    rc = oh_hooks_observe(h->engine, on ? observer_trampoline : NULL, h, on ? observer_release : NULL, &err);
    if (rc == 0) {
        oh_hooks_string_free(err);
        return undefined_value(env);
    }
    return error_result(env, err, "oh_hooks_observe", rc);
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
    return error_result(env, err, "oh_hooks_reload", rc);
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
    if (h->sync_depth > 0) {
        /* From a callback run by fireSync: the engine is in use on this very stack. */
        throw_code(env, "closed_in_callback",
                   "close() cannot be called from a callback that fireSync is running; close after it returns");
        return NULL;
    }

    h->closed = true; /* idempotent */
    released_now = h->in_flight == 0;
    if (released_now) release_engine(env, h);
    /* else: the last DONE releases it */
    NAPI_OK(env, napi_get_boolean(env, released_now, &result), "napi_get_boolean");
    return result;
}

/* ------------------------------------------------------------- closeAsync */

typedef struct {
    napi_async_work work;
    napi_deferred deferred;
    napi_ref keep;   /* strong ref to the external while queued */
    Handle *h;       /* JS thread only */
    OhHooks *engine; /* taken from the Handle on the JS thread; freed by the worker */
} CloseJob;

/* libuv worker thread: no napi_* calls. Callbacks arriving meanwhile are answered at once
 * (begin_closing ran), and records still go through the TSFN, released only afterwards. */
static void close_execute(napi_env env, void *data) {
    CloseJob *job = data;
    (void)env;
    oh_hooks_free(job->engine);
    job->engine = NULL;
    pthread_mutex_lock(&g_mu);
    job->h->freeing = false;
    pthread_cond_broadcast(&g_cv);
    pthread_mutex_unlock(&g_mu);
}

/* JS thread. */
static void close_complete(napi_env env, napi_status status, void *data) {
    CloseJob *job = data;
    napi_value undef = NULL;
    (void)status;
    if (job->engine) { /* cancelled before it ran: free here */
        oh_hooks_free(job->engine);
        pthread_mutex_lock(&g_mu);
        job->h->freeing = false;
        pthread_mutex_unlock(&g_mu);
    }
    finish_release(env, job->h);
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
    if (h->sync_depth > 0) {
        throw_code(env, "closed_in_callback",
                   "the engine cannot be freed from a callback that fireSync is running; close after it returns");
        return NULL;
    }
    h->closed = true; /* idempotent */
    if (h->in_flight > 0 || h->engine == NULL) {
        /* Nothing to free now: already released (or being freed), or the last DONE releases it. */
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
    job->h = h;
    if (napi_create_string_utf8(env, "oh_hooks.close", NAPI_AUTO_LENGTH, &name) != napi_ok ||
        napi_create_reference(env, argv[0], 1, &job->keep) != napi_ok ||
        napi_create_async_work(env, NULL, name, close_execute, close_complete, job, &job->work) != napi_ok ||
        napi_create_promise(env, &job->deferred, &promise) != napi_ok) {
        throw_napi_failure(env, "preparing the close");
        if (job->work) napi_delete_async_work(env, job->work);
        if (job->keep) napi_delete_reference(env, job->keep);
        free(job);
        return NULL;
    }
    /* The handle lets go of the engine before the work is queued (the worker may start at once);
     * no other path frees it from here on. */
    begin_closing(h);
    job->engine = h->engine;
    h->engine = NULL;
    pthread_mutex_lock(&g_mu);
    h->freeing = true;
    pthread_mutex_unlock(&g_mu);
    if (napi_queue_async_work(env, job->work) != napi_ok) {
        /* Not queued: free it here, on this thread, as close() would. */
        h->engine = job->engine;
        pthread_mutex_lock(&g_mu);
        h->freeing = false;
        pthread_mutex_unlock(&g_mu);
        release_engine(env, h);
        napi_get_undefined(env, &undef);
        napi_resolve_deferred(env, job->deferred, undef);
        napi_delete_reference(env, job->keep);
        napi_delete_async_work(env, job->work);
        free(job);
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
        {"cancel", NULL, js_cancel, NULL, NULL, NULL, napi_enumerable, NULL},
        {"register", NULL, js_register, NULL, NULL, NULL, napi_enumerable, NULL},
        {"respond", NULL, js_respond, NULL, NULL, NULL, napi_enumerable, NULL},
        {"observe", NULL, js_observe, NULL, NULL, NULL, napi_enumerable, NULL},
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
