/* test_threads.c — CONTRACT §1: one `const OhHooks *` used by 16 threads at once, each outcome
 * right for its own envelope, and fires not serialized behind one lock. */
#include "common.h"

#define THREADS 16
#define ROUNDS 4

static OhHooks *g_h;

static void *worker(void *arg) {
    int t = (int)(intptr_t)arg;
    for (int r = 0; r < ROUNDS; r++) {
        int deny = (t + r) % 2;
        char *tool = xfmt("%s_%d_%d", deny ? "Deny" : "Keep", t, r);
        jval *o = FIRE(g_h, xfmt("{\"event\":\"preToolUse\",\"toolName\":\"%s\",\"sessionId\":\"s%d\"}", tool, t));
        CHECK_JBOOL(o, "allowed", !deny);
        CHECK_JSTR(o, "reason", deny ? "hook denied (exit code)" : tool);
        CHECK_JSTR(o, "hooks.0.reason", tool);
        CHECK_LEN(o, "hooks", deny ? 2 : 1);
        /* the environment of each spawn is its own envelope's */
        char *p = xfmt("prompt-%d-%d", t, r);
        o = FIRE(g_h, xfmt("{\"event\":\"userPromptSubmit\",\"prompt\":\"%s\",\"sessionId\":\"%s\"}", p, p));
        CHECK_JBOOL(o, "allowed", 1);
        CHECK_JSTR(o, "additionalContext", p);
        /* non-blocking fires in between */
        o = FIRE(g_h, xfmt("{\"event\":\"postToolUse\",\"toolName\":\"%s\"}", tool));
        CHECK_JBOOL(o, "allowed", 1);
    }
    return NULL;
}

static void test_many_threads(void) {
    /* preToolUse: the reason is the envelope's toolName (read from stdin); Deny* tools are denied */
    const char *echo_tool = "sed -n 's/.*\"toolName\":\"\\([^\"]*\\)\".*/{\"reason\":\"\\1\"}/p'";
    /* userPromptSubmit: OH_PROMPT must equal OH_SESSION_ID of the same envelope */
    const char *same_env = "test \"$OH_PROMPT\" = \"$OH_SESSION_ID\" || exit 1; "
                           "printf '{\"hookSpecificOutput\":{\"additionalContext\":\"%s\"}}' \"$OH_PROMPT\"";
    const char *c = xfmt("{\"hooks\":{\"preToolUse\":[%s,%s],\"userPromptSubmit\":[%s],\"postToolUse\":[%s]}}",
                         hkj(echo_tool), hkx("exit 1", "`match`:`Deny*`"), hkj(same_env), hk("exit 0"));
    /* 16 threads' hooks at once, and under valgrind one engine thread runs at a time: on a busy
     * machine a hook waited out the default 10 s. What is tested here is each outcome's content,
     * so the hooks get a minute. */
    g_h = ENG(c, "`defaultTimeoutMs`:60000");
    if (!g_h) return;
    /* single-threaded sanity check first */
    jval *o = FIREJ(g_h, "{`event`:`preToolUse`,`toolName`:`Keep_x`}");
    CHECK_JSTR(o, "reason", "Keep_x");
    pthread_t th[THREADS];
    for (int i = 0; i < THREADS; i++) CHECK(pthread_create(&th[i], NULL, worker, (void *)(intptr_t)i) == 0, "pthread_create");
    for (int i = 0; i < THREADS; i++) pthread_join(th[i], NULL);
}

static pthread_mutex_t g_sum_lock = PTHREAD_MUTEX_INITIALIZER;
static double g_hook_ms_sum;

static void *slow_worker(void *arg) {
    (void)arg;
    jval *o = FIREJ(g_h, "{`event`:`preToolUse`,`toolName`:`Bash`}");
    CHECK_JBOOL(o, "allowed", 1);
    CHECK_JNUM(o, "hooks.0.exitCode", 0);
    jval *d = json_path(o, "hooks.0.durationMs");
    CHECK(d && d->t == J_NUM, "hooks.0.durationMs is a number");
    pthread_mutex_lock(&g_sum_lock);
    g_hook_ms_sum += d && d->t == J_NUM ? d->n : 0;
    pthread_mutex_unlock(&g_sum_lock);
    return NULL;
}

static void test_fires_run_in_parallel(void) {
    g_h = ENG(cfg("preToolUse", hk("sleep 0.3"), NULL), NULL);
    if (!g_h) return;
    pthread_t th[THREADS];
    double t0 = now_ms();
    for (int i = 0; i < THREADS; i++) CHECK(pthread_create(&th[i], NULL, slow_worker, NULL) == 0, "pthread_create");
    for (int i = 0; i < THREADS; i++) pthread_join(th[i], NULL);
    double dt = now_ms() - t0;
    /* Fires serialized behind one lock would take at least the sum of their hooks' run times.
     * Measured against that sum, not a fixed bound: on a busy machine (or under valgrind, which
     * runs one thread at a time) every hook runs longer, and so does the sum. Side by side the 16
     * take about 1/16 of it; half is the line. */
    CHECK(dt < g_hook_ms_sum / 2, "16 concurrent fires of a 300 ms hook took %.0f ms; their hooks ran %.0f ms in all, "
          "so they overlapped too little", dt, g_hook_ms_sum);
    printf("16 concurrent fires of a 300 ms hook: %.0f ms, their hooks' run times sum to %.0f ms\n", dt, g_hook_ms_sum);
}

int main(void) {
    setup("test_threads");
    setenv("HOME", g_dir, 1);
    if (chdir(g_dir)) return 2;
    RUN(test_many_threads);
    RUN(test_fires_run_in_parallel);
    return DONE();
}
