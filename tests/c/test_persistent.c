/* test_persistent.c — persistent hooks (docs/config.md "Persistent hooks") through the C ABI: one process
 * answers one envelope line per fire, concurrent fires from threads get their own answers, a
 * worker that times out or answers an over-long line is replaced, and oh_hooks_free with busy
 * background workers waits for them and stops every worker. Run under valgrind and ASan too
 * (valgrind has no pidfd_open: the engine's polling fallback is what runs there). */
#include "common.h"

#include <pthread.h>
#include <signal.h>

/* Answers each line with its toolName as additionalContext and its pid as reason-free context
 * prefix: "<pid> <toolName>". Sleeps on toolName Sleep; prints 3000 bytes on Big. */
static const char *WORKER =
    "#!/bin/sh\n"
    "while IFS= read -r line; do\n"
    "  t=${line#*\\\"toolName\\\":\\\"}; t=${t%%\\\"*}\n"
    "  case \"$t\" in\n"
    "    Sleep) sleep 30 ;;\n"
    "    Big) head -c 3000 /dev/zero | tr '\\\\0' x; echo ;;\n"
    "    *) echo \"log $t\" >&2; printf '{\"hookSpecificOutput\":{\"additionalContext\":\"%s %s\"}}\\n' $$ \"$t\" ;;\n"
    "  esac\n"
    "done\n";

static char *worker_path(void) {
    char *path = xfmt("%s/worker.sh", newdir("persistent"));
    write_file(path, WORKER);
    chmod(path, 0755);
    return path;
}

static char *envelope(const char *tool) { return xfmt("{\"event\":\"preToolUse\",\"toolName\":\"%s\"}", tool); }

/* The pid in "<pid> <tool>", or -1. */
static long pid_of(jval *o) {
    const char *ctx = json_str(json_path(o, "additionalContext"));
    return ctx ? strtol(ctx, NULL, 10) : -1;
}

static void test_one_process_many_fires(void) {
    OhHooks *h = ENG(cfg("preToolUse", hkx(worker_path(), "`persistent`:true"), NULL), NULL);
    if (!h) return;
    jval *o = FIRE(h, envelope("Read"));
    CHECK_JBOOL(o, "allowed", 1);
    CHECK_JBOOL(o, "hooks.0.persistent", 1);
    CHECK_JBOOL(o, "hooks.0.timedOut", 0);
    CHECK_JSTR(o, "hooks.0.stderr", "log Read\n");
    long first = pid_of(o);
    CHECK(first > 0, "no pid in the answer");
    for (int i = 0; i < 10; i++) {
        char *tool = xfmt("Tool%d", i);
        jval *r = FIRE(h, envelope(tool));
        CHECK(pid_of(r) == first, "fire %d was answered by another process", i);
        const char *ctx = json_str(json_path(r, "additionalContext"));
        CHECK(ctx && strstr(ctx, tool), "answer %s for %s", show(ctx), tool);
    }
}

typedef struct {
    const OhHooks *h;
    int id, bad;
} Shooter;

static void *shoot(void *arg) {
    Shooter *s = arg;
    for (int i = 0; i < 25; i++) {
        char env[128], want[64];
        snprintf(env, sizeof env, "{\"event\":\"preToolUse\",\"toolName\":\"T%d-%d\"}", s->id, i);
        snprintf(want, sizeof want, " T%d-%d\"", s->id, i);
        char *out = oh_hooks_fire(s->h, env);
        if (!out || !strstr(out, want) || !strstr(out, "\"persistent\":true")) s->bad++;
        oh_hooks_string_free(out);
    }
    return NULL;
}

static void test_threads_get_their_own_answers(void) {
    OhHooks *h = ENG(cfg("preToolUse", hkx(worker_path(), "`persistent`:true,`workers`:3"), NULL), NULL);
    if (!h) return;
    Shooter s[8];
    pthread_t t[8];
    for (int i = 0; i < 8; i++) {
        s[i] = (Shooter){h, i, 0};
        CHECK(pthread_create(&t[i], NULL, shoot, &s[i]) == 0, "pthread_create");
    }
    int bad = 0;
    for (int i = 0; i < 8; i++) {
        pthread_join(t[i], NULL);
        bad += s[i].bad;
    }
    CHECK(bad == 0, "%d of 200 concurrent fires got another request's answer or none", bad);
}

static void test_failures_replace_the_worker(void) {
    OhHooks *h = ENG(cfg("preToolUse", hkx(worker_path(), "`persistent`:true,`timeout`:300"), NULL),
                     "`maxOutputBytes`:1000");
    if (!h) return;
    long first = pid_of(FIRE(h, envelope("Read")));
    double t0 = now_ms();
    jval *o = FIRE(h, envelope("Sleep"));
    double dt = now_ms() - t0;
    CHECK_JBOOL(o, "allowed", 0);
    CHECK_JSTR(o, "reason", "hook failed (timeout or non-zero exit)");
    CHECK_JBOOL(o, "hooks.0.timedOut", 1);
    CHECK(dt >= 290 && dt < 300 + slack(), "timeout 300 ms took %.0f ms", dt);
    long second = pid_of(FIRE(h, envelope("Read")));
    CHECK(second > 0 && second != first, "a timed-out worker is replaced (%ld, then %ld)", first, second);
    o = FIRE(h, envelope("Big"));
    CHECK_JSTR(o, "reason", "hook output exceeded maxOutputBytes");
    long third = pid_of(FIRE(h, envelope("Read")));
    CHECK(third > 0 && third != second, "a worker with an over-long line is replaced");
}

static void test_free_with_busy_workers(void) {
    char *dir = newdir("busy");
    char *log = xfmt("%s/served", dir);
    char *cmd = xfmt("while read l; do sleep 0.2; echo x >> %s; echo '{}'; done", log);
    char *opts = opts_for(cfg("postToolUse", hkx(cmd, "`persistent`:true,`workers`:2"), NULL), NULL);
    char *err = NULL;
    OhHooks *h = oh_hooks_new(opts, &err);
    CHECK(h != NULL, "oh_hooks_new: %s", show(err));
    if (!h) return;
    for (int i = 0; i < 4; i++) oh_hooks_string_free(oh_hooks_fire(h, "{\"event\":\"postToolUse\"}"));
    double t0 = now_ms();
    oh_hooks_free(h);
    double dt = now_ms() - t0;
    size_t len = 0;
    char *served = read_file(log, &len);
    int lines = 0;
    for (size_t i = 0; served && i < len; i++) lines += served[i] == '\n';
    CHECK(lines == 4, "free served %d of the 4 background requests", lines);
    CHECK(dt >= 350 && dt < 400 + 500 + slack(), "free took %.0f ms (two workers, two requests each)", dt);
}

int main(void) {
    setup("test_persistent");
    if (chdir(g_dir)) return 2;
    RUN(test_one_process_many_fires);
    RUN(test_threads_get_their_own_answers);
    RUN(test_failures_replace_the_worker);
    RUN(test_free_with_busy_workers);
    return DONE();
}
