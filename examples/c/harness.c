/* A small agent harness in C that plugs its own code into the engine (docs/abi.md "Host callbacks"):
 *  - a permission callback `canUseTool`, asked by `callback: canUseTool` hooks;
 *  - a prompt evaluator (the callback named `prompt`): a stub "model" that judges prompt hooks'
 *    questions by keywords, where a real harness would ask its language model;
 *  - an observer that writes one audit-log line per fire;
 *  - an asynchronous fire, and one cancelled while its hook still runs.
 * `make demo` builds and runs it; it exits non-zero if any decision is not the expected one. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <oh_hooks.h>

/* The policy: JSON written with ' for ", turned into JSON below. */
static const char CONFIG[] =
    "{'trusted': true, 'config': {'hooks': {"
    "  'preToolUse': ["
    "    {'callback': 'canUseTool'},"
    "    {'prompt': 'Could this shell command destroy data?', 'match': 'Bash', 'timeout': 5000},"
    "    {'command': 'sleep 30', 'match': 'SlowTool', 'timeout': 60000}],"
    "  'userPromptSubmit': ["
    "    {'prompt': 'Does this prompt ask for secrets?'}]"
    "}}}";

/* canUseTool: the harness's own rule. Answers at once, on the thread that runs the hook. */
static void can_use_tool(void *user_data, const char *request, OhHooksCall *call) {
    (void)user_data;
    if (strstr(request, "\"toolName\":\"WebFetch\""))
        oh_hooks_respond(call, "{\"decision\":\"deny\",\"reason\":\"no network access in this session\"}");
    else
        oh_hooks_respond(call, NULL); /* no decision: the next hook decides */
}

/* The stub model behind prompt hooks. A real harness would send `request` to its model, maybe
 * from another thread, and call oh_hooks_respond when the answer arrives. */
static void evaluate_prompt(void *user_data, const char *request, OhHooksCall *call) {
    (void)user_data;
    int destructive = strstr(request, "rm -rf") != NULL || strstr(request, "mkfs") != NULL;
    int secrets = strstr(request, "secrets?\"") && strstr(request, "API key") != NULL;
    if (destructive)
        oh_hooks_respond(call, "{\"decision\":\"deny\",\"reason\":\"the model judged: this command deletes files\"}");
    else if (secrets)
        oh_hooks_respond(call, "{\"decision\":\"deny\",\"reason\":\"the model judged: this prompt asks for a secret\"}");
    else
        oh_hooks_respond(call, "{\"hookSpecificOutput\":{\"additionalContext\":\"the model sees no risk\"}}");
}

/* The observer: one audit line per fire, after all of its hooks finished. */
static void audit(void *user_data, const char *record) {
    FILE *log = user_data;
    fprintf(log, "audit log: %s\n", record);
    fflush(log);
}

/* Asynchronous fires report here, on an engine thread. */
typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    char *outcome;
} Waiter;

static void done(void *user_data, char *outcome) {
    Waiter *w = user_data;
    pthread_mutex_lock(&w->mu);
    w->outcome = outcome; /* ours now: freed with oh_hooks_string_free */
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->mu);
}

static char *wait_done(Waiter *w) {
    pthread_mutex_lock(&w->mu);
    while (!w->outcome) pthread_cond_wait(&w->cv, &w->mu);
    char *o = w->outcome;
    w->outcome = NULL;
    pthread_mutex_unlock(&w->mu);
    return o;
}

static int failures;

static void expect(const char *what, char *outcome, const char *needle) {
    int ok = outcome && strstr(outcome, needle);
    printf("-> %s: %s\n\n", what, ok ? "as expected" : "UNEXPECTED");
    failures += !ok;
    oh_hooks_string_free(outcome);
}

int main(void) {
    char options[sizeof CONFIG];
    for (size_t i = 0; i < sizeof CONFIG; i++) options[i] = CONFIG[i] == '\'' ? '"' : CONFIG[i];
    char *error = NULL;
    OhHooks *hooks = oh_hooks_new(options, &error);
    if (!hooks) {
        fprintf(stderr, "oh_hooks_new: %s\n", error);
        oh_hooks_string_free(error);
        return 2;
    }
    if (oh_hooks_register(hooks, "canUseTool", can_use_tool, NULL, NULL, &error) != 0 ||
        oh_hooks_register(hooks, "prompt", evaluate_prompt, NULL, NULL, &error) != 0 ||
        oh_hooks_observe(hooks, audit, stdout, NULL, &error) != 0) {
        fprintf(stderr, "registration failed: %s\n", error);
        oh_hooks_string_free(error);
        return 2;
    }

    expect("Bash `ls`: canUseTool has no objection, the model sees no risk",
           oh_hooks_fire(hooks, "{\"event\":\"preToolUse\",\"toolName\":\"Bash\",\"toolArgs\":\"ls -la\"}"),
           "\"allowed\":true");
    expect("Bash `rm -rf ~`: the prompt hook asks the model, which denies",
           oh_hooks_fire(hooks, "{\"event\":\"preToolUse\",\"toolName\":\"Bash\",\"toolArgs\":\"rm -rf ~\"}"),
           "\"reason\":\"the model judged: this command deletes files\"");
    expect("WebFetch: canUseTool denies",
           oh_hooks_fire(hooks, "{\"event\":\"preToolUse\",\"toolName\":\"WebFetch\"}"),
           "\"reason\":\"no network access in this session\"");
    expect("a prompt asking for an API key: the model denies",
           oh_hooks_fire(hooks, "{\"event\":\"userPromptSubmit\",\"prompt\":\"print the API key\"}"),
           "\"allowed\":false");

    Waiter w = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, NULL};
    oh_hooks_fire_async(hooks, "{\"event\":\"preToolUse\",\"toolName\":\"Read\"}", done, &w);
    expect("asynchronous fire (Read), reported by done on an engine thread", wait_done(&w), "\"allowed\":true");

    uint64_t id = oh_hooks_fire_async(hooks, "{\"event\":\"preToolUse\",\"toolName\":\"SlowTool\"}", done, &w);
    oh_hooks_cancel(hooks, id); /* the user pressed Esc: its `sleep 30` hook is killed */
    expect("asynchronous fire of SlowTool, cancelled", wait_done(&w), "\"code\":\"cancelled\"");

    oh_hooks_free(hooks);
    printf("harness: %s\n", failures ? "UNEXPECTED decisions" : "every decision was as expected");
    return failures ? 1 : 0;
}
