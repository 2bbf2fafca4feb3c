/* test_merge.c — CONTRACT §3.8, step by step, with exact outcomes. Every hook after a
 * short-circuit touches a file; the file must not exist afterwards. */
#include "common.h"

/* The trace of a jsonIO hook that exited 0. */
static char *T(int index, const char *result, const char *reason) {
    return xfmt("{\"index\":%d,\"type\":\"command\",\"jsonIO\":true,\"exitCode\":0,\"timedOut\":false,\"result\":\"%s\"%s%s}",
                index, result, reason ? ",\"reason\":" : "", reason ? q(reason) : "");
}
/* The trace of an env-mode hook. */
static char *TE(int index, int code, const char *result, const char *reason) {
    return xfmt("{\"index\":%d,\"type\":\"command\",\"exitCode\":%d,\"timedOut\":false,\"result\":\"%s\"%s%s}", index, code,
                result, reason ? ",\"reason\":" : "", reason ? q(reason) : "");
}
static char *g_mark;
/* A hook that must never run. */
static char *never(void) { return hkj(xfmt("touch %s; printf '{\"decision\":\"deny\",\"reason\":\"must not run\"}'", g_mark)); }
#define CHECK_NOT_RUN() CHECK(!file_exists(g_mark), "a hook after the short-circuit ran")

static jval *fire_pre(const char *config) {
    unlink(g_mark);
    OhHooks *h = ENG(config, NULL);
    if (!h) return gc_json(json_parse("{}"));
    return FIREJ(h, "{`event`:`preToolUse`,`toolName`:`Bash`}");
}

/* 1.2: a deny with no reason anywhere is named after its hook (docs/config.md "Merging"); before, the
 * outcome had no reason. Checks that reason, then removes it so the rest is compared as before. */
static void check_named(jval *o, const char *resp) {
    CHECK_JSTR(o, "reason", xfmt("denied by command hook `printf '%%s' '%s'`", resp));
    if (o) json_remove(o, "reason");
}

/* 1. A deny stops the walk; reason = its own, else the first seen before; context dropped. */
static void test_deny_short_circuits(void) {
    jval *o = fire_pre(cfg("preToolUse", hkr("{\"decision\":\"deny\",\"reason\":\"no\"}"), never(), NULL));
    CHECK_OUT(o, xfmt("{`allowed`:false,`reason`:`no`,`hooks`:[%s]}", T(0, "deny", "no")));
    CHECK_NOT_RUN();
    /* an env-mode hook after it must not run either */
    o = fire_pre(cfg("preToolUse", hkr("{\"decision\":\"deny\"}"), hk(xfmt("touch %s", g_mark)), NULL));
    check_named(o, "{\"decision\":\"deny\"}");
    CHECK_OUT(o, xfmt("{`allowed`:false,`hooks`:[%s]}", T(0, "deny", NULL)));
    CHECK_NOT_RUN();
}

static void test_deny_reason_fallback_and_context_dropped(void) {
    jval *o = fire_pre(cfg("preToolUse", hkr("{\"reason\":\"first\",\"hookSpecificOutput\":{\"additionalContext\":\"c1\"}}"),
                           hkr("{\"reason\":\"second\",\"hookSpecificOutput\":{\"additionalContext\":\"c2\"}}"),
                           hkr("{\"decision\":\"deny\"}"), never(), NULL));
    CHECK_OUT(o, xfmt("{`allowed`:false,`reason`:`first`,`hooks`:[%s,%s,%s]}", T(0, "none", "first"),
                      T(1, "none", "second"), T(2, "deny", NULL)));
    CHECK_NOT_RUN();
    /* the deny's own reason wins over earlier ones */
    o = fire_pre(cfg("preToolUse", hkr("{\"reason\":\"first\"}"), hkr("{\"decision\":\"deny\",\"reason\":\"own\"}"), NULL));
    CHECK_OUT(o, xfmt("{`allowed`:false,`reason`:`own`,`hooks`:[%s,%s]}", T(0, "none", "first"), T(1, "deny", "own")));
    /* hookSpecificOutput.reason counts as the deny's own reason */
    o = fire_pre(cfg("preToolUse", hkr("{\"reason\":\"first\"}"),
                     hkr("{\"hookSpecificOutput\":{\"decision\":\"deny\",\"reason\":\"inner\"}}"), NULL));
    CHECK_OUT(o, xfmt("{`allowed`:false,`permissionDecision`:`deny`,`reason`:`inner`,`hooks`:[%s,%s]}",
                      T(0, "none", "first"), T(1, "deny", "inner")));
    /* an env-mode deny after context: context dropped, its own reason */
    o = fire_pre(cfg("preToolUse", hkr("{\"hookSpecificOutput\":{\"additionalContext\":\"c\"},\"reason\":\"r\"}"),
                     hk("exit 1"), never(), NULL));
    CHECK_OUT(o, xfmt("{`allowed`:false,`reason`:`hook denied (exit code)`,`hooks`:[%s,%s]}", T(0, "none", "r"),
                      TE(1, 1, "deny", "hook denied (exit code)")));
    CHECK_NOT_RUN();
}

/* A permission deny sets permissionDecision; a top-level deny does not. */
static void test_permission_deny(void) {
    jval *o = fire_pre(cfg("preToolUse", hkr("{\"hookSpecificOutput\":{\"additionalContext\":\"c\"}}"),
                           hkr("{\"hookSpecificOutput\":{\"decision\":\"deny\"}}"), never(), NULL));
    check_named(o, "{\"hookSpecificOutput\":{\"decision\":\"deny\"}}");
    CHECK_OUT(o, xfmt("{`allowed`:false,`permissionDecision`:`deny`,`hooks`:[%s,%s]}", T(0, "none", NULL), T(1, "deny", NULL)));
    CHECK_NOT_RUN();
    /* a deny is a deny, even with hookSpecificOutput.decision allow beside it (divergence) */
    o = fire_pre(cfg("preToolUse", hkr("{\"decision\":\"deny\",\"reason\":\"x\",\"hookSpecificOutput\":{\"decision\":\"allow\"}}"),
                     never(), NULL));
    CHECK_OUT(o, xfmt("{`allowed`:false,`permissionDecision`:`deny`,`reason`:`x`,`hooks`:[%s]}", T(0, "deny", "x")));
    CHECK_NOT_RUN();
    o = fire_pre(cfg("preToolUse", hkr("{\"decision\":\"allow\",\"hookSpecificOutput\":{\"decision\":\"deny\",\"reason\":\"y\"}}"),
                     never(), NULL));
    CHECK_OUT(o, xfmt("{`allowed`:false,`permissionDecision`:`deny`,`reason`:`y`,`hooks`:[%s]}", T(0, "deny", "y")));
    CHECK_NOT_RUN();
}

/* 2. A permission allow stops the walk, keeps the context, drops the reason. */
static void test_permission_allow_short_circuits(void) {
    jval *o = fire_pre(cfg("preToolUse", hkr("{\"reason\":\"r0\",\"hookSpecificOutput\":{\"additionalContext\":\"c0\"}}"),
                           hkr("{\"hookSpecificOutput\":{\"decision\":\"allow\",\"additionalContext\":\"c1\",\"reason\":\"r1\"}}"),
                           never(), NULL));
    CHECK_OUT(o, xfmt("{`allowed`:true,`permissionDecision`:`allow`,`additionalContext`:`c0\\n\\nc1`,`hooks`:[%s,%s]}",
                      T(0, "none", "r0"), T(1, "allow", "r1")));
    CHECK_NOT_RUN();
    /* an earlier ask gives way to the allow */
    o = fire_pre(cfg("preToolUse", hkr("{\"hookSpecificOutput\":{\"decision\":\"ask\"}}"),
                     hkr("{\"hookSpecificOutput\":{\"decision\":\"allow\"}}"), never(), NULL));
    CHECK_OUT(o, xfmt("{`allowed`:true,`permissionDecision`:`allow`,`hooks`:[%s,%s]}", T(0, "ask", NULL), T(1, "allow", NULL)));
    CHECK_NOT_RUN();
}

/* A top-level allow does not stop the walk. */
static void test_top_level_allow_continues(void) {
    jval *o = fire_pre(cfg("preToolUse", hkr("{\"decision\":\"allow\",\"reason\":\"a\"}"),
                           hkj(xfmt("touch %s; printf '{\"decision\":\"deny\"}'", g_mark)), NULL));
    CHECK_OUT(o, xfmt("{`allowed`:false,`reason`:`a`,`hooks`:[%s,%s]}", T(0, "allow", "a"), T(1, "deny", NULL)));
    CHECK(file_exists(g_mark), "the hook after a top-level allow must run");
    o = fire_pre(cfg("preToolUse", hkr("{\"decision\":\"allow\"}"), hkr("{\"decision\":\"allow\"}"), NULL));
    CHECK_OUT(o, xfmt("{`allowed`:true,`hooks`:[%s,%s]}", T(0, "allow", NULL), T(1, "allow", NULL)));
}

/* 3. An ask is remembered. */
static void test_ask_remembered(void) {
    jval *o = fire_pre(cfg("preToolUse", hkr("{\"hookSpecificOutput\":{\"decision\":\"ask\"}}"),
                           hkr("{\"hookSpecificOutput\":{\"additionalContext\":\"c\"}}"), NULL));
    CHECK_OUT(o, xfmt("{`allowed`:true,`permissionDecision`:`ask`,`additionalContext`:`c`,`hooks`:[%s,%s]}",
                      T(0, "ask", NULL), T(1, "none", NULL)));
    /* ask, then a top-level deny: denied, and no permission decision (the deny carried none) */
    o = fire_pre(cfg("preToolUse", hkr("{\"hookSpecificOutput\":{\"decision\":\"ask\",\"reason\":\"why\"}}"),
                     hkr("{\"decision\":\"deny\"}"), NULL));
    CHECK_OUT(o, xfmt("{`allowed`:false,`reason`:`why`,`hooks`:[%s,%s]}", T(0, "ask", "why"), T(1, "deny", NULL)));
    /* ask, then a permission deny */
    o = fire_pre(cfg("preToolUse", hkr("{\"hookSpecificOutput\":{\"decision\":\"ask\"}}"),
                     hkr("{\"hookSpecificOutput\":{\"decision\":\"deny\"}}"), NULL));
    check_named(o, "{\"hookSpecificOutput\":{\"decision\":\"deny\"}}");
    CHECK_OUT(o, xfmt("{`allowed`:false,`permissionDecision`:`deny`,`hooks`:[%s,%s]}", T(0, "ask", NULL), T(1, "deny", NULL)));
    /* two asks */
    o = fire_pre(cfg("preToolUse", hkr("{\"hookSpecificOutput\":{\"decision\":\"ask\"}}"), hkr("{}"),
                     hkr("{\"hookSpecificOutput\":{\"decision\":\"ask\"}}"), NULL));
    CHECK_OUT(o, xfmt("{`allowed`:true,`permissionDecision`:`ask`,`hooks`:[%s,%s,%s]}", T(0, "ask", NULL),
                      T(1, "none", NULL), T(2, "ask", NULL)));
}

/* 4. Contexts joined with "\n\n", empty ones skipped; the first non-empty reason kept. */
static void test_context_and_reason_gathering(void) {
    jval *o = fire_pre(cfg("preToolUse", hkr("{\"hookSpecificOutput\":{\"additionalContext\":\"a\"}}"),
                           hkr("{\"hookSpecificOutput\":{\"additionalContext\":\"\"}}"), hkr("{\"hookSpecificOutput\":{}}"),
                           hkr("{\"hookSpecificOutput\":{\"additionalContext\":\"b\\nb\"}}"), hk("exit 0"),
                           hkr("{\"hookSpecificOutput\":{\"additionalContext\":\"c\"}}"), NULL));
    CHECK_OUT(o, xfmt("{`allowed`:true,`additionalContext`:`a\\n\\nb\\nb\\n\\nc`,`hooks`:[%s,%s,%s,%s,%s,%s]}",
                      T(0, "none", NULL), T(1, "none", NULL), T(2, "none", NULL), T(3, "none", NULL),
                      TE(4, 0, "none", NULL), T(5, "none", NULL)));
    o = fire_pre(cfg("preToolUse", hkr("{\"reason\":\"\"}"), hkr("{\"reason\":\"r1\"}"), hkr("{\"reason\":\"r2\"}"),
                     hkr("{\"hookSpecificOutput\":{\"reason\":\"r3\"}}"), NULL));
    CHECK_OUT(o, xfmt("{`allowed`:true,`reason`:`r1`,`hooks`:[%s,%s,%s,%s]}", T(0, "none", NULL), T(1, "none", "r1"),
                      T(2, "none", "r2"), T(3, "none", "r3")));
    /* hookSpecificOutput.reason is a reason too */
    o = fire_pre(cfg("preToolUse", hkr("{\"hookSpecificOutput\":{\"reason\":\"inner\"}}"), hkr("{\"reason\":\"outer\"}"), NULL));
    CHECK_OUT(o, xfmt("{`allowed`:true,`reason`:`inner`,`hooks`:[%s,%s]}", T(0, "none", "inner"), T(1, "none", "outer")));
    /* nothing at all */
    o = fire_pre(cfg("preToolUse", hkr("{}"), hkr(""), NULL));
    CHECK_OUT(o, xfmt("{`allowed`:true,`hooks`:[%s,%s]}", T(0, "none", NULL), T(1, "none", NULL)));
}

/* The same walk on every blocking event. */
static void test_every_blocking_event(void) {
    const char *evs[] = {"preToolUse", "userPromptSubmit", "permissionRequest", "elicitation"};
    for (int i = 0; i < 4; i++) {
        unlink(g_mark);
        OhHooks *h = ENG(xfmt("{\"hooks\":{\"%s\":[%s,%s,%s]}}", evs[i],
                              hkr("{\"hookSpecificOutput\":{\"additionalContext\":\"c0\",\"decision\":\"ask\"}}"),
                              hkr("{\"hookSpecificOutput\":{\"decision\":\"allow\",\"additionalContext\":\"c1\"}}"), never()),
                         NULL);
        if (!h) continue;
        jval *o = FIRE(h, xfmt("{\"event\":\"%s\",\"toolName\":\"Bash\",\"prompt\":\"p\"}", evs[i]));
        CHECK_OUT(o, xfmt("{`allowed`:true,`permissionDecision`:`allow`,`additionalContext`:`c0\\n\\nc1`,`hooks`:[%s,%s]}",
                          T(0, "ask", NULL), T(1, "allow", NULL)));
        CHECK_NOT_RUN();
        h = ENG(xfmt("{\"hooks\":{\"%s\":[%s,%s,%s]}}", evs[i], hkr("{\"hookSpecificOutput\":{\"additionalContext\":\"c0\"}}"),
                     hkr("{\"decision\":\"deny\",\"reason\":\"stop\"}"), never()),
                NULL);
        if (!h) continue;
        o = FIRE(h, xfmt("{\"event\":\"%s\",\"toolName\":\"Bash\",\"prompt\":\"p\"}", evs[i]));
        CHECK_OUT(o, xfmt("{`allowed`:false,`reason`:`stop`,`hooks`:[%s,%s]}", T(0, "none", NULL), T(1, "deny", "stop")));
        CHECK_NOT_RUN();
    }
    /* permissionRequest in env mode: exit 0 is ask, and the walk goes on */
    OhHooks *h = ENG(cfg("permissionRequest", hk("exit 0"), hkr("{\"hookSpecificOutput\":{\"additionalContext\":\"c\"}}"), NULL),
                     NULL);
    if (h) {
        jval *o = FIREJ(h, "{`event`:`permissionRequest`,`toolName`:`Bash`}");
        CHECK_OUT(o, xfmt("{`allowed`:true,`permissionDecision`:`ask`,`additionalContext`:`c`,`hooks`:[%s,%s]}",
                          TE(0, 0, "ask", NULL), T(1, "none", NULL)));
    }
}

int main(void) {
    setup("test_merge");
    setenv("HOME", g_dir, 1);
    if (chdir(g_dir)) return 2;
    g_mark = malloc(strlen(g_dir) + 16);
    sprintf(g_mark, "%s/must-not-run", g_dir);
    RUN(test_deny_short_circuits);
    RUN(test_deny_reason_fallback_and_context_dropped);
    RUN(test_permission_deny);
    RUN(test_permission_allow_short_circuits);
    RUN(test_top_level_allow_continues);
    RUN(test_ask_remembered);
    RUN(test_context_and_reason_gathering);
    RUN(test_every_blocking_event);
    free(g_mark);
    return DONE();
}
