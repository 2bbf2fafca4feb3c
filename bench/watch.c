/* The cost of live reload's change check on the no-match fire (issue: measure and report it).
 *
 * Two engines with the same single non-matching hook: one from an inline `config` (nothing is
 * watched), one from the layer files of a temporary project (three config files and the trust
 * store are watched: a coarse clock read and an atomic compare on every fire, the files
 * themselves stat'ed at most every 250 ms). Interleaved rounds; medians and the difference. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include "oh_hooks.h"

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}
static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    int rounds = argc > 1 ? atoi(argv[1]) : 200;
    if (rounds < 1 || rounds > 10000) rounds = 200;
    char dir[] = "/tmp/oh-hooks-watch-XXXXXX";
    if (!mkdtemp(dir)) { perror("mkdtemp"); return 1; }
    char path[512], options[1024];
    snprintf(path, sizeof path, "%s/.oh", dir);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/.oh/config.yaml", dir);
    FILE *f = fopen(path, "w");
    if (!f) { perror(path); return 1; }
    fputs("hooks:\n  preToolUse:\n    - command: \"true\"\n      match: Write\n", f);
    fclose(f);

    char *err = NULL;
    snprintf(options, sizeof options,
             "{\"trusted\":true,\"home\":\"%s\",\"config\":{\"hooks\":{\"preToolUse\":[{\"command\":\"true\",\"match\":\"Write\"}]}}}", dir);
    OhHooks *inline_engine = oh_hooks_new(options, &err);
    snprintf(options, sizeof options, "{\"home\":\"%s\",\"cwd\":\"%s\"}", dir, dir);
    OhHooks *watched = oh_hooks_new(options, &err);
    if (!inline_engine || !watched) { fprintf(stderr, "oh_hooks_new: %s\n", err); return 1; }

    const char *envelope = "{\"event\":\"preToolUse\",\"toolName\":\"Bash\",\"toolArgs\":\"ls\"}";
    double *a = calloc(rounds, sizeof *a), *b = calloc(rounds, sizeof *b);
    for (int r = 0; r < rounds; r++) {
        OhHooks *first = r % 2 ? watched : inline_engine, *second = r % 2 ? inline_engine : watched;
        double t0 = now_ns();
        for (int i = 0; i < 2000; i++) oh_hooks_string_free(oh_hooks_fire(first, envelope));
        double t1 = now_ns();
        for (int i = 0; i < 2000; i++) oh_hooks_string_free(oh_hooks_fire(second, envelope));
        double t2 = now_ns();
        (r % 2 ? b : a)[r] = (t1 - t0) / 2000;
        (r % 2 ? a : b)[r] = (t2 - t1) / 2000;
    }
    qsort(a, rounds, sizeof *a, cmp);
    qsort(b, rounds, sizeof *b, cmp);
    printf("[7] Live reload's change check on the no-match fire (%d interleaved rounds of 2000 fires)\n", rounds);
    printf("  inline config, nothing watched                  %8.0f ns\n", a[rounds / 2]);
    printf("  layer files, 3 config files + trust store       %8.0f ns\n", b[rounds / 2]);
    printf("  cost of the check                               %8.0f ns a fire (median difference)\n", b[rounds / 2] - a[rounds / 2]);
    oh_hooks_free(inline_engine);
    oh_hooks_free(watched);
    snprintf(path, sizeof path, "rm -rf '%s'", dir);
    if (system(path) != 0) return 1;
    free(a);
    free(b);
    return 0;
}
