/* async_legs.c: where one asynchronous round trip (row `async.rt` of bench.c) spends its time.
 * Each of N sequential round trips is timestamped (rdtsc) at its hand-offs: the host thread
 * calls oh_hooks_fire_async, it returns, an engine thread enters `done`, `done` has signalled
 * the waiting thread, the waiting thread runs again. Medians of each leg, then the same split
 * by whether `done` ran on the waiting thread's CPU (sched_getcpu): on this VM the two kinds
 * differ by 5x, so a median alone says which one a run was in (docs/performance.md "Round 6").
 *   gcc -O2 bench/async_legs.c -o async_legs -ldl -lpthread
 *   ./async_legs target/release/liboh_hooks.so [N] [spin]
 * `spin` (any third argument): the waiting thread spins on a flag instead of sleeping on the
 * condition variable, which leaves the engine's own part of the round trip (its "other CPU"
 * column: on one CPU the spinning waiter holds it until preempted). x86-64 only. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>
typedef struct OhHooks OhHooks;
typedef void (*done_fn)(void *, char *);
static OhHooks *(*new_)(const char *, char **);
static uint64_t (*fire_async)(const OhHooks *, const char *, done_fn, void *);
static void (*sfree)(char *);
static const char ENV[] = "{\"event\":\"preToolUse\",\"toolName\":\"Bash\",\"toolArgs\":\"{\\\"command\\\":\\\"ls -la /tmp\\\",\\\"description\\\":\\\"List files\\\"}\",\"sessionId\":\"5f0c2e9a-8b1d-4c3e-9f7a-2d6b1e0c4a11\",\"model\":\"claude-sonnet-4\",\"cwd\":\"/tmp\"}";
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int fin, spin, done_cpu;
static uint64_t t_in, t_sig;
static void done(void *u, char *o) {
    (void)u;
    t_in = __rdtsc();
    done_cpu = sched_getcpu();
    if (!o || strncmp(o, "{\"allowed\":true", 15)) { fprintf(stderr, "bad outcome %s\n", o); exit(1); }
    sfree(o);
    if (spin) {
        t_sig = __rdtsc();
        __atomic_store_n(&fin, 1, __ATOMIC_RELEASE);
        return;
    }
    pthread_mutex_lock(&mu); /* as bench.c's `done` */
    fin = 1;
    pthread_mutex_unlock(&mu);
    t_sig = __rdtsc(); /* before the signal: the woken thread may run before anything after it */
    pthread_cond_signal(&cv);
}
static int cmp(const void *a, const void *b) { double x = *(double *)a, y = *(double *)b; return x < y ? -1 : x > y; }
static double med(double *v, int n) { qsort(v, n, sizeof *v, cmp); return n ? v[n / 2] / 1e3 : 0; }
enum { SUBMIT, PICKUP, SIGNAL, WAKE, TOTAL, LEGS };
static const char *names[LEGS] = {"oh_hooks_fire_async call", "its return -> `done` entered", "`done` entered -> signalling", "signal (futex) -> waiter runs", "round trip"};
int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: %s LIB.so [N] [spin]\n", argv[0]); return 2; }
    void *d = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!d) { fprintf(stderr, "%s\n", dlerror()); return 1; }
    new_ = dlsym(d, "oh_hooks_new"); fire_async = dlsym(d, "oh_hooks_fire_async"); sfree = dlsym(d, "oh_hooks_string_free");
    int n = argc > 2 ? atoi(argv[2]) : 20000;
    spin = argc > 3;
    char *err = NULL;
    OhHooks *h = new_("{\"cwd\":\"/tmp\",\"trusted\":true,\"config\":{\"hooks\":{\"postToolUse\":[{\"command\":\"true\"}]}}}", &err);
    if (!h) { fprintf(stderr, "new: %s\n", err); return 1; }
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    uint64_t c0 = __rdtsc();
    usleep(100000);
    clock_gettime(CLOCK_MONOTONIC, &b);
    double ghz = (__rdtsc() - c0) / ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec));
    double *all[LEGS], *same[LEGS], *cross[LEGS];
    for (int k = 0; k < LEGS; k++) all[k] = malloc(n * 8), same[k] = malloc(n * 8), cross[k] = malloc(n * 8);
    int ns = 0, nc = 0;
    for (int i = -100; i < n; i++) {
        fin = 0;
        uint64_t t0 = __rdtsc();
        fire_async(h, ENV, done, NULL);
        uint64_t t1 = __rdtsc();
        if (spin) while (!__atomic_load_n(&fin, __ATOMIC_ACQUIRE)) _mm_pause();
        else {
            pthread_mutex_lock(&mu);
            while (!fin) pthread_cond_wait(&cv, &mu);
            pthread_mutex_unlock(&mu);
        }
        uint64_t t2 = __rdtsc();
        if (i < 0) continue;
        double v[LEGS] = {(int64_t)(t1 - t0) / ghz, (int64_t)(t_in - t1) / ghz, (int64_t)(t_sig - t_in) / ghz, (int64_t)(t2 - t_sig) / ghz, (int64_t)(t2 - t0) / ghz};
        int s = done_cpu == sched_getcpu();
        for (int k = 0; k < LEGS; k++) {
            all[k][i] = v[k];
            (s ? same : cross)[k][s ? ns : nc] = v[k];
        }
        s ? ns++ : nc++;
    }
    double la[3];
    getloadavg(la, 3);
    printf("%d round trips, waiter %s, load average %.2f (medians, us)\n", n, spin ? "spinning" : "on a condition variable", la[0]);
    printf("  %-32s %8s %12s %12s\n", "", "all", "same CPU", "other CPU");
    printf("  %-32s %8d %12d %12d\n", "round trips", n, ns, nc);
    for (int k = 0; k < LEGS; k++) printf("  %-32s %8.2f %12.2f %12.2f\n", names[k], med(all[k], n), med(same[k], ns), med(cross[k], nc));
    return 0;
}
