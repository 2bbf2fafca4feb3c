/* check.h — the tiny test framework of the C tests.
 *
 *   CHECK(cond, fmt, ...)   counts a pass, or prints `FAIL file:line: cond: message` and counts a failure
 *   RUN(fn)                 runs one test function, then prints `ok fn` or `FAIL fn (N failed checks)`
 *   return DONE();          prints `<program>: N passed, N failed` (the line run.sh sums) and gives
 *                           the exit status
 * Counters are shared by threads (a mutex guards them). */
#ifndef OHT_CHECK_H
#define OHT_CHECK_H

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int oht_pass, oht_fail, oht_fn_fail;
static const char *oht_prog = "test";
static pthread_mutex_t oht_mu = PTHREAD_MUTEX_INITIALIZER;

static inline void oht_count(int ok) {
    pthread_mutex_lock(&oht_mu);
    if (ok) oht_pass++;
    else oht_fail++, oht_fn_fail++;
    pthread_mutex_unlock(&oht_mu);
}

#define CHECK(cond, ...)                                                   \
    do {                                                                   \
        if (cond) {                                                        \
            oht_count(1);                                                  \
        } else {                                                           \
            pthread_mutex_lock(&oht_mu);                                   \
            printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);         \
            printf(__VA_ARGS__);                                           \
            printf("\n");                                                  \
            fflush(stdout);                                                \
            pthread_mutex_unlock(&oht_mu);                                 \
            oht_count(0);                                                  \
        }                                                                  \
    } while (0)

/* Releases what a test function registered with gc_*(): defined in common.h. */
static void gc_collect(void);

#define RUN(fn)                                                            \
    do {                                                                   \
        oht_fn_fail = 0;                                                   \
        fn();                                                              \
        gc_collect();                                                      \
        if (oht_fn_fail) printf("FAIL %s (%d failed checks)\n", #fn, oht_fn_fail); \
        else printf("ok %s\n", #fn);                                       \
        fflush(stdout);                                                    \
    } while (0)

#define DONE() (printf("%s: %d passed, %d failed\n", oht_prog, oht_pass, oht_fail), fflush(stdout), oht_fail ? 1 : 0)

#endif
