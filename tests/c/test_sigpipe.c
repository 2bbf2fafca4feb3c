/* test_sigpipe.c — CONTRACT §1 and §3.4: a host with the default SIGPIPE disposition survives
 * jsonIO hooks that never read (or stop reading) a 4 MiB envelope. If SIGPIPE reached this
 * process it would die here, and run.sh would report the crash. */
#include "common.h"

#include <signal.h>

static char *big_envelope(const char *event) {
    sbuf b = {0};
    sb_printf(&b, "{\"event\":\"%s\",\"toolName\":\"Bash\",\"blob\":\"", event);
    for (int i = 0; i < 4 * 1024 * 1024; i++) sb_putc(&b, (char)('a' + i % 26));
    sb_puts(&b, "\"}");
    return gc_str(sb_take(&b));
}

static int sigpipe_is_default(void) {
    struct sigaction sa;
    sigaction(SIGPIPE, NULL, &sa);
    return sa.sa_handler == SIG_DFL;
}

static void test_hooks_that_do_not_read(void) {
    CHECK(sigpipe_is_default(), "SIGPIPE starts with the default disposition");
    OhHooks *h = ENG(cfg("preToolUse", hkj("exit 0"), hkj("head -c 10 >/dev/null; echo '{\"reason\":\"r\"}'"),
                         hkj("exec 0<&-; sleep 0.05; echo '{}'"), hkj("exec 0</dev/null; cat >/dev/null; echo '{}'"), NULL),
                     NULL);
    if (!h) return;
    char *env = big_envelope("preToolUse");
    for (int i = 0; i < 3; i++) {
        jval *o = FIRE(h, env);
        CHECK_JBOOL(o, "allowed", 1);
        CHECK_JSTR(o, "reason", "r");
        CHECK_LEN(o, "hooks", 4);
        for (int k = 0; k < 4; k++) {
            CHECK_JSTR(o, xfmt("hooks.%d.result", k), "none");
            CHECK_JNUM(o, xfmt("hooks.%d.exitCode", k), 0);
        }
    }
    CHECK(sigpipe_is_default(), "SIGPIPE still has the default disposition");
}

static void test_background_writers(void) {
    /* non-blocking: the write happens in the background, and is drained by oh_hooks_free */
    OhHooks *h = oh_hooks_new(opts_for(cfg("postToolUse", hkj("exit 0"), hkj("head -c 1 >/dev/null"), NULL), NULL), NULL);
    CHECK(h != NULL, "engine");
    if (!h) return;
    char *env = big_envelope("postToolUse");
    for (int i = 0; i < 3; i++) {
        char *out = oh_hooks_fire(h, env);
        jval *o = parse_owned(out, "outcome");
        CHECK_JBOOL(o, "allowed", 1);
    }
    oh_hooks_free(h);
    /* and with waitNonBlocking */
    h = ENG(cfg("postToolUse", hkj("exit 0"), hkj("exit 3"), NULL), "`waitNonBlocking`:true");
    if (!h) return;
    jval *o = FIRE(h, env);
    CHECK_JBOOL(o, "allowed", 1);
    CHECK_JNUM(o, "hooks.1.exitCode", 3);
    CHECK(sigpipe_is_default(), "SIGPIPE still has the default disposition");
}

int main(void) {
    signal(SIGPIPE, SIG_DFL);
    setup("test_sigpipe");
    setenv("HOME", g_dir, 1);
    if (chdir(g_dir)) return 2;
    RUN(test_hooks_that_do_not_read);
    RUN(test_background_writers);
    return DONE();
}
