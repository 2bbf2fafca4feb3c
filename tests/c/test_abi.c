/* test_abi.c — CONTRACT §1, §2 (option errors), §6: the five functions, their NULL handling,
 * ownership, errors, and what the library must leave alone in the host. */
#include "common.h"

#include <signal.h>

#ifndef OHT_EXPECTED_VERSION
#error "build with -DOHT_EXPECTED_VERSION=\"x.y.z\" (the version in Cargo.toml); run.sh does"
#endif

extern char **environ;

/* The header's signatures are exactly the contract's (a mismatch fails to compile with -Werror). */
static void test_signatures(void) {
    OhHooks *(*f_new)(const char *, char **) = oh_hooks_new;
    char *(*f_fire)(const OhHooks *, const char *) = oh_hooks_fire;
    void (*f_free)(OhHooks *) = oh_hooks_free;
    void (*f_sfree)(char *) = oh_hooks_string_free;
    const char *(*f_version)(void) = oh_hooks_version;
    CHECK(f_new && f_fire && f_free && f_sfree && f_version, "all five functions are exported");
}

static void test_version(void) {
#if defined(OH_HOOKS_VERSION_MAJOR) && defined(OH_HOOKS_VERSION_MINOR) && defined(OH_HOOKS_VERSION_PATCH)
    char *macros = xfmt("%d.%d.%d", (int)OH_HOOKS_VERSION_MAJOR, (int)OH_HOOKS_VERSION_MINOR,
                        (int)OH_HOOKS_VERSION_PATCH);
    CHECK(streq(macros, OHT_EXPECTED_VERSION), "header macros say %s, Cargo.toml says %s", macros,
          OHT_EXPECTED_VERSION);
#else
    CHECK(0, "OH_HOOKS_VERSION_MAJOR/MINOR/PATCH are not all defined in oh_hooks.h");
#endif
#ifdef OH_HOOKS_VERSION
    CHECK(streq(OH_HOOKS_VERSION, OHT_EXPECTED_VERSION), "OH_HOOKS_VERSION is %s, Cargo.toml says %s", OH_HOOKS_VERSION,
          OHT_EXPECTED_VERSION);
#endif
    const char *v = oh_hooks_version();
    CHECK(v != NULL, "oh_hooks_version() returned NULL");
    CHECK(streq(v, OHT_EXPECTED_VERSION), "oh_hooks_version() = %s, Cargo.toml says %s", show(v),
          OHT_EXPECTED_VERSION);
    CHECK(oh_hooks_version() == v, "oh_hooks_version() is one static string");
}

static void test_new_defaults(void) {
    /* HOME and the process cwd are the program's clean temp dir (see main). */
    char *err = (char *)"sentinel";
    OhHooks *h = oh_hooks_new(NULL, &err);
    CHECK(h != NULL, "oh_hooks_new(NULL) failed: %s", h ? "" : show(err));
    CHECK(err == NULL, "*error_out must be set to NULL on success");
    if (h) {
        jval *o = FIREJ(h, "{`event`:`preToolUse`,`toolName`:`Bash`}");
        CHECK_OUT(o, "{`allowed`:true,`hooks`:[]}");
    }
    oh_hooks_free(h);
    h = oh_hooks_new("{}", NULL); /* error_out may be NULL */
    CHECK(h != NULL, "oh_hooks_new(\"{}\", NULL) failed");
    oh_hooks_free(h);
    h = oh_hooks_new(" { \"trusted\" : true } ", NULL);
    CHECK(h != NULL, "whitespace around options is fine");
    oh_hooks_free(h);
    /* every key at once, all valid */
    h = ENG_OPTS(xfmt("{\"cwd\":%s,\"home\":%s,\"layers\":[\"user\",\"project\",\"local\"],\"trusted\":false,"
                      "\"defaultTimeoutMs\":5000,\"env\":{\"A\":\"b\"},\"strict\":true,\"maxOutputBytes\":10,"
                      "\"waitNonBlocking\":true}",
                      q(g_dir), q(g_dir)));
    CHECK(h != NULL, "all valid options accepted");
}

/* An invalid_options error whose message names `mention` (when given). */
static void expect_options_error(const char *opts, const char *code, const char *mention, int line) {
    jval *e = new_error_at(__FILE__, line, opts);
    if (!e) return;
    const char *got = json_str(json_get(e, "code"));
    CHECK(streq(got, code), "line %d: options %s: code %s, want %s (%s)", line, opts, show(got), code,
          gc_str(json_dump(e)));
    if (mention) {
        const char *m = json_str(json_get(e, "message"));
        CHECK(m && strstr(m, mention), "line %d: options %s: message should name %s: %s", line, opts,
              mention, show(m));
    }
}
#define OPT_ERR(opts, mention) expect_options_error((opts), "invalid_options", (mention), __LINE__)

static void test_new_option_errors(void) {
    OPT_ERR(J("{`bogus`:1}"), "bogus");
    OPT_ERR(J("{`trusted`:true,`Cwd`:`/`}"), "Cwd");
    /* wrong types */
    OPT_ERR(J("{`cwd`:5}"), "cwd");
    OPT_ERR(J("{`home`:true}"), "home");
    OPT_ERR(J("{`layers`:`user`}"), "layers");
    OPT_ERR(J("{`layers`:[`user`,`global`]}"), "layers");
    OPT_ERR(J("{`layers`:[1]}"), "layers");
    OPT_ERR(J("{`configPath`:5}"), "configPath");
    OPT_ERR(J("{`trusted`:`yes`}"), "trusted");
    OPT_ERR(J("{`trusted`:1}"), "trusted");
    OPT_ERR(J("{`defaultTimeoutMs`:`10`}"), "defaultTimeoutMs");
    OPT_ERR(J("{`defaultTimeoutMs`:1.5}"), "defaultTimeoutMs");
    OPT_ERR(J("{`env`:{`A`:1}}"), "env");
    OPT_ERR(J("{`env`:[`A=1`]}"), "env");
    OPT_ERR(J("{`env`:`A=1`}"), "env");
    OPT_ERR(J("{`strict`:1}"), "strict");
    OPT_ERR(J("{`maxOutputBytes`:`1`}"), "maxOutputBytes");
    OPT_ERR(J("{`waitNonBlocking`:`x`}"), "waitNonBlocking");
    /* zero / negative numbers */
    OPT_ERR(J("{`defaultTimeoutMs`:0}"), "defaultTimeoutMs");
    OPT_ERR(J("{`defaultTimeoutMs`:-5}"), "defaultTimeoutMs");
    OPT_ERR(J("{`maxOutputBytes`:0}"), "maxOutputBytes");
    OPT_ERR(J("{`maxOutputBytes`:-1}"), "maxOutputBytes");
    /* cwd not a directory */
    char *file = xfmt("%s/plain-file", g_dir);
    write_file(file, "x");
    OPT_ERR(xfmt("{\"cwd\":%s}", q(file)), "cwd");
    OPT_ERR(xfmt("{\"cwd\":%s}", q(xfmt("%s/does-not-exist", g_dir))), "cwd");
    /* config together with configPath or layers */
    OPT_ERR(xfmt("{\"config\":{},\"configPath\":%s}", q(file)), "configPath");
    OPT_ERR(J("{`config`:{},`layers`:[`user`]}"), "layers");
    /* not an object / not JSON */
    OPT_ERR("[1]", NULL);
    OPT_ERR("5", NULL);
    OPT_ERR("\"x\"", NULL);
    OPT_ERR("{", NULL);
    OPT_ERR("", NULL);
    OPT_ERR("{\"trusted\":true} x", NULL);
    /* invalid UTF-8 */
    OPT_ERR("{\"env\":{\"A\":\"\xff\"}}", NULL);
    OPT_ERR("{\"home\":\"/tmp/\xc3\"}", NULL);
    OPT_ERR("{\"\xfe\":1}", NULL);
}

static void test_config_path_io_error(void) {
    const char *paths[] = {xfmt("%s/no-such-config.yaml", g_dir), g_dir /* a directory */};
    for (int i = 0; i < 2; i++) {
        jval *e = NEW_ERROR(xfmt("{\"trusted\":true,\"home\":%s,\"cwd\":%s,\"configPath\":%s}", q(g_dir),
                                 q(g_dir), q(paths[i])));
        if (!e) continue;
        CHECK_JSTR(e, "code", "io_error");
        const char *file = json_str(json_get(e, "file"));
        const char *msg = json_str(json_get(e, "message"));
        CHECK(streq(file, paths[i]) || (msg && strstr(msg, paths[i])),
              "io_error should name the file %s: %s", paths[i], gc_str(json_dump(e)));
    }
}

static void test_error_out_null_on_failure(void) {
    OhHooks *h = oh_hooks_new("{\"bogus\":1}", NULL);
    CHECK(h == NULL, "bad options with error_out NULL still fail");
    h = oh_hooks_new(xfmt("{\"configPath\":%s}", q(xfmt("%s/missing.yaml", g_dir))), NULL);
    CHECK(h == NULL, "io_error with error_out NULL still fails");
    h = oh_hooks_new("{\"config\":{\"hooks\":{\"PreToolUse\":[]}}}", NULL);
    CHECK(h == NULL, "invalid_config with error_out NULL still fails");
}

static void test_fire_bad_input(void) {
    char *mark = xfmt("%s/bad-input-ran", g_dir);
    OhHooks *h = ENG(cfg("preToolUse", hk(xfmt("touch %s", mark)), NULL), NULL);
    if (!h) return;
    jval *o;
    o = FIRE(NULL, J("{`event`:`preToolUse`}"));
    CHECK_FIRE_ERROR(o, "null_argument");
    o = FIRE(h, NULL);
    CHECK_FIRE_ERROR(o, "null_argument");
    o = FIRE(NULL, NULL);
    CHECK_FIRE_ERROR(o, "null_argument");

    o = FIRE(h, "{\"event\":\"preToolUse\",\"toolName\":\"\xff\"}");
    CHECK_FIRE_ERROR(o, "invalid_utf8");
    o = FIRE(h, "{\"event\":\"preToolUse\",\"toolName\":\"\xc3\x28\"}");
    CHECK_FIRE_ERROR(o, "invalid_utf8");
    o = FIRE(h, "\xef\xbb\xbf\xed\xa0\x80"); /* an encoded surrogate is not UTF-8 */
    CHECK_FIRE_ERROR(o, "invalid_utf8");

    const char *invalid[] = {"{not json", "", "   ", "[1]", "5", "\"preToolUse\"", "null", "true", "{}",
                             "{\"toolName\":\"Bash\"}", "{\"event\":5}", "{\"event\":null}",
                             "{\"event\":[\"preToolUse\"]}", "{\"event\":{\"name\":\"preToolUse\"}}",
                             "{\"event\":\"preToolUse\"} x", "{\"event\":\"preToolUse\",}",
                             "{\"event\":\"preToolUse\""};
    for (size_t i = 0; i < sizeof invalid / sizeof *invalid; i++) {
        o = FIRE(h, invalid[i]);
        CHECK_FIRE_ERROR(o, "invalid_envelope");
        if (!streq(json_str(json_path(o, "error.code")), "invalid_envelope")) printf("   (envelope: %s)\n", invalid[i]);
    }
    /* nested deeper than any recursion limit: an error, not a crash */
    sbuf b = {0};
    sb_puts(&b, "{\"event\":\"preToolUse\",\"deep\":");
    for (int i = 0; i < 100000; i++) sb_putc(&b, '[');
    for (int i = 0; i < 100000; i++) sb_putc(&b, ']');
    sb_putc(&b, '}');
    o = FIRE(h, gc_str(sb_take(&b)));
    CHECK_FIRE_ERROR(o, "invalid_envelope");

    const char *unknown[] = {"nope", "PreToolUse", "pretooluse", "", "preToolUse "};
    for (size_t i = 0; i < sizeof unknown / sizeof *unknown; i++) {
        o = FIRE(h, xfmt("{\"event\":%s}", q(unknown[i])));
        CHECK_FIRE_ERROR(o, "unknown_event");
        const char *m = json_str(json_path(o, "error.message"));
        if (unknown[i][0]) CHECK(m && strstr(m, unknown[i]), "message should name the event %s: %s", unknown[i], show(m));
    }
    CHECK(!file_exists(mark), "no hook may run for bad input");

    /* and the engine still works afterwards */
    o = FIREJ(h, "{`event`:`preToolUse`}");
    CHECK_JBOOL(o, "allowed", 1);
    CHECK(file_exists(mark), "a good envelope runs the hook");
}

static void test_free_null(void) {
    oh_hooks_free(NULL);
    oh_hooks_string_free(NULL);
    CHECK(1, "NULL frees are no-ops");
}

static void test_free_drains_background(void) {
    char *mark = xfmt("%s/drained", g_dir);
    OhHooks *h = oh_hooks_new(opts_for(cfg("postToolUse", hk(xfmt("sleep 0.3; touch %s", mark)), NULL), NULL), NULL);
    CHECK(h != NULL, "engine");
    if (!h) return;
    double t0 = now_ms();
    char *out = oh_hooks_fire(h, "{\"event\":\"postToolUse\",\"toolName\":\"Bash\"}");
    double dt = now_ms() - t0;
    jval *o = parse_owned(out, "outcome");
    CHECK_JBOOL(o, "allowed", 1);
    CHECK(dt < 150 + slack(), "a non-blocking fire returns at once (took %.0f ms)", dt);
    if (dt < 200) CHECK(!file_exists(mark), "the background hook has not finished yet");
    oh_hooks_free(h);
    CHECK(file_exists(mark), "oh_hooks_free returned before the background hook finished");

    /* waiting is bounded by the hook's timeout (SIGTERM, then SIGKILL after 500 ms) */
    h = oh_hooks_new(opts_for(cfg("sessionEnd", hkx("trap '' TERM; sleep 30", "`timeout`:300"), NULL), NULL), NULL);
    CHECK(h != NULL, "engine");
    if (!h) return;
    oh_hooks_string_free(oh_hooks_fire(h, "{\"event\":\"sessionEnd\"}"));
    t0 = now_ms();
    oh_hooks_free(h);
    dt = now_ms() - t0;
    CHECK(dt < 300 + 500 + slack(), "oh_hooks_free waited %.0f ms for a hook with timeout 300", dt);
}

/* Redirects fds 1 and 2 to files while running the library; nothing may appear there. */
static void test_no_host_output(void) {
    char *outp = xfmt("%s/host-stdout", g_dir), *errp = xfmt("%s/host-stderr", g_dir);
    fflush(stdout);
    fflush(stderr);
    int save1 = dup(1), save2 = dup(2);
    int f1 = open(outp, O_WRONLY | O_CREAT | O_TRUNC, 0644), f2 = open(errp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(f1, 1);
    dup2(f2, 2);
    close(f1);
    close(f2);

    OhHooks *bad = oh_hooks_new("{\"bogus\":1}", NULL);
    OhHooks *bad2 = oh_hooks_new("{\"config\":{\"hooks\":{\"preToolUse\":[{\"command\":\"x\",\"timeout\":0}]}}}", NULL);
    const char *c =
        "{\"hooks\":{\"preToolUse\":[{\"command\":\"echo to-stdout; echo to-stderr >&2\"},"
        "{\"command\":\"echo '{not json'; echo more >&2\",\"jsonIO\":true},"
        "{\"command\":\"echo '{\\\"reason\\\":\\\"r\\\"}'; echo e >&2; exit 3\",\"jsonIO\":true}],"
        "\"postToolUse\":[{\"command\":\"echo bg-out; echo bg-err >&2\"}],"
        "\"userPromptSubmit\":[{\"prompt\":\"ok?\"}]}}";
    OhHooks *h = oh_hooks_new(opts_for(c, NULL), NULL);
    char *o1 = oh_hooks_fire(h, "{\"event\":\"preToolUse\"}");
    char *o2 = oh_hooks_fire(h, "{\"event\":\"postToolUse\"}");
    char *o3 = oh_hooks_fire(h, "{\"event\":\"userPromptSubmit\"}");
    char *o4 = oh_hooks_fire(h, "{bad");
    char *o5 = oh_hooks_fire(NULL, NULL);
    char *o6 = oh_hooks_fire(h, "{\"event\":\"nope\"}");
    oh_hooks_free(h);

    fflush(stdout);
    fflush(stderr);
    dup2(save1, 1);
    dup2(save2, 2);
    close(save1);
    close(save2);

    CHECK(bad == NULL && bad2 == NULL, "bad options fail");
    CHECK(h != NULL, "engine created");
    CHECK(o1 && o2 && o3 && o4 && o5 && o6, "every fire returns an outcome");
    size_t n1 = 0, n2 = 0;
    char *s1 = read_file(outp, &n1), *s2 = read_file(errp, &n2);
    CHECK(n1 == 0, "the library (or a hook) wrote to the host's stdout: %s", show(s1));
    CHECK(n2 == 0, "the library (or a hook) wrote to the host's stderr: %s", show(s2));
    char *all[] = {o1, o2, o3, o4, o5, o6};
    for (int i = 0; i < 6; i++) oh_hooks_string_free(all[i]);
}

static char *env_snapshot(void) {
    sbuf b = {0};
    for (char **e = environ; *e; e++) { sb_puts(&b, *e); sb_putc(&b, '\n'); }
    return gc_str(sb_take(&b));
}

static void test_host_state_unchanged(void) {
    int sigs[] = {SIGPIPE, SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGALRM};
    enum { NS = sizeof sigs / sizeof *sigs };
    struct sigaction before[NS], after[NS];
    for (int i = 0; i < NS; i++) sigaction(sigs[i], NULL, &before[i]);
    sigset_t mask_before, mask_after;
    sigprocmask(SIG_SETMASK, NULL, &mask_before);
    char *env_before = env_snapshot();
    char cwd_before[4096], cwd_after[4096];
    CHECK(getcwd(cwd_before, sizeof cwd_before) != NULL, "getcwd");
    mode_t um_before = umask(022);
    umask(um_before);

    char *other = newdir("other-cwd");
    OhHooks *h = ENG_OPTS(xfmt("{\"trusted\":true,\"home\":%s,\"cwd\":%s,\"waitNonBlocking\":true,\"env\":{\"X_OPT\":\"1\"},"
                               "\"config\":{\"hooks\":{\"preToolUse\":[{\"command\":\"exit 0\"},"
                               "{\"command\":\"cat >/dev/null\",\"jsonIO\":true}],"
                               "\"postToolUse\":[{\"command\":\"kill -PIPE $$\"}],"
                               "\"sessionEnd\":[{\"command\":\"sleep 0.1\",\"timeout\":50}]}}}",
                               q(g_dir), q(other)));
    if (h) {
        FIREJ(h, "{`event`:`preToolUse`,`toolName`:`Bash`,`prompt`:`p`}");
        FIREJ(h, "{`event`:`postToolUse`,`toolName`:`Bash`}");
        FIREJ(h, "{`event`:`sessionEnd`}");
    }
    for (int i = 0; i < NS; i++) {
        sigaction(sigs[i], NULL, &after[i]);
        CHECK(before[i].sa_handler == after[i].sa_handler && before[i].sa_flags == after[i].sa_flags,
              "the disposition of signal %d changed", sigs[i]);
    }
    sigprocmask(SIG_SETMASK, NULL, &mask_after);
    int same_mask = 1;
    for (int s = 1; s < 32; s++)
        if (sigismember(&mask_before, s) != sigismember(&mask_after, s)) same_mask = 0;
    CHECK(same_mask, "the calling thread's signal mask changed");
    CHECK(streq(env_before, env_snapshot()), "the host's environment changed");
    CHECK(getcwd(cwd_after, sizeof cwd_after) && streq(cwd_before, cwd_after), "the host's cwd changed to %s", cwd_after);
    mode_t um_after = umask(022);
    umask(um_after);
    CHECK(um_before == um_after, "the host's umask changed");
}

static void test_strings_are_independent(void) {
    OhHooks *h = ENG(cfg("preToolUse", hkr("{\"reason\":\"r\"}"), NULL), NULL);
    if (!h) return;
    char *a = oh_hooks_fire(h, "{\"event\":\"preToolUse\"}");
    char *b = oh_hooks_fire(h, "{\"event\":\"preToolUse\"}");
    CHECK(a && b && a != b, "each fire returns its own string");
    oh_hooks_string_free(a);
    jval *o = parse_owned(b, "second outcome");
    CHECK_JSTR(o, "reason", "r");
}

/* The outcome of a fire that runs nothing (the shortcut's constant) is the caller's own copy
 * too: a host that parses in place writes into it (docs/decisions.md "The no-match outcome is a
 * copy"). Handing out one static string would crash here. */
static void test_no_match_outcome_is_writable(void) {
    OhHooks *h = ENG(cfg("postToolUse", hkr("{}"), NULL), NULL);
    if (!h) return;
    const char *env = "{\"event\":\"preToolUse\",\"toolName\":\"Bash\"}";
    char *a = oh_hooks_fire(h, env);
    char *b = oh_hooks_fire(h, env);
    CHECK(a && b && a != b, "each no-match fire returns its own string");
    if (a && b) {
        CHECK(streq(a, "{\"allowed\":true,\"hooks\":[]}"), "the no-match outcome: %s", a);
        memset(a, 'x', strlen(a));
        CHECK(streq(b, "{\"allowed\":true,\"hooks\":[]}"), "writing one outcome changed another: %s", b);
    }
    oh_hooks_string_free(a);
    oh_hooks_string_free(b);
    char *c = oh_hooks_fire(h, env);
    CHECK(c && streq(c, "{\"allowed\":true,\"hooks\":[]}"), "the next no-match outcome: %s", c ? c : "(null)");
    oh_hooks_string_free(c);
}

int main(void) {
    setup("test_abi");
    setenv("HOME", g_dir, 1);
    if (chdir(g_dir)) return 2;
    RUN(test_signatures);
    RUN(test_version);
    RUN(test_new_defaults);
    RUN(test_new_option_errors);
    RUN(test_config_path_io_error);
    RUN(test_error_out_null_on_failure);
    RUN(test_fire_bad_input);
    RUN(test_free_null);
    RUN(test_free_drains_background);
    RUN(test_no_host_output);
    RUN(test_host_state_unchanged);
    RUN(test_strings_are_independent);
    RUN(test_no_match_outcome_is_writable);
    return DONE();
}
