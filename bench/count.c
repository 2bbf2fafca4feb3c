/* oh-hooks bench: instructions per no-match fire, counted by callgrind (bench/README.md, [0]).
 *
 *   count ROW N     ROW: none | 20 | claude | six | true1 | claude1 | codex1 | six1 | cb | cbmatch | cbreason;
 *                   N fires + frees of the bench envelope, collected
 *                   between two CALLGRIND_TOGGLE_COLLECT (run under
 *                   `valgrind --tool=callgrind --collect-atstart=no`); engine creation and one
 *                   warm-up fire are outside. Outside valgrind it just runs (and checks).
 *
 * An instruction count does not depend on what else the machine does, so a regression of the
 * fire path shows as a number even on a loaded machine. run.sh divides the total by N.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <valgrind/callgrind.h>

#include "oh_hooks.h"

/* The same 278-byte envelope as bench.c (`bench envelope`). */
static const char ENVELOPE[] =
    "{\"event\":\"preToolUse\",\"toolName\":\"Bash\","
    "\"toolArgs\":\"{\\\"command\\\":\\\"ls -la /tmp\\\",\\\"description\\\":\\\"List files\\\"}\","
    "\"sessionId\":\"5f0c2e9a-8b1d-4c3e-9f7a-2d6b1e0c4a11\",\"model\":\"claude-sonnet-4\","
    "\"provider\":\"anthropic\",\"permissionMode\":\"default\",\"turnNumber\":3,\"cwd\":\"/work/project\"}";

/* The 20 matchers of bench.c's row [1], none matching "Bash". */
static const char *NOMATCH_PATTERNS[20] = {
    "Read", "Write", "Edit", "Grep", "WebFetch", "WebSearch", "NotebookEdit",
    "mcp__*", "*__github__*", "Task*", "*Todo*", "Notebook*Cell", "Kill*", "*Shell",
    "/^(Read|Write|Edit)$/", "/^mcp__.*__(create|delete)_/", "/web(fetch|search)/i",
    "/^Bashful$/", "/^Multi(Edit)?$/", "/todo/i",
};

/* The host functions of the callback rows (bench.c's [3b]): answer at once, on the firing thread. */
static void answer_empty(void *user, const char *request, OhHooksCall *call) {
    (void)user;
    (void)request;
    oh_hooks_respond(call, "{}");
}

static void answer_reason(void *user, const char *request, OhHooksCall *call) {
    (void)user;
    (void)request;
    oh_hooks_respond(call, "{\"reason\":\"checked by the bench\",\"additionalContext\":\"bench context\"}");
}

static void die(const char *what, const char *detail) {
    fprintf(stderr, "count: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    exit(1);
}

/* Writes `text` to dir/rel, creating its parent directories. */
static void put(const char *dir, const char *rel, const char *text) {
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    for (char *p = path + strlen(dir) + 1; *p; p++) {
        if (*p != '/') continue;
        *p = 0;
        if (mkdir(path, 0700) != 0 && access(path, F_OK) != 0) die("mkdir failed", path);
        *p = '/';
    }
    FILE *f = fopen(path, "w");
    if (!f) die("cannot write", path);
    fputs(text, f);
    fclose(f);
}

int main(int argc, char **argv) {
    if (argc != 3) die("usage: count none|20|claude|six|true1|claude1|codex1|six1|cb|cbmatch|cbreason N", NULL);
    const char *row = argv[1];
    int n = atoi(argv[2]);
    char cwd[2048], options[16384], config[4096];
    if (!getcwd(cwd, sizeof cwd)) die("getcwd failed", NULL);
    char dir[] = "/tmp/oh-hooks-count.XXXXXX";
    int claude = !strcmp(row, "claude");
    /* The same `true` hook on preToolUse, matcher Bash, once as a Claude Code hook and once as a
     * Codex hook ([0c]): what each dialect's view, selection, run path and answer reader cost
     * the engine (callgrind follows only this process, not the hook's). */
    const char *dialect_file = !strcmp(row, "claude1") ? ".claude/settings.json"
                               : !strcmp(row, "codex1") ? ".codex/hooks.json" : NULL;
    /* six: all six dialects on, each with hooks on other events only (the no-match path must
     * not grow with the dialects that are on). six1: each dialect (openHarness too) runs one
     * `true` hook on preToolUse: the engine's share of a six-dialect fire, beside claude1. */
    int six = !strcmp(row, "six"), six1 = !strcmp(row, "six1");
    /* cb: a callback hook answering `{}` at once; cbmatch: the same with `match: Bash`;
     * cbreason: that one answering a reason and additionalContext ([3b]'s three rows). */
    int cb = !strcmp(row, "cb"), cbmatch = !strcmp(row, "cbmatch"), cbreason = !strcmp(row, "cbreason");
    if (cb) {
        snprintf(config, sizeof config, "{\"preToolUse\":[{\"callback\":\"canUseTool\"}]}");
    } else if (cbmatch || cbreason) {
        snprintf(config, sizeof config, "{\"preToolUse\":[{\"callback\":\"canUseTool\",\"match\":\"Bash\"}]}");
    } else if (six1) {
        snprintf(config, sizeof config, "{\"preToolUse\":[{\"command\":\"true\"}]}");
    } else if (dialect_file) {
        snprintf(config, sizeof config, "{}");
    } else if (!strcmp(row, "none") || claude || six) {
        snprintf(config, sizeof config, "{\"postToolUse\":[{\"command\":\"true\"}]}");
    } else if (!strcmp(row, "20")) {
        size_t k = (size_t)snprintf(config, sizeof config, "{\"preToolUse\":[");
        for (int i = 0; i < 20; i++)
            k += (size_t)snprintf(config + k, sizeof config - k, "%s{\"command\":\"exit 1\",\"match\":\"%s\"}",
                                  i ? "," : "", NOMATCH_PATTERNS[i]);
        snprintf(config + k, sizeof config - k, "]}");
    } else if (!strcmp(row, "true1")) {
        /* One env-mode `true` hook that runs: the engine's share of a process hook (callgrind
         * follows only this process, not the hook's), for comparing two builds of the library. */
        snprintf(config, sizeof config, "{\"preToolUse\":[{\"command\":\"true\"}]}");
    } else {
        die("unknown row", row);
    }
    if (dialect_file) {
        if (!mkdtemp(dir)) die("mkdtemp failed", NULL);
        char path[4200];
        snprintf(path, sizeof path, "%s/%.7s", dir, dialect_file);
        if (mkdir(path, 0700) != 0) die("mkdir failed", path);
        snprintf(path, sizeof path, "%s/%s", dir, dialect_file);
        FILE *f = fopen(path, "w");
        if (!f) die("cannot write", path);
        fputs("{\"hooks\":{\"PreToolUse\":[{\"matcher\":\"Bash\",\"hooks\":[{\"type\":\"command\",\"command\":\"true\"}]}]}}", f);
        fclose(f);
        snprintf(options, sizeof options, "{\"trusted\":true,\"%s\":true,\"cwd\":\"%s\",\"home\":\"%s\"}",
                 dialect_file[2] == 'l' ? "claude" : "codex", dir, dir);
    } else if (six || six1) {
        if (!mkdtemp(dir)) die("mkdtemp failed", NULL);
        const char *ev = six ? "PostToolUse" : "PreToolUse", *cev = six ? "postToolUse" : "preToolUse";
        const char *gev = six ? "AfterTool" : "BeforeTool";
        char text[1024];
        snprintf(text, sizeof text, "{\"hooks\":{\"%s\":[{\"matcher\":\"Bash\",\"hooks\":[{\"type\":\"command\",\"command\":\"true\"}]}]%s}}",
                 ev, six ? ",\"Stop\":[{\"hooks\":[{\"type\":\"command\",\"command\":\"true\"}]}]" : "");
        put(dir, ".claude/settings.json", text);
        put(dir, ".codex/hooks.json", text);
        snprintf(text, sizeof text, "{\"version\":1,\"hooks\":{\"%s\":[{\"command\":\"true\"}]%s}}", cev,
                 six ? ",\"stop\":[{\"command\":\"true\"}]" : "");
        put(dir, ".cursor/hooks.json", text);
        snprintf(text, sizeof text, "{\"version\":1,\"hooks\":{\"%s\":[{\"type\":\"command\",\"bash\":\"true\"}]}}", cev);
        put(dir, ".copilot/hooks/bench.json", text);
        snprintf(text, sizeof text, "{\"hooks\":{\"%s\":[{\"hooks\":[{\"type\":\"command\",\"command\":\"true\"}]}]}}", gev);
        put(dir, ".gemini/settings.json", text);
        snprintf(options, sizeof options,
                 "{\"config\":{\"hooks\":%s},\"trusted\":true,\"claude\":true,\"codex\":true,\"cursor\":true,"
                 "\"copilot\":true,\"gemini\":true,\"cwd\":\"%s\",\"home\":\"%s\"}",
                 config, dir, dir);
    } else if (claude) {
        /* Claude Code on too, with hooks only on other events: the no-match path must not
         * grow with the dialects that are on. */
        if (!mkdtemp(dir)) die("mkdtemp failed", NULL);
        char path[4200];
        snprintf(path, sizeof path, "%s/.claude", dir);
        if (mkdir(path, 0700) != 0) die("mkdir failed", path);
        snprintf(path, sizeof path, "%s/.claude/settings.json", dir);
        FILE *f = fopen(path, "w");
        if (!f) die("cannot write", path);
        fputs("{\"hooks\":{\"PostToolUse\":[{\"matcher\":\"Bash\",\"hooks\":[{\"type\":\"command\",\"command\":\"true\"}]}],"
              "\"Stop\":[{\"hooks\":[{\"type\":\"command\",\"command\":\"true\"}]}]}}",
              f);
        fclose(f);
        snprintf(options, sizeof options,
                 "{\"config\":{\"hooks\":%s},\"trusted\":true,\"claude\":true,\"cwd\":\"%s\",\"home\":\"%s\"}", config, dir, dir);
    } else {
        snprintf(options, sizeof options, "{\"config\":{\"hooks\":%s},\"trusted\":true,\"cwd\":\"%s\"}", config, cwd);
    }
    char *err = NULL;
    OhHooks *e = oh_hooks_new(options, &err);
    if (!e) die("oh_hooks_new failed", err);
    if ((cb || cbmatch || cbreason) &&
        oh_hooks_register(e, "canUseTool", cbreason ? answer_reason : answer_empty, NULL, NULL, &err) != 0)
        die("oh_hooks_register failed", err);
    char *out = oh_hooks_fire(e, ENVELOPE);
    static const char RAN[] = "{\"allowed\":true,\"hooks\":[{";
    int ran = !strcmp(row, "true1") || dialect_file || six1;
    int called = cb || cbmatch || cbreason;
    if (!out || (called ? strncmp(out, "{\"allowed\":true,", 16) != 0 || !strstr(out, "\"type\":\"callback\"") ||
                              !strstr(out, cbreason ? "\"reason\":\"checked by the bench\"" : "\"result\":\"none\"")
                 : ran    ? strncmp(out, RAN, sizeof RAN - 1) != 0
                          : strcmp(out, "{\"allowed\":true,\"hooks\":[]}") != 0))
        die("unexpected outcome", out);
    oh_hooks_string_free(out);

    CALLGRIND_TOGGLE_COLLECT;
    for (int i = 0; i < n; i++) oh_hooks_string_free(oh_hooks_fire(e, ENVELOPE));
    CALLGRIND_TOGGLE_COLLECT;

    oh_hooks_free(e);
    if (claude || dialect_file || six || six1) {
        char cmd[4200];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        if (system(cmd) != 0) die("could not remove", dir);
    }
    return 0;
}
