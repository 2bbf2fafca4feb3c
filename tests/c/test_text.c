/* test_text.c — the text helpers for a C host without a JSON library: oh_hooks_error_message (an
 * error JSON's message, for printing) and oh_hooks_json_quote (options built with snprintf from
 * a path holding quotes, backslashes, control characters), as docs/abi.md "Using it from C" shows. */
#include "common.h"

static void test_error_message(void) {
    char *(*f)(const char *) = oh_hooks_error_message;
    CHECK(f != NULL, "exported");
    CHECK(oh_hooks_error_message(NULL) == NULL, "NULL in, NULL out");

    /* a real error: the message, without JSON around it */
    char *dir = newdir("errmsg");
    char *cfg = xfmt("%s/c.yaml", dir);
    write_file(cfg, "hooks:\n  preToolUse:\n    - commnd: x\n");
    char *quoted = oh_hooks_json_quote(cfg);
    char *err = NULL;
    OhHooks *h = oh_hooks_new(xfmt("{\"configPath\": %s}", quoted), &err);
    CHECK(h == NULL && err != NULL, "a bad config fails");
    char *msg = oh_hooks_error_message(err);
    CHECK(msg != NULL, "a message");
    if (msg) {
        CHECK(strncmp(msg, "invalid config in ", 18) == 0, "the message itself: %s", msg);
        CHECK(strstr(msg, cfg) && strstr(msg, "line 3") && strstr(msg, "did you mean `command`"), "names the file, line and fix: %s", msg);
        CHECK(!strstr(msg, "\"code\""), "no JSON: %s", msg);
    }
    oh_hooks_string_free(msg);
    oh_hooks_string_free(err);
    oh_hooks_string_free(quoted);

    /* escapes in the message are decoded */
    msg = oh_hooks_error_message("{\"code\":\"x\",\"message\":\"a \\\"quoted\\\" \\u00e9 line\"}");
    CHECK(streq(msg, "a \"quoted\" \xc3\xa9 line"), "decoded: %s", show(msg));
    oh_hooks_string_free(msg);

    /* anything else comes back unchanged, so it can always be printed */
    const char *others[] = {"not json", "{\"code\":\"x\"}", "[1,2]", "{\"message\":5}", ""};
    for (size_t i = 0; i < sizeof others / sizeof *others; i++) {
        msg = oh_hooks_error_message(others[i]);
        CHECK(streq(msg, others[i]), "%s -> %s", others[i], show(msg));
        oh_hooks_string_free(msg);
    }
    msg = oh_hooks_error_message("bad \xff byte");
    CHECK(streq(msg, "bad \xef\xbf\xbd byte"), "invalid UTF-8 becomes U+FFFD: %s", show(msg));
    oh_hooks_string_free(msg);
}

static void test_json_quote(void) {
    CHECK(oh_hooks_json_quote(NULL) == NULL, "NULL in, NULL out");
    CHECK(oh_hooks_json_quote("bad \xff") == NULL, "not UTF-8: NULL");
    char *q = oh_hooks_json_quote("a\"b\\c\nd\x01");
    CHECK(streq(q, "\"a\\\"b\\\\c\\nd\\u0001\""), "escaped: %s", show(q));
    oh_hooks_string_free(q);

    /* The snprintf recipe with a directory whose name breaks naive JSON: the engine runs there. */
    char *base = newdir("quote");
    char *odd = xfmt("%s/it's \"here\" \\ {x}", base);
    CHECK(mkdir(odd, 0755) == 0, "mkdir %s", odd);
    char *naive_err = NULL;
    OhHooks *naive = oh_hooks_new(xfmt("{\"cwd\": \"%s\"}", odd), &naive_err);
    CHECK(naive == NULL && naive_err, "pasting the raw path breaks the JSON");
    oh_hooks_free(naive);
    oh_hooks_string_free(naive_err);

    char *cwd = oh_hooks_json_quote(odd);
    char options[4096];
    snprintf(options, sizeof options,
             "{\"cwd\": %s, \"trusted\": true, \"config\": {\"hooks\": {\"preToolUse\": [{\"command\": \"pwd >&2; exit 1\"}]}}}", cwd);
    char *err = NULL;
    OhHooks *h = oh_hooks_new(options, &err);
    CHECK(h != NULL, "quoted path accepted: %s", show(err));
    if (h) {
        jval *o = FIREJ(h, "{`event`:`preToolUse`}");
        const char *stderr_text = json_str(json_path(o, "hooks.0.stderr"));
        CHECK(stderr_text && strstr(stderr_text, "it's \"here\" \\ {x}"), "the hook ran in the odd directory: %s", show(stderr_text));
    }
    oh_hooks_free(h);
    oh_hooks_string_free(err);
    oh_hooks_string_free(cwd);
}

int main(void) {
    setup("test_text");
    setenv("HOME", g_dir, 1);
    RUN(test_error_message);
    RUN(test_json_quote);
    return DONE();
}
