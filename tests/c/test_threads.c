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
    g_h = ENG(c, NULL);
    if (!g_h) return;
    /* single-threaded sanity check first */
    jval *o = FIREJ(g_h, "{`event`:`preToolUse`,`toolName`:`Keep_x`}");
    CHECK_JSTR(o, "reason", "Keep_x");
    pthread_t th[THREADS];
    for (int i = 0; i < THREADS; i++) CHECK(pthread_create(&th[i], NULL, worker, (void *)(intptr_t)i) == 0, "pthread_create");
    for (int i = 0; i < THREADS; i++) pthread_join(th[i], NULL);
}

static void *slow_worker(void *arg) {
    (void)arg;
    jval *o = FIREJ(g_h, "{`event`:`preToolUse`,`toolName`:`Bash`}");
    CHECK_JBOOL(o, "allowed", 1);
    CHECK_JNUM(o, "hooks.0.exitCode", 0);
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
    CHECK(dt < 1500 + 2 * slack(), "16 concurrent fires of a 300 ms hook took %.0f ms (serialized would be 4800)", dt);
}

int main(void) {
    setup("test_threads");
    setenv("HOME", g_dir, 1);
    if (chdir(g_dir)) return 2;
    RUN(test_many_threads);
    RUN(test_fires_run_in_parallel);
    return DONE();
}
