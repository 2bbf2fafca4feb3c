/* The floors of Node's `await hooks.fire` (bench.js), built by run.sh as nodefloor.node. A C
 * thread, woken by a request, hands a completion to the JS thread, whose JS callback resolves
 * the awaited promise. No engine. The C thread waits for a request as the engine's threads do
 * (../floor_wait.h). Two hand-offs:
 *   T  start/kick:         a threadsafe function (how the addon completed fire() before)
 *   P  startPipe/kickPipe: a 16-byte record written to a pipe whose read end a uv_poll_t watches
 *                          on the env's loop, the callback run in a callback scope (how the addon
 *                          completes fire() now, through oh_hooks_fire_async_fd) */
#define NAPI_VERSION 8
#include <node_api.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>
/* As in bindings/node/src/addon.c: uv.h where Node's headers have it, else the few entry points. */
#if defined(__has_include)
#if __has_include(<uv.h>)
#include <uv.h>
#define OH_HAVE_UV_H 1
#endif
#endif
#ifndef OH_HAVE_UV_H
typedef struct uv_loop_s uv_loop_t;
typedef struct uv_handle_s uv_handle_t;
typedef struct uv_poll_s uv_poll_t;
typedef void (*uv_poll_cb)(uv_poll_t *handle, int status, int events);
enum { UV_POLL = 8, UV_READABLE = 1 };
size_t uv_handle_size(int type);
int uv_poll_init(uv_loop_t *loop, uv_poll_t *handle, int fd);
int uv_poll_start(uv_poll_t *handle, int events, uv_poll_cb cb);
void uv_unref(uv_handle_t *handle);
#endif

#include "../floor_wait.h"

static napi_threadsafe_function tsfn;
static int mode; /* 0: T, 1: P */
static int pfd[2] = {-1, -1};
static uv_poll_t *poll;
static napi_env penv;
static napi_ref pfn;
static napi_async_context pctx;

static void *partner(void *arg) {
    (void)arg;
    for (;;) {
        floor_wait();
        if (mode == 0) {
            napi_call_threadsafe_function(tsfn, NULL, napi_tsfn_nonblocking);
        } else {
            uint64_t rec[2] = {1, 0};
            if (write(pfd[1], rec, sizeof rec) != sizeof rec) return NULL;
        }
    }
    return NULL;
}

static void call_js(napi_env env, napi_value js_cb, void *context, void *data) {
    (void)context;
    (void)data;
    napi_value recv;
    if (!env) return;
    napi_get_undefined(env, &recv);
    napi_call_function(env, recv, js_cb, 0, NULL, NULL);
}

static void on_readable(uv_poll_t *p, int status, int events) {
    uint64_t rec[2 * 64];
    napi_handle_scope hs;
    napi_callback_scope cs;
    napi_value resource, fn, recv;
    ssize_t n;
    (void)p;
    (void)status;
    (void)events;
    napi_open_handle_scope(penv, &hs);
    napi_create_object(penv, &resource);
    napi_open_callback_scope(penv, resource, pctx, &cs);
    while ((n = read(pfd[0], rec, sizeof rec)) > 0) {
        napi_get_reference_value(penv, pfn, &fn);
        napi_get_undefined(penv, &recv);
        for (ssize_t i = 0; i < n / 16; i++) napi_call_function(penv, recv, fn, 0, NULL, NULL);
        if (n < (ssize_t)sizeof rec) break;
    }
    napi_close_callback_scope(penv, cs);
    napi_close_handle_scope(penv, hs);
}

static int start_thread(void) {
    static int started;
    pthread_t t;
    if (started) return 0;
    started = 1;
    return floor_init() || pthread_create(&t, NULL, partner, NULL);
}

/* start(fn): fn() is called on the JS thread after each kick(), through a threadsafe function. */
static napi_value start(napi_env env, napi_callback_info info) {
    size_t argc = 1;
    napi_value argv[1], name;
    napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
    napi_create_string_utf8(env, "oh-hooks bench floor", NAPI_AUTO_LENGTH, &name);
    if (napi_create_threadsafe_function(env, argv[0], NULL, name, 0, 1, NULL, NULL, NULL, call_js, &tsfn) != napi_ok ||
        start_thread()) {
        napi_throw_error(env, NULL, "cannot start the floor's C thread");
        return NULL;
    }
    napi_unref_threadsafe_function(env, tsfn); /* the bench's process may exit */
    return NULL;
}

/* startPipe(fn): fn() is called on the JS thread after each kickPipe(), through a pipe. */
static napi_value start_pipe(napi_env env, napi_callback_info info) {
    size_t argc = 1;
    napi_value argv[1], name, resource;
    uv_loop_t *loop;
    napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
    penv = env;
    if (napi_create_reference(env, argv[0], 1, &pfn) != napi_ok || napi_get_uv_event_loop(env, &loop) != napi_ok ||
        napi_create_object(env, &resource) != napi_ok ||
        napi_create_string_utf8(env, "oh-hooks bench floor", NAPI_AUTO_LENGTH, &name) != napi_ok ||
        napi_async_init(env, resource, name, &pctx) != napi_ok || pipe(pfd) != 0 ||
        fcntl(pfd[0], F_SETFL, O_NONBLOCK) != 0 || !(poll = malloc(uv_handle_size(UV_POLL))) ||
        uv_poll_init(loop, poll, pfd[0]) != 0 || uv_poll_start(poll, UV_READABLE, on_readable) != 0 ||
        start_thread()) {
        napi_throw_error(env, NULL, "cannot start the floor's pipe");
        return NULL;
    }
    uv_unref((uv_handle_t *)poll); /* the bench's process may exit */
    return NULL;
}

static napi_value kick(napi_env env, napi_callback_info info) {
    (void)env;
    (void)info;
    mode = 0;
    floor_post();
    return NULL;
}

static napi_value kick_pipe(napi_env env, napi_callback_info info) {
    (void)env;
    (void)info;
    mode = 1;
    floor_post();
    return NULL;
}

NAPI_MODULE_INIT() {
    napi_property_descriptor props[] = {
        {"start", NULL, start, NULL, NULL, NULL, napi_enumerable, NULL},
        {"kick", NULL, kick, NULL, NULL, NULL, napi_enumerable, NULL},
        {"startPipe", NULL, start_pipe, NULL, NULL, NULL, napi_enumerable, NULL},
        {"kickPipe", NULL, kick_pipe, NULL, NULL, NULL, napi_enumerable, NULL},
    };
    napi_define_properties(env, exports, 4, props);
    return exports;
}
