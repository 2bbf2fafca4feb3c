/* test_shutdown.c — oh_hooks_free through the ABI (docs/reliability.md "Reliability"): no `done`, callback or
 * observer call after it returned, an engine thread never waits for itself, fires arriving
 * during free are refused with `cancelled` before it returns, and `shutdownTimeoutMs` bounds it.
 *
 * Issue 16 item 6: a background hook's callback fired asynchronously while free was under way;
 * free had already drained the asynchronous pool, so the stray fire waited out its hook's
 * timeout, called `done` about a second after free returned, then dropped the engine's last
 * reference on its own pool thread, which waited for itself forever. */
#include "common.h"

#include <stdatomic.h>

static atomic_int g_free_returned;

typedef struct {
    atomic_int calls;
    atomic_int after_free; /* calls that came after oh_hooks_free returned */
    char *outcome;         /* the first outcome (owned) */
    pthread_mutex_t mu;
} Done;

static void done_fn(void *user, char *outcome) {
    Done *d = user;
    if (atomic_load(&g_free_returned)) atomic_fetch_add(&d->after_free, 1);
    pthread_mutex_lock(&d->mu);
    if (!d->outcome) d->outcome = strdup(outcome);
    pthread_mutex_unlock(&d->mu);
    oh_hooks_string_free(outcome);
    atomic_fetch_add(&d->calls, 1);
}

typedef struct {
    OhHooks *h;
    Done stray;
    atomic_int calls;
    atomic_int after_free;
} Cb;

/* The background hook's callback: waits until free is under way, fires on the engine being
 * freed (a host forwarding the event), then answers. */
static void cb_fn(void *user, const char *request, OhHooksCall *call) {
    (void)request;
    Cb *c = user;
    if (atomic_load(&g_free_returned)) atomic_fetch_add(&c->after_free, 1);
    atomic_fetch_add(&c->calls, 1);
    sleep_ms(300);
    oh_hooks_fire_async(c->h, "{\"event\":\"preToolUse\",\"toolName\":\"Slow\"}", done_fn, &c->stray);
    oh_hooks_respond(call, NULL);
}

typedef struct {
    atomic_int records;
    atomic_int after_free;
} Obs;

static void obs_fn(void *user, const char *record) {
    (void)record;
    Obs *o = user;
    if (atomic_load(&g_free_returned)) atomic_fetch_add(&o->after_free, 1);
    atomic_fetch_add(&o->records, 1);
}

/* Threads of this process, from /proc. */
static int thread_count(void) {
    char *status = read_file("/proc/self/status", NULL);
    const char *t = status ? strstr(status, "Threads:") : NULL;
    return t ? atoi(t + 8) : -1;
}

static void test_fire_during_free_is_refused_before_free_returns(void) {
    atomic_store(&g_free_returned, 0);
    char *opts = xfmt("{\"trusted\":true,\"cwd\":%s,\"home\":%s,\"config\":{\"hooks\":{"
                      "\"postToolUse\":[{\"callback\":\"forward\"}],"
                      "\"preToolUse\":[{\"command\":\"sleep 1\",\"match\":\"Slow\",\"timeout\":1500}]}}}",
                      q(g_dir), q(g_dir));
    char *err = NULL;
    OhHooks *h = oh_hooks_new(opts, &err);
    CHECK(h != NULL, "oh_hooks_new: %s", show(err));
    if (!h) return;
    Cb cb = {.h = h};
    pthread_mutex_init(&cb.stray.mu, NULL);
    Obs obs = {0};
    CHECK(oh_hooks_register(h, "forward", cb_fn, &cb, NULL, NULL) == 0, "register");
    CHECK(oh_hooks_observe(h, obs_fn, &obs, NULL, NULL) == 0, "observe");
    int threads_before = thread_count();
    char *o = oh_hooks_fire(h, "{\"event\":\"postToolUse\",\"toolName\":\"Bash\"}");
    oh_hooks_string_free(o);
    sleep_ms(100); /* the background hook is in its callback */
    double start = now_ms();
    oh_hooks_free(h);
    double took = now_ms() - start;
    atomic_store(&g_free_returned, 1);

    CHECK(atomic_load(&cb.calls) == 1, "the callback ran once: %d", atomic_load(&cb.calls));
    CHECK(atomic_load(&cb.stray.calls) == 1, "the stray fire's done ran before free returned: %d calls",
          atomic_load(&cb.stray.calls));
    jval *out = cb.stray.outcome ? gc_json(json_parse(cb.stray.outcome)) : NULL;
    CHECK(out && streq(json_str(json_path(out, "error.code")), "cancelled"), "refused as cancelled: %s",
          show(cb.stray.outcome));
    if (out) CHECK_JBOOL(out, "allowed", 0);
    /* The postToolUse fire's record, and the refused fire's own. */
    CHECK(atomic_load(&obs.records) == 2, "one observer record per fire, the refused one included: %d",
          atomic_load(&obs.records));
    CHECK(took < 1000 + slack(), "free took %.0f ms (the stray fire's hook is not waited for)", took);

    /* Nothing after free: the stray fire's hook would have finished by now. */
    sleep_ms(1500);
    CHECK(atomic_load(&cb.stray.calls) == 1 && atomic_load(&cb.stray.after_free) == 0, "done after free: %d",
          atomic_load(&cb.stray.after_free));
    CHECK(atomic_load(&obs.after_free) == 0, "observer after free: %d", atomic_load(&obs.after_free));
    CHECK(atomic_load(&cb.after_free) == 0, "callback after free: %d", atomic_load(&cb.after_free));
    /* No engine thread is left waiting for itself (pool threads leave after 5 idle seconds;
     * a deadlocked one never would). */
    double until = now_ms() + 8000;
    while (thread_count() > threads_before && now_ms() < until) sleep_ms(100);
    CHECK(thread_count() <= threads_before, "engine threads left behind: %d (before: %d)", thread_count(),
          threads_before);
    free(cb.stray.outcome);
    pthread_mutex_destroy(&cb.stray.mu);
}

/* shutdownTimeoutMs: an asynchronous fire whose hook runs long is cancelled when the time is
 * up, its `done` called with `cancelled` before free returns, and queued background hooks are
 * not started. */
static void test_shutdown_timeout_cancels(void) {
    atomic_store(&g_free_returned, 0);
    char *dir = newdir("shutdown");
    char *opts = xfmt("{\"trusted\":true,\"cwd\":%s,\"home\":%s,\"shutdownTimeoutMs\":300,\"config\":{\"hooks\":{"
                      "\"postToolUse\":[{\"command\":\"sleep 20\",\"timeout\":30000}],"
                      "\"preToolUse\":[{\"command\":\"sleep 20\",\"timeout\":30000}]}}}",
                      q(dir), q(dir));
    char *err = NULL;
    OhHooks *h = oh_hooks_new(opts, &err);
    CHECK(h != NULL, "oh_hooks_new: %s", show(err));
    if (!h) return;
    Obs obs = {0};
    CHECK(oh_hooks_observe(h, obs_fn, &obs, NULL, NULL) == 0, "observe");
    Done d = {0};
    pthread_mutex_init(&d.mu, NULL);
    oh_hooks_fire_async(h, "{\"event\":\"preToolUse\",\"toolName\":\"Bash\"}", done_fn, &d);
    for (int i = 0; i < 12; i++) oh_hooks_string_free(oh_hooks_fire(h, "{\"event\":\"postToolUse\"}"));
    sleep_ms(200);
    double start = now_ms();
    oh_hooks_free(h);
    double took = now_ms() - start;
    atomic_store(&g_free_returned, 1);
    CHECK(took < 300 + 500 + 1000 + slack(), "free took %.0f ms with shutdownTimeoutMs 300", took);
    CHECK(atomic_load(&d.calls) == 1, "done before free returned: %d", atomic_load(&d.calls));
    jval *out = d.outcome ? gc_json(json_parse(d.outcome)) : NULL;
    CHECK(out && streq(json_str(json_path(out, "error.code")), "cancelled"), "cancelled: %s", show(d.outcome));
    CHECK(atomic_load(&obs.records) == 13, "a record per fire: %d", atomic_load(&obs.records));
    sleep_ms(300);
    CHECK(atomic_load(&obs.after_free) == 0 && atomic_load(&d.after_free) == 0, "calls after free");
    free(d.outcome);
    pthread_mutex_destroy(&d.mu);
}

/* An invalid shutdownTimeoutMs is invalid_options naming the option. */
static void test_shutdown_timeout_validated(void) {
    const char *bad[] = {"0", "-1", "1.5", "\"5s\"", "null"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        jval *e = NEW_ERROR(xfmt("{\"shutdownTimeoutMs\":%s}", bad[i]));
        CHECK(e && streq(json_str(json_get(e, "code")), "invalid_options"), "%s", bad[i]);
        const char *m = e ? json_str(json_get(e, "message")) : NULL;
        CHECK(m && strstr(m, "shutdownTimeoutMs") && strstr(m, "positive integer"), "%s: %s", bad[i], show(m));
    }
}

int main(void) {
    setup("test_shutdown");
    RUN(test_fire_during_free_is_refused_before_free_returns);
    RUN(test_shutdown_timeout_cancels);
    RUN(test_shutdown_timeout_validated);
    return DONE();
}
