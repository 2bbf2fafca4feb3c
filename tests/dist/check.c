/* tests/dist.sh's C harness: built with pkg-config against the unpacked C tarball, run from a
 * directory where the repository is out of reach. argv[1]: options JSON; argv[2]: the expected
 * version; argv[3]: the suite name for the summary line. */
#include <oh_hooks.h>
#include <stdio.h>
#include <string.h>

static int pass, fail;
static void check(int ok, const char *what) {
    printf("%s %s\n", ok ? "ok  " : "FAIL", what);
    if (ok) pass++; else fail++;
}

int main(int argc, char **argv) {
    if (argc != 4) return 2;
    check(strcmp(oh_hooks_version(), argv[2]) == 0, "oh_hooks_version() is the packaged version");
    check(strcmp(OH_HOOKS_VERSION, argv[2]) == 0, "the header's OH_HOOKS_VERSION is the packaged version");
    char *error = NULL;
    OhHooks *hooks = oh_hooks_new(argv[1], &error);
    check(hooks != NULL && error == NULL, "oh_hooks_new with an inline config");
    if (hooks != NULL) {
        char *out = oh_hooks_fire(hooks, "{\"event\":\"preToolUse\",\"toolName\":\"Bash\",\"toolArgs\":\"ls\"}");
        check(out && strstr(out, "\"allowed\":true") != NULL, "the hook allows `ls`");
        oh_hooks_string_free(out);
        out = oh_hooks_fire(hooks, "{\"event\":\"preToolUse\",\"toolName\":\"Bash\",\"toolArgs\":\"rm -rf /\"}");
        check(out && strstr(out, "\"allowed\":false") != NULL, "the hook denies `rm -rf /`");
        oh_hooks_string_free(out);
        oh_hooks_free(hooks);
    }
    oh_hooks_string_free(error);
    error = NULL;
    hooks = oh_hooks_new("{\"defaultTimeout\": 5}", &error);
    check(hooks == NULL && error && strstr(error, "did you mean `defaultTimeoutMs`") != NULL,
          "a misspelt option is refused with a suggestion");
    oh_hooks_string_free(error);
    printf("%s: %d passed, %d failed\n", argv[3], pass, fail);
    return fail != 0;
}
