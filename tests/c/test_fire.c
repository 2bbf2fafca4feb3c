/* test_fire.c — CONTRACT §3.2 (events, blocking vs non-blocking), §3.3 (matchers), §3.4 (command
 * hooks: exit mapping, stdin, jsonIO responses, output caps, timeouts, process groups), §3.6
 * (prompt hooks), §5 (OH_* variables). */
#include "common.h"

#include <signal.h>

static const char *BLOCKING[] = {"preToolUse", "userPromptSubmit", "permissionRequest", "elicitation"};
static const char *NON_BLOCKING[] = {
    "sessionStart", "sessionEnd", "postToolUse", "postToolUseFailure", "postToolBatch", "userPromptExpansion",
    "permissionDenied", "fileChanged", "cwdChanged", "subagentStart", "subagentStop", "preCompact", "postCompact",
    "configChange", "notification", "turnStart", "turnStop", "taskCreated", "taskCompleted", "worktreeCreate",
    "worktreeRemove", "elicitationResult", "instructionsLoaded"};
#define NB (int)(sizeof NON_BLOCKING / sizeof *NON_BLOCKING)

static void test_events_accepted(void) {
    OhHooks *empty = ENG(J("{}"), NULL);
    sbuf b = {0};
    sb_puts(&b, "{\"hooks\":{");
    for (int i = 0; i < 4; i++) sb_printf(&b, "%s\"%s\":[{\"command\":\"exit 1\"}]", i ? "," : "", BLOCKING[i]);
    for (int i = 0; i < NB; i++) sb_printf(&b, ",\"%s\":[{\"command\":\"exit 1\"}]", NON_BLOCKING[i]);
    sb_puts(&b, "}}");
    OhHooks *h = ENG(gc_str(sb_take(&b)), "`waitNonBlocking`:true");
    if (!h || !empty) return;
    for (int i = 0; i < 4; i++) {
        char *env = xfmt("{\"event\":\"%s\",\"toolName\":\"Bash\"}", BLOCKING[i]);
        CHECK_OUT(FIRE(empty, env), "{`allowed`:true,`hooks`:[]}");
        jval *o = FIRE(h, env);
        CHECK_JBOOL(o, "allowed", 0);
        CHECK_JSTR(o, "reason", "hook denied (exit code)");
        CHECK_JNUM(o, "hooks.0.exitCode", 1);
    }
    for (int i = 0; i < NB; i++) {
        char *env = xfmt("{\"event\":\"%s\",\"toolName\":\"Bash\"}", NON_BLOCKING[i]);
        CHECK_OUT(FIRE(empty, env), "{`allowed`:true,`hooks`:[]}");
        jval *o = FIRE(h, env);
        CHECK_JBOOL(o, "allowed", 1);
        CHECK_ABSENT(o, "permissionDecision");
        CHECK_ABSENT(o, "error");
        CHECK_LEN(o, "hooks", 1);
        CHECK_JNUM(o, "hooks.0.exitCode", 1);
        CHECK_JNUM(o, "hooks.0.index", 0);
    }
}

static void test_non_blocking_returns_at_once(void) {
    char *mark = xfmt("%s/nb-done", newdir("nb"));
    OhHooks *h = ENG(cfg("postToolUse", hk(xfmt("sleep 0.6; touch %s; exit 1", mark)), hkr("{\"decision\":\"deny\"}"),
                         hk("exit 2"), NULL),
                     NULL);
    if (!h) return;
    double t0 = now_ms();
    jval *o = FIREJ(h, "{`event`:`postToolUse`,`toolName`:`Bash`}");
    double dt = now_ms() - t0;
    CHECK(dt < 100 + slack(), "a non-blocking fire took %.0f ms", dt);
    CHECK_JBOOL(o, "allowed", 1);
    CHECK_ABSENT(o, "permissionDecision");
    CHECK_ABSENT(o, "reason");
    if (dt < 500) CHECK(!file_exists(mark), "the hook cannot have finished yet");
    CHECK(wait_for_file(mark, 3000), "the background hook runs to its end");
}

static void test_wait_non_blocking(void) {
    OhHooks *h = ENG(cfg("postToolUse",
                         hkj("sleep 0.4; printf '{\"decision\":\"deny\",\"reason\":\"r1\",\"hookSpecificOutput\":"
                             "{\"decision\":\"deny\",\"additionalContext\":\"c1\"}}'"),
                         hk("sleep 0.4; exit 1"), hkr("{\"hookSpecificOutput\":{\"additionalContext\":\"c2\"}}"), NULL),
                     "`waitNonBlocking`:true");
    if (!h) return;
    double t0 = now_ms();
    jval *o = FIREJ(h, "{`event`:`postToolUse`,`toolName`:`Bash`}");
    double dt = now_ms() - t0;
    CHECK(dt >= 380, "waitNonBlocking waits for the hooks (took %.0f ms)", dt);
    CHECK(dt < 400 + slack(), "the hooks run concurrently (took %.0f ms for two 400 ms hooks)", dt);
    CHECK_JBOOL(o, "allowed", 1);
    CHECK_ABSENT(o, "permissionDecision");
    CHECK_JSTR(o, "reason", "r1");
    CHECK_JSTR(o, "additionalContext", "c1\n\nc2");
    CHECK_LEN(o, "hooks", 3);
    for (int i = 0; i < 3; i++) CHECK_JNUM(o, xfmt("hooks.%d.index", i), i);
    CHECK_JBOOL(o, "hooks.0.jsonIO", 1);
    CHECK_JNUM(o, "hooks.1.exitCode", 1);
}

/* Env mode: exit code → decision per event (§3.4). */
static void test_env_exit_mapping(void) {
    OhHooks *h = ENG(J("{`hooks`:{"
                       "`preToolUse`:[{`command`:`exit $OH_TOOL_NAME`}],"
                       "`userPromptSubmit`:[{`command`:`exit $OH_PROMPT`}],"
                       "`elicitation`:[{`command`:`exit $OH_MESSAGE`}],"
                       "`permissionRequest`:[{`command`:`exit $OH_TOOL_NAME`}]}}"),
                     NULL);
    if (!h) return;
    const char *codes[] = {"1", "2", "3", "126", "255"};
    CHECK_OUT(FIREJ(h, "{`event`:`preToolUse`,`toolName`:`0`}"),
              "{`allowed`:true,`hooks`:[{`index`:0,`type`:`command`,`exitCode`:0,`timedOut`:false,`result`:`none`}]}");
    CHECK_OUT(FIREJ(h, "{`event`:`userPromptSubmit`,`prompt`:`0`}"),
              "{`allowed`:true,`hooks`:[{`index`:0,`type`:`command`,`exitCode`:0,`timedOut`:false,`result`:`none`}]}");
    CHECK_OUT(FIREJ(h, "{`event`:`elicitation`,`message`:`0`}"),
              "{`allowed`:true,`hooks`:[{`index`:0,`type`:`command`,`exitCode`:0,`timedOut`:false,`result`:`none`}]}");
    CHECK_OUT(FIREJ(h, "{`event`:`permissionRequest`,`toolName`:`0`}"),
              "{`allowed`:true,`permissionDecision`:`ask`,"
              "`hooks`:[{`index`:0,`type`:`command`,`exitCode`:0,`timedOut`:false,`result`:`ask`}]}");
    for (size_t i = 0; i < sizeof codes / sizeof *codes; i++) {
        const char *deny = xfmt("{\"allowed\":false,\"reason\":\"hook denied (exit code)\",\"hooks\":[{\"index\":0,"
                                "\"type\":\"command\",\"exitCode\":%s,\"timedOut\":false,\"result\":\"deny\","
                                "\"reason\":\"hook denied (exit code)\"}]}",
                                codes[i]);
        CHECK_OUT(FIRE(h, xfmt("{\"event\":\"preToolUse\",\"toolName\":\"%s\"}", codes[i])), deny);
        CHECK_OUT(FIRE(h, xfmt("{\"event\":\"userPromptSubmit\",\"prompt\":\"%s\"}", codes[i])), deny);
        CHECK_OUT(FIRE(h, xfmt("{\"event\":\"elicitation\",\"message\":\"%s\"}", codes[i])), deny);
        CHECK_OUT(FIRE(h, xfmt("{\"event\":\"permissionRequest\",\"toolName\":\"%s\"}", codes[i])),
                  xfmt("{\"allowed\":false,\"permissionDecision\":\"deny\",\"reason\":\"hook denied (exit code)\","
                       "\"hooks\":[{\"index\":0,\"type\":\"command\",\"exitCode\":%s,\"timedOut\":false,"
                       "\"result\":\"deny\",\"reason\":\"hook denied (exit code)\"}]}",
                       codes[i]));
    }
    /* a shell killed by a signal: `signal`, no exitCode, deny */
    h = ENG(cfg("preToolUse", hk("kill -9 $$"), NULL), NULL);
    if (!h) return;
    jval *o = FIREJ(h, "{`event`:`preToolUse`}");
    CHECK_JBOOL(o, "allowed", 0);
    CHECK_JSTR(o, "reason", "hook denied (exit code)");
    CHECK_JNUM(o, "hooks.0.signal", 9);
    CHECK_ABSENT(o, "hooks.0.exitCode");
    CHECK_JBOOL(o, "hooks.0.timedOut", 0);
}

/* Env mode: stdin is at EOF at once, stdout is drained and discarded. */
static void test_env_mode_io(void) {
    OhHooks *h = ENG(cfg("preToolUse", hkx("cat; echo '{\"decision\":\"deny\",\"reason\":\"ignored\"}'", "`timeout`:3000"),
                         hk("head -c 3000000 /dev/zero"), hk("cat >/dev/null; exit 0"), NULL),
                     NULL);
    if (!h) return;
    double t0 = now_ms();
    jval *o = FIREJ(h, "{`event`:`preToolUse`,`toolName`:`Bash`}");
    double dt = now_ms() - t0;
    CHECK(dt < 1000 + slack(), "env-mode hooks see EOF on stdin at once (took %.0f ms)", dt);
    CHECK_OUT(o, "{`allowed`:true,`hooks`:["
                 "{`index`:0,`type`:`command`,`exitCode`:0,`timedOut`:false,`result`:`none`},"
                 "{`index`:1,`type`:`command`,`exitCode`:0,`timedOut`:false,`result`:`none`},"
                 "{`index`:2,`type`:`command`,`exitCode`:0,`timedOut`:false,`result`:`none`}]}");
}

/* jsonIO stdin: compact envelope, `event` first, then the keys in the order received, then EOF. */
static void test_jsonio_stdin(void) {
    char *d = newdir("stdin");
    char *f = xfmt("%s/envelope", d);
    OhHooks *h = ENG(cfg("preToolUse", hkj(xfmt("cat > %s", f)), NULL), NULL);
    if (!h) return;
    const char *env = J("{ `toolName` : `Bash`, `zeta`: 1, `event`: `preToolUse`, `alpha`: `x y`,"
                        " `n`: {`b`: 1, `a`: [true, null, -2.5]}, `s`: `q\\`uote\\\\ \\u00e9 \\n` }");
    jval *o = FIRE(h, env);
    CHECK_OUT(o, "{`allowed`:true,`hooks`:[{`index`:0,`type`:`command`,`jsonIO`:true,`exitCode`:0,`timedOut`:false,"
                 "`result`:`none`}]}");
    size_t n = 0;
    char *got = read_file(f, &n);
    CHECK(got != NULL, "the hook wrote its stdin to %s", f);
    if (!got) return;
    CHECK(strlen(got) == n, "no NUL in stdin");
    jval *v = gc_json(json_parse(got));
    CHECK(v && v->t == J_OBJ, "stdin is one JSON object followed by EOF: [%s]", got);
    if (!v || v->t != J_OBJ) return;
    const char *order[] = {"event", "toolName", "zeta", "alpha", "n", "s"};
    int ok = v->len == 6;
    for (int i = 0; ok && i < 6; i++) ok = streq(v->keys[i], order[i]);
    CHECK(ok, "keys: event first, then in the order received: %s", got);
    CHECK(json_equal(v, gc_json(json_parse(env))), "the envelope's meaning is unchanged: %s", got);
    /* compact: no whitespace outside strings, nothing after the object */
    int in_str = 0, ws = 0;
    for (const char *p = got; *p; p++) {
        if (in_str) {
            if (*p == '\\') p++;
            else if (*p == '"') in_str = 0;
        } else if (*p == '"') in_str = 1;
        else if (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r') ws = 1;
    }
    CHECK(!ws, "the envelope on stdin is compact JSON (no whitespace, no trailing newline): [%s]", got);
    CHECK(got[0] == '{' && got[n - 1] == '}', "stdin is exactly the object: [%s]", got);

    /* a large envelope reaches the hook whole */
    sbuf b = {0};
    sb_puts(&b, "{\"event\":\"preToolUse\",\"big\":\"");
    for (int i = 0; i < 300000; i++) sb_putc(&b, (char)('a' + i % 26));
    sb_puts(&b, "\"}");
    char *big = gc_str(sb_take(&b));
    o = FIRE(h, big);
    CHECK_JBOOL(o, "allowed", 1);
    got = read_file(f, &n);
    CHECK(got && n == strlen(big) && !memcmp(got, big, n), "a 300 KB envelope arrives whole (%zu bytes)", n);
}

/* jsonIO response parsing (§3.4) on a blocking event. */
static void test_jsonio_responses(void) {
    struct {
        const char *resp, *result, *allowed, *pd, *reason, *ctx;
    } cases[] = {
        {"{\"decision\":\"deny\",\"reason\":\"r\"}", "deny", "false", NULL, "r", NULL},
        /* 1.2: a deny with no reason anywhere names its hook (docs/config.md "Merging"); before: no reason */
        {"{\"decision\":\"deny\"}", "deny", "false", NULL, "denied by command hook `printf '%s' '{\"decision\":\"deny\"}'`", NULL},
        {"{\"decision\":\"allow\"}", "allow", "true", NULL, NULL, NULL},
        {"{\"decision\":\"allow\",\"reason\":\"fine\"}", "allow", "true", NULL, "fine", NULL},
        {"{\"hookSpecificOutput\":{\"decision\":\"ask\"}}", "ask", "true", "ask", NULL, NULL},
        {"{\"hookSpecificOutput\":{\"decision\":\"allow\",\"additionalContext\":\"c\"}}", "allow", "true", "allow", NULL, "c"},
        {"{\"hookSpecificOutput\":{\"decision\":\"deny\",\"reason\":\"Bash is disabled by policy\"}}", "deny", "false",
         "deny", "Bash is disabled by policy", NULL},
        {"{\"reason\":\"top\",\"hookSpecificOutput\":{\"decision\":\"deny\",\"reason\":\"inner\"}}", "deny", "false", "deny",
         "top", NULL},
        {"{\"hookSpecificOutput\":{\"additionalContext\":\"ctx\"}}", "none", "true", NULL, NULL, "ctx"},
        {"{\"hookSpecificOutput\":{\"reason\":\"only-inner\"}}", "none", "true", NULL, "only-inner", NULL},
        {"{\"reason\":\"just a reason\"}", "none", "true", NULL, "just a reason", NULL},
        /* unknown fields and values are ignored */
        {"{\"decision\":\"ask\"}", "none", "true", NULL, NULL, NULL},
        {"{\"decision\":\"DENY\"}", "none", "true", NULL, NULL, NULL},
        {"{\"decision\":\"block\",\"reason\":\"x\"}", "none", "true", NULL, "x", NULL},
        {"{\"decision\":null}", "none", "true", NULL, NULL, NULL},
        {"{\"decision\":false}", "none", "true", NULL, NULL, NULL},
        {"{\"hookSpecificOutput\":{\"decision\":\"maybe\"}}", "none", "true", NULL, NULL, NULL},
        {"{\"hookSpecificOutput\":\"deny\"}", "none", "true", NULL, NULL, NULL},
        {"{\"reason\":5}", "none", "true", NULL, NULL, NULL},
        {"{\"allowed\":false}", "none", "true", NULL, NULL, NULL},
        {"{\"continue\":false,\"x\":[1,2],\"decision\":\"deny\",\"reason\":\"u\"}", "deny", "false", NULL, "u", NULL},
        {"  \n {\"decision\":\"deny\",\"reason\":\"ws\"} \n\n", "deny", "false", NULL, "ws", NULL},
        /* empty, blank and malformed: no decision */
        {"", "none", "true", NULL, NULL, NULL},
        {"  \n\t\n", "none", "true", NULL, NULL, NULL},
        {"{not json", "none", "true", NULL, NULL, NULL},
        {"{\"decision\":\"deny\"", "none", "true", NULL, NULL, NULL},
        {"{\"decision\":\"deny\"} trailing", "none", "true", NULL, NULL, NULL},
        {"[{\"decision\":\"deny\"}]", "none", "true", NULL, NULL, NULL},
        {"\"deny\"", "none", "true", NULL, NULL, NULL},
        {"42", "none", "true", NULL, NULL, NULL},
        {"null", "none", "true", NULL, NULL, NULL},
        {"deny", "none", "true", NULL, NULL, NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        OhHooks *h = ENG(cfg("preToolUse", hkr(cases[i].resp), NULL), NULL);
        if (!h) continue;
        jval *o = FIREJ(h, "{`event`:`preToolUse`,`toolName`:`Bash`}");
        strip_durations(o);
        jval *t = json_path(o, "hooks.0");
        const char *res = json_str(json_get(t, "result"));
        int ok = streq(res, cases[i].result) && json_get(o, "allowed") &&
                 !json_get(o, "allowed")->b == !strcmp(cases[i].allowed, "false") &&
                 streq(json_str(json_get(o, "permissionDecision")), cases[i].pd) &&
                 streq(json_str(json_get(o, "reason")), cases[i].reason) &&
                 streq(json_str(json_get(o, "additionalContext")), cases[i].ctx) &&
                 json_get(t, "jsonIO") && json_get(t, "jsonIO")->b && json_path(o, "hooks.0.exitCode") &&
                 json_path(o, "hooks.0.exitCode")->n == 0 && json_get(o, "hooks")->len == 1 && !json_get(o, "error");
        CHECK(ok, "response [%s]: want result %s allowed %s permissionDecision %s reason %s context %s\n   got: %s",
              cases[i].resp, cases[i].result, cases[i].allowed, show(cases[i].pd), show(cases[i].reason),
              show(cases[i].ctx), gc_str(json_dump(o)));
    }
}

static void test_jsonio_strict(void) {
    const char *malformed[] = {"{not json", "[1]", "42", "null", "\"x\"", "deny", "{\"decision\":\"deny\""};
    for (size_t i = 0; i < sizeof malformed / sizeof *malformed; i++) {
        OhHooks *h = ENG(cfg("preToolUse", hkr(malformed[i]), NULL), "`strict`:true");
        if (!h) continue;
        jval *o = FIREJ(h, "{`event`:`preToolUse`,`toolName`:`Bash`}");
        CHECK_JBOOL(o, "allowed", 0);
        CHECK_JSTR(o, "reason", "malformed hook response");
        CHECK_ABSENT(o, "permissionDecision");
        CHECK_JSTR(o, "hooks.0.result", "deny");
        CHECK_JSTR(o, "hooks.0.reason", "malformed hook response");
    }
    /* empty / blank is not malformed; good responses unchanged */
    const char *fine[] = {"", " \n ", "{}", "{\"reason\":\"ok\"}"};
    for (size_t i = 0; i < sizeof fine / sizeof *fine; i++) {
        OhHooks *h = ENG(cfg("preToolUse", hkr(fine[i]), NULL), "`strict`:true");
        if (!h) continue;
        jval *o = FIREJ(h, "{`event`:`preToolUse`}");
        CHECK_JBOOL(o, "allowed", 1);
        CHECK_JSTR(o, "hooks.0.result", "none");
    }
    /* strict does not make a non-blocking event block */
    OhHooks *h = ENG(cfg("postToolUse", hkr("{not json"), NULL), "`strict`:true,`waitNonBlocking`:true");
    if (h) {
        jval *o = FIREJ(h, "{`event`:`postToolUse`}");
        CHECK_JBOOL(o, "allowed", 1);
        CHECK_LEN(o, "hooks", 1);
    }
}

/* jsonIO failure: non-zero exit / timeout → deny `hook failed (timeout or non-zero exit)`. */
static void test_jsonio_failure(void) {
    const char *cmds[] = {"exit 1", "printf '{\"decision\":\"allow\"}'; exit 3",
                          "printf '{\"hookSpecificOutput\":{\"decision\":\"allow\"}}'; exit 2", "kill -TERM $$"};
    for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++) {
        OhHooks *h = ENG(cfg("preToolUse", hkj(cmds[i]), hkr("{\"hookSpecificOutput\":{\"additionalContext\":\"after\"}}"),
                             NULL),
                         NULL);
        if (!h) continue;
        jval *o = FIREJ(h, "{`event`:`preToolUse`,`toolName`:`Bash`}");
        CHECK_JBOOL(o, "allowed", 0);
        CHECK_JSTR(o, "reason", "hook failed (timeout or non-zero exit)");
        CHECK_ABSENT(o, "permissionDecision");
        CHECK_ABSENT(o, "additionalContext");
        CHECK_LEN(o, "hooks", 1);
        CHECK_JSTR(o, "hooks.0.result", "deny");
        CHECK_JSTR(o, "hooks.0.reason", "hook failed (timeout or non-zero exit)");
    }
}

static char *rep(char c, size_t n) {
    char *s = malloc(n + 1);
    if (!s) abort();
    memset(s, c, n);
    s[n] = 0;
    return gc_str(s);
}

static void test_max_output_bytes(void) {
    /* {"reason":"ppp..."} of exactly 100 bytes is fine; 101 bytes is too much ({"reason":""} is 13) */
    char *p87 = rep('p', 87), *p88 = rep('p', 88);
    char *resp100 = xfmt("{\"reason\":\"%s\"}", p87), *resp101 = xfmt("{\"reason\":\"%s\"}", p88);
    OhHooks *h = ENG(cfg("preToolUse", hkr(resp100), NULL), "`maxOutputBytes`:100");
    if (h) {
        jval *o = FIREJ(h, "{`event`:`preToolUse`}");
        CHECK_JBOOL(o, "allowed", 1);
        CHECK_JSTR(o, "reason", p87);
    }
    h = ENG(cfg("preToolUse", hkr(resp101), NULL), "`maxOutputBytes`:100");
    if (h) {
        jval *o = FIREJ(h, "{`event`:`preToolUse`}");
        CHECK_JBOOL(o, "allowed", 0);
        CHECK_JSTR(o, "reason", "hook output exceeded maxOutputBytes");
        CHECK_JSTR(o, "hooks.0.result", "deny");
        CHECK_JSTR(o, "hooks.0.reason", "hook output exceeded maxOutputBytes");
    }
    /* the default cap is 1 MiB; a hook printing 3 MB does not hang the fire */
    h = ENG(cfg("preToolUse", hkj("head -c 3000000 /dev/zero | tr '\\0' ' '; echo '{}'"), NULL), NULL);
    if (h) {
        double t0 = now_ms();
        jval *o = FIREJ(h, "{`event`:`preToolUse`}");
        double dt = now_ms() - t0;
        CHECK_JBOOL(o, "allowed", 0);
        CHECK_JSTR(o, "reason", "hook output exceeded maxOutputBytes");
        CHECK(dt < 3000 + slack(), "took %.0f ms", dt);
    }
    /* just under 1 MiB is fine */
    h = ENG(cfg("preToolUse", hkj("head -c 1000000 /dev/zero | tr '\\0' ' '; echo '{\"reason\":\"big\"}'"), NULL), NULL);
    if (h) CHECK_JSTR(FIREJ(h, "{`event`:`preToolUse`}"), "reason", "big");
    /* the cap is for jsonIO: env-mode stdout is discarded, whatever its size */
    h = ENG(cfg("preToolUse", hk("head -c 2000 /dev/zero"), NULL), "`maxOutputBytes`:100");
    if (h) CHECK_JBOOL(FIREJ(h, "{`event`:`preToolUse`}"), "allowed", 1);
}

static void test_stderr_trace(void) {
    OhHooks *h = ENG(cfg("preToolUse", hk("echo oops >&2; exit 0"), hkj("printf 'json err' >&2; echo '{}'"),
                         hk("head -c 100000 /dev/zero | tr '\\0' e >&2"), hk("exit 0"), NULL),
                     NULL);
    if (!h) return;
    jval *o = FIREJ(h, "{`event`:`preToolUse`}");
    CHECK_JSTR(o, "hooks.0.stderr", "oops\n");
    CHECK_JSTR(o, "hooks.1.stderr", "json err");
    const char *s = json_str(json_path(o, "hooks.2.stderr"));
    size_t n = s ? json_path(o, "hooks.2.stderr")->slen : 0;
    int all_e = n > 0;
    for (size_t i = 0; i < n; i++)
        if (s[i] != 'e') all_e = 0;
    CHECK(n == 4096 && all_e, "stderr keeps the first 4 KiB: got %zu bytes", n);
    CHECK_ABSENT(o, "hooks.3.stderr");
    CHECK_JBOOL(o, "allowed", 1);
}

static int proc_alive(long pid) {
    char p[64], buf[512];
    snprintf(p, sizeof p, "/proc/%ld/stat", pid);
    FILE *f = fopen(p, "r");
    if (!f) return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    char *rp = strrchr(buf, ')');
    return !(rp && rp[1] == ' ' && (rp[2] == 'Z' || rp[2] == 'X'));
}
static int proc_exists(long pid) {
    char p[64];
    snprintf(p, sizeof p, "/proc/%ld", pid);
    return access(p, F_OK) == 0;
}
static long read_long(const char *path) {
    char *s = read_file(path, NULL);
    return s ? atol(s) : -1;
}

static void test_timeouts(void) {
    char *d = newdir("timeout");
    /* env mode, a shell that dies on SIGTERM. The timeout is 300 ms plus the run's slack where
     * the engine runs under valgrind or ASan: the shell must have written its pid before it. */
    int t_term = 300 + (int)(slack() - 250.0);
    OhHooks *h = ENG(cfg("preToolUse", hkx(xfmt("echo $$ > %s/pid1; sleep 5", d), xfmt("`timeout`:%d", t_term)), NULL), NULL);
    if (h) {
        double t0 = now_ms();
        jval *o = FIREJ(h, "{`event`:`preToolUse`}");
        double dt = now_ms() - t0;
        /* the contract's bound: about timeout + 0.5 s (the engine may wait out the grace period
         * while anything of the group, even a zombie grandchild, is still there) */
        CHECK(dt >= t_term - 20 && dt < t_term + 500 + slack(), "a %d ms timeout returned after %.0f ms: %s", t_term, dt,
              gc_str(json_dump(o)));
        CHECK_JBOOL(o, "allowed", 0);
        CHECK_JSTR(o, "reason", "hook denied (exit code)");
        CHECK_JBOOL(o, "hooks.0.timedOut", 1);
        CHECK_JSTR(o, "hooks.0.result", "deny");
        CHECK_JNUM(o, "hooks.0.signal", SIGTERM);
        CHECK_ABSENT(o, "hooks.0.exitCode");
        long pid = read_long(xfmt("%s/pid1", d));
        CHECK(pid > 0 && !proc_exists(pid), "the timed-out shell %ld was reaped (no zombie)", pid);
    }
    /* jsonIO mode */
    h = ENG(cfg("preToolUse", hkx("sleep 5", "`timeout`:200,`jsonIO`:true"), NULL), NULL);
    if (h) {
        jval *o = FIREJ(h, "{`event`:`preToolUse`}");
        CHECK_JBOOL(o, "allowed", 0);
        CHECK_JSTR(o, "reason", "hook failed (timeout or non-zero exit)");
        CHECK_JBOOL(o, "hooks.0.timedOut", 1);
    }
    /* permissionRequest: a timeout is a permission deny too */
    h = ENG(cfg("permissionRequest", hkx("sleep 5", "`timeout`:200"), NULL), NULL);
    if (h) {
        jval *o = FIREJ(h, "{`event`:`permissionRequest`,`toolName`:`Bash`}");
        CHECK_JBOOL(o, "allowed", 0);
        CHECK_JSTR(o, "permissionDecision", "deny");
        CHECK_JSTR(o, "reason", "hook denied (exit code)");
    }
    /* a hook ignoring SIGTERM, with a grandchild: SIGKILL to the group 500 ms later. The shell
     * must have set its trap before the timeout: 300 ms, plus the run's slack where the engine
     * runs under valgrind or ASan (its spawn alone can take longer than 300 ms there), or the
     * SIGTERM lands first and the test measures a shell that dies on it. */
    int t_trap = 300 + (int)(slack() - 250.0);
    h = ENG(cfg("preToolUse",
                hkx(xfmt("echo $$ > %s/pid2; trap '' TERM; sleep 5 & echo $! > %s/child2; wait; wait; touch %s/survived", d, d, d),
                    xfmt("`timeout`:%d", t_trap)),
                NULL),
            NULL);
    if (h) {
        double t0 = now_ms();
        jval *o = FIREJ(h, "{`event`:`preToolUse`}");
        double dt = now_ms() - t0;
        CHECK(dt >= t_trap + 450 && dt < t_trap + 500 + slack(), "SIGTERM ignored: returned after %.0f ms, want about %d: %s",
              dt, t_trap + 500, gc_str(json_dump(o)));
        CHECK_JBOOL(o, "allowed", 0);
        CHECK_JBOOL(o, "hooks.0.timedOut", 1);
        CHECK_JNUM(o, "hooks.0.signal", SIGKILL);
        long pid = read_long(xfmt("%s/pid2", d)), child = read_long(xfmt("%s/child2", d));
        CHECK(pid > 0 && !proc_exists(pid), "the shell %ld was killed and reaped", pid);
        /* SIGKILL is delivered asynchronously: give the kernel a moment to finish the grandchild */
        for (int i = 0; i < 20 && child > 0 && proc_alive(child); i++) sleep_ms(10);
        CHECK(child > 0 && !proc_alive(child), "the grandchild %ld was killed with its group", child);
        sleep_ms(100);
        CHECK(!file_exists(xfmt("%s/survived", d)), "nothing of the hook survived");
    }
    /* defaultTimeoutMs applies to hooks without `timeout`; `timeout` overrides it */
    h = ENG(cfg("preToolUse", hk("sleep 5"), NULL), "`defaultTimeoutMs`:250");
    if (h) {
        double t0 = now_ms();
        jval *o = FIREJ(h, "{`event`:`preToolUse`}");
        double dt = now_ms() - t0;
        CHECK_JBOOL(o, "hooks.0.timedOut", 1);
        CHECK(dt < 250 + 500 + slack(), "defaultTimeoutMs 250: took %.0f ms: %s", dt, gc_str(json_dump(o)));
    }
    h = ENG(cfg("preToolUse", hkx("sleep 0.5", "`timeout`:3000"), NULL), "`defaultTimeoutMs`:100");
    if (h) {
        jval *o = FIREJ(h, "{`event`:`preToolUse`}");
        CHECK_JBOOL(o, "allowed", 1);
        CHECK_JBOOL(o, "hooks.0.timedOut", 0);
        CHECK_JNUM(o, "hooks.0.exitCode", 0);
    }
}

/* A background child holding stdout/stderr open does not hold the fire (§3.4). */
static void test_background_child(void) {
    OhHooks *h = ENG(cfg("preToolUse", hkj("sleep 5 & echo '{\"reason\":\"bg\"}'"), NULL), NULL);
    if (h) {
        double t0 = now_ms();
        jval *o = FIREJ(h, "{`event`:`preToolUse`}");
        double dt = now_ms() - t0;
        CHECK(dt < 500 + slack(), "a background child held the fire for %.0f ms", dt);
        CHECK_JBOOL(o, "allowed", 1);
        CHECK_JSTR(o, "reason", "bg");
        CHECK_JBOOL(o, "hooks.0.timedOut", 0);
        CHECK_JNUM(o, "hooks.0.exitCode", 0);
    }
    h = ENG(cfg("preToolUse", hk("(sleep 5 >&2) & exit 3"), NULL), NULL);
    if (h) {
        double t0 = now_ms();
        jval *o = FIREJ(h, "{`event`:`preToolUse`}");
        double dt = now_ms() - t0;
        CHECK(dt < 500 + slack(), "a background child holding stderr held the fire for %.0f ms", dt);
        CHECK_JSTR(o, "reason", "hook denied (exit code)");
        CHECK_JNUM(o, "hooks.0.exitCode", 3);
    }
}

/* Hooks run in `cwd`, in a process group of their own, and are reaped. */
static void test_cwd_and_process_group(void) {
    char *d = newdir("pg");
    char *out = newdir("pg-out");
    OhHooks *h = ENG_OPTS(xfmt("{\"trusted\":true,\"home\":%s,\"cwd\":%s,\"config\":%s}", q(g_dir), q(d),
                               cfg("preToolUse",
                                   hk(xfmt("pwd -P > %s/cwd; echo $$ > %s/pid; cut -d' ' -f5 /proc/$$/stat > %s/pgid",
                                           out, out, out)),
                                   NULL)));
    if (!h) return;
    FIREJ(h, "{`event`:`preToolUse`}");
    char real[4096];
    CHECK(realpath(d, real) != NULL, "realpath");
    char *cwd = read_file(xfmt("%s/cwd", out), NULL);
    CHECK(cwd && streq(cwd, xfmt("%s\n", real)), "the hook ran in %s, want %s", show(cwd), real);
    long pid = read_long(xfmt("%s/pid", out)), pgid = read_long(xfmt("%s/pgid", out));
    CHECK(pid > 0 && pgid == pid, "the hook's shell leads its own process group (pid %ld, pgid %ld)", pid, pgid);
    CHECK(pgid != (long)getpgrp(), "the hook is not in the host's process group");
    CHECK(pid > 0 && !proc_exists(pid), "the hook's shell was reaped");
}

/* §3.3 matchers, one engine per case. */
static void test_matchers(void) {
    struct { const char *match; const char *tool; int hit; } cases[] = {
        {NULL, "Bash", 1}, {"", "Bash", 1},
        /* no toolName (or "") matches every hook */
        {"Zzz", NULL, 1}, {"Zzz", "", 1}, {"/^x$/", NULL, 1}, {"F*x", "", 1},
        /* regex: unanchored, flags i m s u honoured, g y d ignored */
        {"/as/", "Bash", 1}, {"/^ba/i", "Bash", 1}, {"/^ba/", "Bash", 0}, {"/^Bash$/", "Bash", 1},
        {"/^Bash$/", "Bash2", 0}, {"/^b$/m", "a\nb", 1}, {"/^b$/", "a\nb", 0}, {"/a.b/s", "a\nb", 1},
        {"/a.b/", "a\nb", 0}, {"/Bash/gyd", "Bash", 1}, {"/bash/gi", "Bash", 1}, {"/^\\w+$/u", "Bash", 1},
        {"/mcp__.*/", "mcp__server__tool", 1}, {"/mcp__.*/", "Bash", 0}, {"/a/", "xay", 1}, {"/a|b/", "b", 1},
        {"/x/y/", "x/y", 1}, {"/x/y/", "xy", 0},
        /* not a regex: too short, or no second slash → substring */
        {"/a", "x/ay", 1}, {"/a", "a", 0}, {"//", "x//y", 1}, {"//", "x/y", 0}, {"a/b/", "xa/b/y", 1},
        /* glob: anchored at both ends, * is any run, everything else literal */
        {"File*", "FileRead", 1}, {"File*", "MyFileRead", 0}, {"*Read", "FileRead", 1}, {"*Read", "FileReader", 0},
        {"F*d", "FileRead", 1}, {"*", "anything", 1}, {"a*", "a", 1}, {"F?le*", "F?leX", 1}, {"F?le*", "FileX", 0},
        {"a.b*", "a.bc", 1}, {"a.b*", "axbc", 0}, {"file*", "FileRead", 0}, {"[ab]*", "[ab]x", 1}, {"[ab]*", "ax", 0},
        {"*(x)", "f(x)", 1}, {"*^$*", "a^$b", 1}, {"a*b*c", "aXbYc", 1}, {"a*b*c", "aXbYcZ", 0},
        /* substring, case-sensitive */
        {"ash", "Bash", 1}, {"bash", "Bash", 0}, {"Bash", "Bash", 1}, {"Bash", "BashTool", 1}, {"?", "a?b", 1},
        {"?", "ab", 0}, {".", "ab", 0}, {"a.b", "a.b", 1}, {"Bash", "bash", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const char *h1 = cases[i].match ? xfmt("{\"command\":\"exit 0\",\"match\":%s}", q(cases[i].match)) : hk("exit 0");
        OhHooks *h = ENG(cfg("preToolUse", h1, NULL), NULL);
        if (!h) { printf("   (match %s)\n", show(cases[i].match)); continue; }
        char *env = cases[i].tool ? xfmt("{\"event\":\"preToolUse\",\"toolName\":%s}", q(cases[i].tool))
                                  : xfmt("{\"event\":\"preToolUse\"}");
        jval *o = FIRE(h, env);
        jval *hooks = json_get(o, "hooks");
        size_t n = hooks ? hooks->len : 99;
        CHECK(n == (size_t)cases[i].hit, "match %s vs toolName %s: %s, want %s", show(cases[i].match),
              cases[i].tool ? q(cases[i].tool) : "(absent)", n ? "matched" : "no match", cases[i].hit ? "match" : "no match");
    }
    /* non-matching hooks are not traced, and `index` is the configured position */
    OhHooks *h = ENG(cfg("preToolUse", hkx("exit 0", "`match`:`Read`"), hkx("exit 0", "`match`:`Bash`"),
                         hkx("exit 0", "`match`:`Write`"), hkx("exit 0", "`match`:`/^B/`"), NULL),
                     NULL);
    if (h) {
        jval *o = FIREJ(h, "{`event`:`preToolUse`,`toolName`:`Bash`}");
        CHECK_LEN(o, "hooks", 2);
        CHECK_JNUM(o, "hooks.0.index", 1);
        CHECK_JNUM(o, "hooks.1.index", 3);
    }
}

static void test_prompt_hooks(void) {
    char *mark = xfmt("%s/after-prompt", newdir("prompt"));
    for (int i = 0; i < 4; i++) {
        OhHooks *h = ENG(xfmt("{\"hooks\":{\"%s\":[{\"prompt\":\"Is this safe?\"},%s]}}", BLOCKING[i],
                              hk(xfmt("touch %s", mark))),
                         NULL);
        if (!h) continue;
        jval *o = FIRE(h, xfmt("{\"event\":\"%s\",\"toolName\":\"Bash\"}", BLOCKING[i]));
        CHECK_OUT(o, "{`allowed`:false,`reason`:`prompt hook has no evaluator`,"
                     "`hooks`:[{`index`:0,`type`:`prompt`,`result`:`deny`,`reason`:`prompt hook has no evaluator`}]}");
    }
    CHECK(!file_exists(mark), "hooks after the prompt hook's deny must not run");
    /* a prompt hook that does not match is not run */
    OhHooks *h = ENG(cfg("preToolUse", J("{`prompt`:`ok?`,`match`:`Read`}"), NULL), NULL);
    if (h) CHECK_OUT(FIREJ(h, "{`event`:`preToolUse`,`toolName`:`Bash`}"), "{`allowed`:true,`hooks`:[]}");
    /* on a non-blocking event nothing blocks */
    h = ENG(cfg("postToolUse", J("{`prompt`:`ok?`}"), NULL), "`waitNonBlocking`:true");
    if (h) {
        jval *o = FIREJ(h, "{`event`:`postToolUse`,`toolName`:`Bash`}");
        CHECK_JBOOL(o, "allowed", 1);
        CHECK_ABSENT(o, "permissionDecision");
    }
}

/* §5: every context field → its OH_* variable; read back with `env -0`. */
static void test_env_vars(void) {
    char *d = newdir("vars");
    char *f = xfmt("%s/env", d);
    setenv("OH_TOOL_NAME", "stale-tool", 1);
    setenv("OH_PROMPT", "stale-prompt", 1);
    setenv("OH_TURN_NUMBER", "stale-turn", 1);
    setenv("OH_EVENT", "stale-event", 1);
    setenv("OH_EFFORT", "stale-effort", 1);
    setenv("OHT_HOST_MARK", "host", 1);
    setenv("OHT_OVERRIDDEN", "host", 1);
    OhHooks *h = ENG(cfg("preToolUse", hk(xfmt("env -0 > %s", f)), NULL),
                     "`env`:{`OHT_OPT`:`opt value`,`OHT_OVERRIDDEN`:`from options`,`OH_MODEL`:`from options`}");
    if (!h) goto out;
    jval *o = FIREJ(h, "{`event`:`preToolUse`,"
                       "`toolName`:`Bash`,`toolArgs`:`ls -la`,`toolOutput`:`out\\nput`,`toolInputJson`:`{\\`a\\`:1}`,"
                       "`sessionId`:`s-1`,`model`:`anthropic/claude`,`provider`:`anthropic`,`permissionMode`:`ask`,"
                       "`cost`:0.5,`tokens`:0,`filePath`:`/tmp/f.txt`,`newCwd`:`/tmp/new`,`agentId`:`agent-7`,"
                       "`message`:`hello`,`prompt`:`say \\`hi\\``,`toolError`:`boom`,`errorMessage`:`it failed`,"
                       "`permissionAction`:`allow`,`turnNumber`:0,`turnReason`:`completed`,`worktreePath`:`/w`,"
                       "`worktreeParent`:`/wp`,`worktreeForced`:false,`elicitationServer`:`srv`,"
                       "`elicitationMessage`:`pick one`,`elicitationSchema`:`{}`,`elicitationAction`:`accept`,"
                       "`elicitationContent`:`c`,`effort`:{`level`:`high`},`unrelated`:`x`}");
    CHECK_JBOOL(o, "allowed", 1);
    size_t n = 0;
    char *env = read_file(f, &n);
    CHECK(env != NULL, "the hook wrote its environment");
    if (!env) goto out;
    struct { const char *var, *want; } want[] = {
        {"OH_EVENT", "preToolUse"}, {"OH_TOOL_NAME", "Bash"}, {"OH_TOOL_ARGS", "ls -la"},
        {"OH_TOOL_OUTPUT", "out\nput"}, {"OH_TOOL_INPUT_JSON", "{\"a\":1}"}, {"OH_SESSION_ID", "s-1"},
        {"OH_MODEL", "anthropic/claude"}, {"OH_PROVIDER", "anthropic"}, {"OH_PERMISSION_MODE", "ask"},
        {"OH_COST", "0.5"}, {"OH_TOKENS", "0"}, {"OH_FILE_PATH", "/tmp/f.txt"}, {"OH_NEW_CWD", "/tmp/new"},
        {"OH_AGENT_ID", "agent-7"}, {"OH_MESSAGE", "hello"}, {"OH_PROMPT", "say \"hi\""}, {"OH_TOOL_ERROR", "boom"},
        {"OH_ERROR_MESSAGE", "it failed"}, {"OH_PERMISSION_ACTION", "allow"}, {"OH_TURN_NUMBER", "0"},
        {"OH_TURN_REASON", "completed"}, {"OH_WORKTREE_PATH", "/w"}, {"OH_WORKTREE_PARENT", "/wp"},
        {"OH_WORKTREE_FORCED", "false"}, {"OH_ELICITATION_SERVER", "srv"}, {"OH_ELICITATION_MESSAGE", "pick one"},
        {"OH_ELICITATION_SCHEMA", "{}"}, {"OH_ELICITATION_ACTION", "accept"}, {"OH_ELICITATION_CONTENT", "c"},
        {"OH_EFFORT", "high"}, {"OHT_HOST_MARK", "host"}, {"OHT_OPT", "opt value"}, {"OHT_OVERRIDDEN", "from options"},
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        const char *got = envfile_get(env, n, want[i].var);
        CHECK(streq(got, want[i].want), "%s=%s, want %s", want[i].var, show(got), want[i].want);
    }

    /* stale host values are removed; options env comes before the envelope's OH_* */
    o = FIREJ(h, "{`event`:`preToolUse`,`tokens`:1234,`cost`:-3,`worktreeForced`:true,`toolName`:``,"
                 "`toolArgs`:{`cmd`:`ls`},`message`:null,`sessionId`:[`x`]}");
    env = read_file(f, &n);
    if (!env) goto out;
    struct { const char *var, *want; } want2[] = {
        {"OH_EVENT", "preToolUse"}, {"OH_TOKENS", "1234"}, {"OH_COST", "-3"}, {"OH_WORKTREE_FORCED", "true"},
        {"OH_TOOL_NAME", NULL}, /* empty string: not set, and the stale host value is gone */
        {"OH_PROMPT", NULL}, {"OH_TURN_NUMBER", NULL}, {"OH_EFFORT", NULL},
        {"OH_TOOL_ARGS", NULL}, /* an object is not a string, number or boolean */
        {"OH_MESSAGE", NULL}, {"OH_SESSION_ID", NULL},
        {"OH_MODEL", "from options"}, /* from options env, not set by this envelope */
    };
    for (size_t i = 0; i < sizeof want2 / sizeof *want2; i++) {
        const char *got = envfile_get(env, n, want2[i].var);
        CHECK(streq(got, want2[i].want), "%s=%s, want %s", want2[i].var, show(got), show(want2[i].want));
    }
    /* the envelope's OH_* wins over options env */
    FIREJ(h, "{`event`:`preToolUse`,`model`:`m2`}");
    env = read_file(f, &n);
    if (env) CHECK(streq(envfile_get(env, n, "OH_MODEL"), "m2"), "OH_MODEL=%s, want m2", show(envfile_get(env, n, "OH_MODEL")));
out:
    unsetenv("OH_TOOL_NAME");
    unsetenv("OH_PROMPT");
    unsetenv("OH_TURN_NUMBER");
    unsetenv("OH_EVENT");
    unsetenv("OH_EFFORT");
    unsetenv("OHT_HOST_MARK");
    unsetenv("OHT_OVERRIDDEN");
}

/* OH_PROMPT: set also when empty; cut to 8192 bytes on a UTF-8 boundary. */
static void test_prompt_variable(void) {
    char *f = xfmt("%s/env", newdir("prompt-var"));
    OhHooks *h = ENG(cfg("userPromptSubmit", hk(xfmt("env -0 > %s", f)), NULL), NULL);
    if (!h) return;
    size_t n;
    FIREJ(h, "{`event`:`userPromptSubmit`,`prompt`:``}");
    char *env = read_file(f, &n);
    CHECK(env && streq(envfile_get(env, n, "OH_PROMPT"), ""), "an empty prompt sets OH_PROMPT to \"\": %s",
          env ? show(envfile_get(env, n, "OH_PROMPT")) : "(no file)");

    struct { size_t ascii; const char *tail; size_t want_len; } cases[] = {
        {8190, "\xe2\x82\xac", 8190},     /* 8193 bytes: the euro sign would be cut → dropped */
        {8189, "\xe2\x82\xac", 8192},     /* exactly 8192: kept whole */
        {8191, "\xc3\xa9", 8191},         /* 8193: the 2-byte é dropped */
        {8188, "\xf0\x9f\x98\x80x", 8192}, /* 8193: the 4-byte emoji fits, the x is cut */
        {20000, "", 8192},
        {100, "", 100},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        sbuf p = {0};
        for (size_t k = 0; k < cases[i].ascii; k++) sb_putc(&p, 'a');
        sb_puts(&p, cases[i].tail);
        char *prompt = gc_str(sb_take(&p));
        FIRE(h, xfmt("{\"event\":\"userPromptSubmit\",\"prompt\":%s}", q(prompt)));
        env = read_file(f, &n);
        const char *got = env ? envfile_get(env, n, "OH_PROMPT") : NULL;
        size_t gl = got ? strlen(got) : 0;
        CHECK(got && gl == cases[i].want_len && !memcmp(got, prompt, gl), "prompt of %zu bytes: OH_PROMPT has %zu bytes, want %zu",
              strlen(prompt), gl, cases[i].want_len);
    }
}

/* Under valgrind a failed exec/chdir in the child cannot reach the parent as a spawn error:
 * valgrind runs glibc's posix_spawn (clone with CLONE_VM|CLONE_VFORK) as a plain fork, so the
 * child's error report is lost and the parent sees an ordinary exit (127, or 101). The deny is
 * still checked there; the trace's spawn-failure shape is checked in the other three modes. */
static int spawn_errors_visible(void) {
    static int noted;
    if (!getenv("OHT_VALGRIND")) return 1;
    if (!noted++) printf("note: spawn-failure trace shape (no exitCode, an error) not checked under valgrind\n");
    return 0;
}

/* A value with a NUL, or one too large for the OS, fails that hook like a spawn failure. */
static void test_unpassable_values(void) {
    char *d = newdir("nul");
    char *mark = xfmt("%s/ran", d);
    OhHooks *h = ENG(J(xfmt("{`hooks`:{`preToolUse`:[{`command`:`touch %s`}],`userPromptSubmit`:[{`command`:`touch %s`,"
                            "`jsonIO`:true}],`permissionRequest`:[{`command`:`touch %s`}]}}",
                            mark, mark, mark)),
                     NULL);
    if (!h) return;
    jval *o = FIREJ(h, "{`event`:`preToolUse`,`toolName`:`Ba\\u0000sh`}");
    CHECK_JBOOL(o, "allowed", 0);
    CHECK_JSTR(o, "reason", "hook denied (exit code)");
    CHECK_JSTR(o, "hooks.0.result", "deny");
    CHECK_ABSENT(o, "hooks.0.exitCode");
    const char *err = json_str(json_path(o, "hooks.0.error"));
    CHECK(err && strcasestr(err, "NUL"), "the trace's error names the NUL: %s", gc_str(json_dump(o)));
    o = FIREJ(h, "{`event`:`userPromptSubmit`,`prompt`:`a\\u0000b`}");
    CHECK_JBOOL(o, "allowed", 0);
    CHECK_JSTR(o, "reason", "hook failed (timeout or non-zero exit)");
    err = json_str(json_path(o, "hooks.0.error"));
    CHECK(err && strcasestr(err, "NUL"), "the trace's error names the NUL: %s", gc_str(json_dump(o)));
    o = FIREJ(h, "{`event`:`permissionRequest`,`toolName`:`Bash`,`permissionAction`:`x\\u0000`}");
    CHECK_JBOOL(o, "allowed", 0);
    CHECK_JSTR(o, "permissionDecision", "deny");
    CHECK(!file_exists(mark), "a hook with a NUL in a variable must not run");
    /* a NUL in a field that is no variable is fine */
    o = FIREJ(h, "{`event`:`preToolUse`,`toolName`:`Bash`,`other`:`a\\u0000b`}");
    CHECK_JBOOL(o, "allowed", 1);
    CHECK(file_exists(mark), "a NUL outside the variables does not stop the hook");
    unlink(mark);

    /* 300 KB in one variable is more than Linux passes (128 KiB per string): spawn failure, not a cut */
    sbuf b = {0};
    for (int i = 0; i < 300000; i++) sb_putc(&b, 'x');
    char *big = gc_str(sb_take(&b));
    o = FIRE(h, xfmt("{\"event\":\"preToolUse\",\"toolArgs\":\"%s\"}", big));
    CHECK_JBOOL(o, "allowed", 0);
    CHECK_JSTR(o, "reason", "hook denied (exit code)");
    if (spawn_errors_visible()) {
        CHECK_ABSENT(o, "hooks.0.exitCode");
        CHECK(json_str(json_path(o, "hooks.0.error")) != NULL, "the trace says why: %s", gc_str(json_dump(o)));
    }
    CHECK(!file_exists(mark), "the hook could not have run");
    /* but OH_PROMPT is cut, so a 300 KB prompt is fine */
    o = FIRE(h, xfmt("{\"event\":\"userPromptSubmit\",\"prompt\":\"%s\"}", big));
    CHECK_JBOOL(o, "allowed", 1);
    CHECK(file_exists(mark), "a huge prompt is cut and the hook runs");
}

/* The cwd vanishing after creation is a spawn failure: deny with the mode's reason and an error. */
static void test_spawn_failure(void) {
    char *d = newdir("gone");
    OhHooks *h = ENG_OPTS(xfmt("{\"trusted\":true,\"home\":%s,\"cwd\":%s,\"config\":{\"hooks\":{\"preToolUse\":[%s],"
                               "\"userPromptSubmit\":[%s]}}}",
                               q(g_dir), q(d), hk("exit 0"), hkj("exit 0")));
    if (!h) return;
    rmdir(d);
    jval *o = FIREJ(h, "{`event`:`preToolUse`}");
    CHECK_JBOOL(o, "allowed", 0);
    CHECK_JSTR(o, "reason", "hook denied (exit code)");
    if (spawn_errors_visible()) {
        CHECK_ABSENT(o, "hooks.0.exitCode");
        CHECK(json_str(json_path(o, "hooks.0.error")) != NULL, "a spawn failure is explained in the trace: %s",
              gc_str(json_dump(o)));
    }
    o = FIREJ(h, "{`event`:`userPromptSubmit`}");
    CHECK_JBOOL(o, "allowed", 0);
    CHECK_JSTR(o, "reason", "hook failed (timeout or non-zero exit)");
}

int main(void) {
    setup("test_fire");
    setenv("HOME", g_dir, 1);
    if (chdir(g_dir)) return 2;
    RUN(test_events_accepted);
    RUN(test_non_blocking_returns_at_once);
    RUN(test_wait_non_blocking);
    RUN(test_env_exit_mapping);
    RUN(test_env_mode_io);
    RUN(test_jsonio_stdin);
    RUN(test_jsonio_responses);
    RUN(test_jsonio_strict);
    RUN(test_jsonio_failure);
    RUN(test_max_output_bytes);
    RUN(test_stderr_trace);
    RUN(test_timeouts);
    RUN(test_background_child);
    RUN(test_cwd_and_process_group);
    RUN(test_matchers);
    RUN(test_prompt_hooks);
    RUN(test_env_vars);
    RUN(test_prompt_variable);
    RUN(test_unpassable_values);
    RUN(test_spawn_failure);
    return DONE();
}
