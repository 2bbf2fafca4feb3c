/* oh-hooks bench: the cost of one fire of the same `true` hook written for each dialect
 * (docs/dialects/copilot.md; docs/performance.md "Performance"): instructions in this process per fire,
 * counted by callgrind, and the wall time per fire (median of N, noisy on a busy machine).
 *
 *   dialect ROW N   ROW: claude | copilot | copilot-pascal; N fires + frees of the bench
 *                   envelope (the same as count.c's), collected between two
 *                   CALLGRIND_TOGGLE_COLLECT (run under `valgrind --tool=callgrind
 *                   --collect-atstart=no`); engine creation and one warm-up fire outside.
 *
 * The hook's own process is not in the count (callgrind follows only this process): the rows
 * compare what the engine does around a hook of each dialect (its view, its selection, its
 * reader, the spawn), not `true` itself. Each dialect starts `true` its own way: Claude Code
 * runs a plain command directly, Copilot through `bash -c` as the CLI does.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <valgrind/callgrind.h>

#include "oh_hooks.h"

static const char ENVELOPE[] =
    "{\"event\":\"preToolUse\",\"toolName\":\"Bash\","
    "\"toolArgs\":\"{\\\"command\\\":\\\"ls -la /tmp\\\",\\\"description\\\":\\\"List files\\\"}\","
    "\"sessionId\":\"5f0c2e9a-8b1d-4c3e-9f7a-2d6b1e0c4a11\",\"model\":\"claude-sonnet-4\","
    "\"provider\":\"anthropic\",\"permissionMode\":\"default\",\"turnNumber\":3,\"cwd\":\"/work/project\"}";

static void die(const char *what, const char *detail) {
    fprintf(stderr, "dialect: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    exit(1);
}

static void write_file(const char *dir, const char *sub, const char *name, const char *text) {
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, sub);
    char cmd[4300];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", path);
    if (system(cmd) != 0) die("mkdir failed", path);
    snprintf(path, sizeof path, "%s/%s/%s", dir, sub, name);
    FILE *f = fopen(path, "w");
    if (!f) die("cannot write", path);
    fputs(text, f);
    fclose(f);
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    if (argc != 3) die("usage: dialect claude|copilot|copilot-pascal N", NULL);
    const char *row = argv[1];
    int n = atoi(argv[2]);
    if (n < 1) die("N must be at least 1", argv[2]);
    char dir[] = "/tmp/oh-hooks-dialect.XXXXXX";
    if (!mkdtemp(dir)) die("mkdtemp failed", NULL);
    const char *option;
    if (!strcmp(row, "claude")) {
        write_file(dir, ".claude", "settings.json",
                   "{\"hooks\":{\"PreToolUse\":[{\"matcher\":\"Bash\",\"hooks\":[{\"type\":\"command\",\"command\":\"true\"}]}]}}");
        option = "claude";
    } else if (!strcmp(row, "copilot")) {
        write_file(dir, ".github/hooks", "bench.json",
                   "{\"version\":1,\"hooks\":{\"preToolUse\":[{\"type\":\"command\",\"bash\":\"true\",\"matcher\":\"bash\"}]}}");
        option = "copilot";
    } else if (!strcmp(row, "copilot-pascal")) {
        write_file(dir, ".github/hooks", "bench.json",
                   "{\"version\":1,\"hooks\":{\"PreToolUse\":[{\"type\":\"command\",\"bash\":\"true\",\"matcher\":\"Bash\"}]}}");
        option = "copilot";
    } else {
        die("unknown row", row);
    }
    char options[9000];
    snprintf(options, sizeof options, "{\"layers\":[\"project\"],\"trusted\":true,\"%s\":true,\"cwd\":\"%s\",\"home\":\"%s\"}",
             option, dir, dir);
    char *err = NULL;
    OhHooks *e = oh_hooks_new(options, &err);
    if (!e) die("oh_hooks_new failed", err);
    char *out = oh_hooks_fire(e, ENVELOPE);
    static const char RAN[] = "{\"allowed\":true,\"hooks\":[{";
    if (!out || strncmp(out, RAN, sizeof RAN - 1) != 0 || !strstr(out, "\"exitCode\":0")) die("unexpected outcome", out);
    oh_hooks_string_free(out);

    double *us = calloc((size_t)n, sizeof *us);
    if (!us) die("out of memory", NULL);
    CALLGRIND_TOGGLE_COLLECT;
    for (int i = 0; i < n; i++) {
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        oh_hooks_string_free(oh_hooks_fire(e, ENVELOPE));
        clock_gettime(CLOCK_MONOTONIC, &b);
        us[i] = (double)(b.tv_sec - a.tv_sec) * 1e6 + (double)(b.tv_nsec - a.tv_nsec) / 1e3;
    }
    CALLGRIND_TOGGLE_COLLECT;
    qsort(us, (size_t)n, sizeof *us, cmp);
    if (!RUNNING_ON_VALGRIND) printf("%s: median %.0f us per fire (%d fires)\n", row, us[n / 2], n);
    free(us);
    oh_hooks_free(e);
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) die("could not remove", dir);
    return 0;
}
