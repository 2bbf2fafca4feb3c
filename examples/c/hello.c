/* The C example of docs/abi.md "Using it from C": create an engine with an inline config, fire two envelopes. */
#include <stdio.h>
#include <string.h>
#include <oh_hooks.h>

int main(void) {
    char *error = NULL;
    OhHooks *hooks = oh_hooks_new(
        "{\"trusted\": true, \"config\": {\"hooks\": {\"preToolUse\": [{"
        "  \"command\": \"case \\\"$OH_TOOL_ARGS\\\" in *'rm -rf'*) exit 1;; esac\","
        "  \"match\": \"Bash\"}]}}}",
        &error);
    if (hooks == NULL) {
        fprintf(stderr, "oh_hooks_new: %s\n", error);
        oh_hooks_string_free(error);
        return 2;
    }
    const char *envelopes[] = {
        "{\"event\": \"preToolUse\", \"toolName\": \"Bash\", \"toolArgs\": \"ls\"}",
        "{\"event\": \"preToolUse\", \"toolName\": \"Bash\", \"toolArgs\": \"rm -rf /\"}",
    };
    int denied = 0;
    for (size_t i = 0; i < 2; i++) {
        char *outcome = oh_hooks_fire(hooks, envelopes[i]);
        printf("%s\n", outcome);
        denied += strstr(outcome, "\"allowed\":false") != NULL;
        oh_hooks_string_free(outcome);
    }
    oh_hooks_free(hooks);
    printf("oh-hooks %s: %d of 2 denied\n", oh_hooks_version(), denied);
    return denied == 1 ? 0 : 1;
}
