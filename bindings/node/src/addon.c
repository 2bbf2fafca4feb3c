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
 *   fireSync(handle, envelope)           -> outcome JSON string
 *   fire(handle, envelope, ticket)       -> the engine's fire id (BigInt); the outcome arrives
 *                                           later as dispatch(DONE, ticket, outcomeJson)
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
 *   DONE   (1, ticket, outcomeJson)        -> an async fire finished
 *   RECORD (2, recordJson)                 -> the decision observer's record
 *   RELEASE(3, regId)                      -> the engine dropped a registration
 *
 * Threading. Engine threads never touch JS: they queue an Item on the handle's one
 * threadsafe function (TSFN), which calls dispatch on the JS thread. The exception is a
 * callback hook run by fireSync: the engine calls it on the calling thread, which is the JS
 * thread inside fireSync, so dispatch is called directly (and a Promise answer is refused
 * there: nothing could settle it while fireSync blocks the thread).
 *
 * Lifetimes. The engine is freed (release_engine) before the TSFN is released, so no engine
 * thread can ever call a released TSFN; an env cleanup hook, registered after the TSFN (cleanup
 * hooks run in reverse order), does the same at environment teardown. While the engine is being
 * freed it is "closing": callbacks are answered at once with a failure and every call still
 * waiting for JS is answered too, so oh_hooks_free on the JS thread never waits for the JS
 * thread. The Handle struct is freed when both the external and the TSFN are finalized.
 * close() with fires in flight only marks the handle closed; the last DONE releases the engine.
 */
#define NAPI_VERSION 8
#include <node_api.h>

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oh_hooks.h"

enum { ITEM_CALL = 0, ITEM_DONE = 1, ITEM_RECORD = 2, ITEM_RELEASE = 3 };

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
    double ticket;       /* ITEM_DONE */
    char *text;          /* ITEM_DONE: owned outcome (oh_hooks_string_free); ITEM_RECORD: malloc'd */
    uint32_t reg_id;     /* ITEM_RELEASE */
} Item;

/* The user_data of one registration: which handle, and which JS function (by id). */
typedef struct {
    Handle *h;
    uint32_t reg_id;
} Reg;

/* The user_data of one async fire. */
typedef struct {
    Handle *h;
    double ticket;
} FireJob;

struct Handle {
    OhHooks *engine;          /* NULL once released */
    napi_env env;             /* the env this handle lives in (JS thread only) */
    pthread_t js_thread;      /* the thread of `env`: immutable */
    napi_threadsafe_function tsfn;
    napi_ref dispatch;        /* strong; for callbacks run inside fireSync */
    uint32_t sync_depth;      /* fireSync calls on the stack (JS thread only) */
    uint32_t in_flight;       /* fire() calls whose DONE was not delivered (JS thread only) */
    uint32_t refs;            /* the external + the TSFN: Handle freed at 0 (JS thread only) */
    bool closed;              /* close() was called: no new calls */
    bool finalized;           /* the external was garbage-collected */
    bool tsfn_refd;           /* the TSFN keeps the event loop alive (fires in flight) */
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
        if (item->kind == ITEM_DONE) oh_hooks_string_free(item->text);
        else free(item->text);
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

/* OhHooksDone: an async fire finished (engine thread). */
static void done_trampoline(void *user_data, char *outcome_json) {
    FireJob *job = user_data;
    Item *item = calloc(1, sizeof *item);
    if (!item) {
        /* Cannot deliver it: JS would wait forever. Out of memory here is not recoverable. */
        oh_hooks_string_free(outcome_json);
        free(job);
        return;
    }
    item->kind = ITEM_DONE;
    item->ticket = job->ticket;
    item->text = outcome_json;
    queue_item(job->h, item);
    free(job);
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
    case ITEM_DONE:
        if (deliver) {
            if (h->in_flight > 0 && --h->in_flight == 0 && h->tsfn_refd) {
                napi_unref_threadsafe_function(env, h->tsfn);
                h->tsfn_refd = false;
            }
            napi_create_uint32(env, ITEM_DONE, &argv[0]);
            napi_create_double(env, item->ticket, &argv[1]);
            if (napi_create_string_utf8(env, item->text, NAPI_AUTO_LENGTH, &argv[2]) != napi_ok)
                napi_get_null(env, &argv[2]); /* index.js rejects the fire: no outcome */
            argc = 3;
        }
        oh_hooks_string_free(item->text);
        item->text = NULL;
        break;
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
    if (item->kind == ITEM_DONE && deliver && h->in_flight == 0 && (h->closed || h->finalized))
        release_engine(env, h); /* deferred close */
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
    /* Idle registrations must not keep the process alive; a fire in flight refs it. */
    napi_unref_threadsafe_function(env, h->tsfn);
    if (napi_create_reference(env, argv[1], 1, &h->dispatch) != napi_ok ||
        napi_add_env_cleanup_hook(env, env_cleanup, h) != napi_ok) {
        if (h->dispatch) napi_delete_reference(env, h->dispatch);
        oh_hooks_free(engine);
        h->engine = NULL;
        h->dispatch = NULL;
        napi_release_threadsafe_function(h->tsfn, napi_tsfn_abort); /* finalize_tsfn frees h */
        throw_napi_failure(env, "napi_add_env_cleanup_hook");
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

    h->sync_depth++;
    outcome = oh_hooks_fire(h->engine, envelope);
    h->sync_depth--;
    free(envelope);
    if (!outcome) {
        throw_code(env, "internal", OOM_OUTCOME_MSG);
        return NULL;
    }
    return take_c_string(env, outcome);
}

/* ------------------------------------------------------------------- fire */

static napi_value js_fire(napi_env env, napi_callback_info info) {
    size_t argc = 3;
    napi_value argv[3], result;
    Handle *h;
    FireJob *job;
    char *envelope;
    double ticket;
    uint64_t id;

    NAPI_OK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL), "napi_get_cb_info");
    if (argc < 3) {
        napi_throw_type_error(env, "ERR_MISSING_ARGS", "fire(handle, envelopeJson, ticket) needs 3 arguments");
        return NULL;
    }
    if (!(h = get_handle(env, argv[0], true))) return NULL;
    NAPI_OK(env, napi_get_value_double(env, argv[2], &ticket), "napi_get_value_double");
    if (!(envelope = copy_string_arg(env, argv[1], "envelope JSON"))) return NULL;
    job = malloc(sizeof *job);
    if (!job) {
        free(envelope);
        throw_code(env, "internal", "oh-hooks addon: out of memory");
        return NULL;
    }
    job->h = h;
    job->ticket = ticket;

    /* Counted before the engine can finish: its DONE is delivered on this thread, later. */
    h->in_flight++;
    if (!h->tsfn_refd) {
        napi_ref_threadsafe_function(env, h->tsfn);
        h->tsfn_refd = true;
    }
    /* done always runs exactly once, even for a refused fire (then at once, on this thread,
     * with an error outcome): the DONE item settles the promise in every case. */
    id = oh_hooks_fire_async(h->engine, envelope, done_trampoline, job);
    free(envelope);
    NAPI_OK(env, napi_create_bigint_uint64(env, id, &result), "napi_create_bigint_uint64");
    return result;
}

static napi_value js_cancel(napi_env env, napi_callback_info info) {
    size_t argc = 2;
    napi_value argv[2];
    Handle *h;
    uint64_t id = 0;
    bool lossless = false;

    NAPI_OK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL), "napi_get_cb_info");
    if (argc < 2) {
        napi_throw_type_error(env, "ERR_MISSING_ARGS", "cancel(handle, fireId) needs 2 arguments");
        return NULL;
    }
    if (!(h = get_handle(env, argv[0], false))) return NULL;
    NAPI_OK(env, napi_get_value_bigint_uint64(env, argv[1], &id, &lossless), "napi_get_value_bigint_uint64");
    /* A closed-but-not-released engine still runs its fires: cancel them too. After release
     * every fire has finished, and cancelling a finished fire does nothing anyway. */
    if (h->engine) oh_hooks_cancel(h->engine, id);
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
