/* The floor of Node's `await hooks.fire` (bench.js), built by run.sh as nodefloor.node: a C
 * thread, woken by a request, that calls a threadsafe function (the addon's route from an
 * engine thread to JS), whose JS callback resolves the awaited promise. No engine. The C thread
 * waits for a request as the engine's threads do (../floor_wait.h). */
#define NAPI_VERSION 8
#include <node_api.h>
#include <pthread.h>
#include <unistd.h>

#include "../floor_wait.h"

static napi_threadsafe_function tsfn;

static void *partner(void *arg) {
    (void)arg;
    for (;;) {
        floor_wait();
        napi_call_threadsafe_function(tsfn, NULL, napi_tsfn_nonblocking);
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

/* start(fn): fn() is called on the JS thread after each kick(). */
static napi_value start(napi_env env, napi_callback_info info) {
    size_t argc = 1;
    napi_value argv[1], name;
    pthread_t t;
    napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
    napi_create_string_utf8(env, "oh-hooks bench floor", NAPI_AUTO_LENGTH, &name);
    if (napi_create_threadsafe_function(env, argv[0], NULL, name, 0, 1, NULL, NULL, NULL, call_js, &tsfn) != napi_ok ||
        floor_init() || pthread_create(&t, NULL, partner, NULL)) {
        napi_throw_error(env, NULL, "cannot start the floor's C thread");
        return NULL;
    }
    napi_unref_threadsafe_function(env, tsfn); /* the bench's process may exit */
    return NULL;
}

static napi_value kick(napi_env env, napi_callback_info info) {
    (void)env;
    (void)info;
    floor_post();
    return NULL;
}

NAPI_MODULE_INIT() {
    napi_property_descriptor props[] = {
        {"start", NULL, start, NULL, NULL, NULL, napi_enumerable, NULL},
        {"kick", NULL, kick, NULL, NULL, NULL, napi_enumerable, NULL},
    };
    napi_define_properties(env, exports, 2, props);
    return exports;
}
