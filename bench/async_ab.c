/* async_ab.c: the asynchronous round trip (row `async.rt` of bench.c) of two builds of
 * liboh_hooks.so, loaded side by side in one process (dlopen, RTLD_LOCAL: two copies) and timed
 * in alternating batches of 200, so both see the same load: medians of each, of the paired
 * differences, and CPU time of the process (both threads, spinning included) per round trip.
 *   gcc -O2 bench/async_ab.c -o async_ab -ldl -lpthread
 *   ./async_ab BEFORE/liboh_hooks.so AFTER/liboh_hooks.so [ROUNDS]
 * (Copy one of the two .so files elsewhere first: the same path would be loaded once.) */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
typedef struct OhHooks OhHooks;
typedef void (*done_fn)(void *, char *);
typedef struct {
    OhHooks *(*new_)(const char *, char **);
    uint64_t (*fire_async)(const OhHooks *, const char *, done_fn, void *);
    void (*sfree)(char *);
    void (*hfree)(OhHooks *);
    OhHooks *h;
} Lib;
static const char ENV[] = "{\"event\":\"preToolUse\",\"toolName\":\"Bash\",\"toolArgs\":\"{\\\"command\\\":\\\"ls -la /tmp\\\",\\\"description\\\":\\\"List files\\\"}\",\"sessionId\":\"5f0c2e9a-8b1d-4c3e-9f7a-2d6b1e0c4a11\",\"model\":\"claude-sonnet-4\",\"cwd\":\"/tmp\"}";
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int fin;
static Lib *cur;
static void done(void *u, char *o) {
    (void)u;
    if (!o || strncmp(o, "{\"allowed\":true", 15)) { fprintf(stderr, "bad %s\n", o); exit(1); }
    cur->sfree(o);
    pthread_mutex_lock(&mu);
    fin = 1;
    pthread_mutex_unlock(&mu);
    pthread_cond_signal(&cv); /* after the unlock, as bench.c's `done` */
}
static double now(clockid_t c) { struct timespec t; clock_gettime(c, &t); return t.tv_sec * 1e9 + t.tv_nsec; }
static void load(Lib *l, const char *path) {
    void *d = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!d) { fprintf(stderr, "%s\n", dlerror()); exit(1); }
    l->new_ = dlsym(d, "oh_hooks_new"); l->fire_async = dlsym(d, "oh_hooks_fire_async");
    l->sfree = dlsym(d, "oh_hooks_string_free"); l->hfree = dlsym(d, "oh_hooks_free");
    char *err = NULL;
    l->h = l->new_("{\"cwd\":\"/tmp\",\"trusted\":true,\"config\":{\"hooks\":{\"postToolUse\":[{\"command\":\"true\"}]}}}", &err);
    if (!l->h) { fprintf(stderr, "new: %s\n", err); exit(1); }
}
static void batch(Lib *l, int n, double *wall, double *cpu) {
    cur = l;
    double t0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_PROCESS_CPUTIME_ID);
    for (int i = 0; i < n; i++) {
        fin = 0;
        l->fire_async(l->h, ENV, done, NULL);
        pthread_mutex_lock(&mu);
        while (!fin) pthread_cond_wait(&cv, &mu);
        pthread_mutex_unlock(&mu);
    }
    *wall = (now(CLOCK_MONOTONIC) - t0) / n;
    *cpu = (now(CLOCK_PROCESS_CPUTIME_ID) - c0) / n;
}
static int cmp(const void *a, const void *b) { double x = *(double *)a, y = *(double *)b; return x < y ? -1 : x > y; }
static double med(double *v, int n) { double *c = malloc(n * sizeof *c); memcpy(c, v, n * sizeof *c); qsort(c, n, sizeof *c, cmp); double m = c[n / 2]; free(c); return m; }
int main(int argc, char **argv) {
    if (argc < 3) return 2;
    int rounds = argc > 3 ? atoi(argv[3]) : 200, per = 200;
    Lib a, b;
    load(&a, argv[1]); load(&b, argv[2]);
    double wa[rounds], wb[rounds], ca[rounds], cb[rounds], d[rounds], w, c;
    batch(&a, per, &w, &c); batch(&b, per, &w, &c);
    for (int r = 0; r < rounds; r++) {
        if (r & 1) { batch(&a, per, &wa[r], &ca[r]); batch(&b, per, &wb[r], &cb[r]); }
        else { batch(&b, per, &wb[r], &cb[r]); batch(&a, per, &wa[r], &ca[r]); }
        d[r] = wb[r] - wa[r];
    }
    double la[3]; getloadavg(la, 3);
    printf("A %.2f us (cpu %.2f)  B %.2f us (cpu %.2f)  median B-A %.2f us  rounds %d x %d  load %.1f\n",
           med(wa, rounds) / 1e3, med(ca, rounds) / 1e3, med(wb, rounds) / 1e3, med(cb, rounds) / 1e3, med(d, rounds) / 1e3, rounds, per, la[0]);
    a.hfree(a.h); b.hfree(b.h);
    return 0;
}
