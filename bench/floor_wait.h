/* floor_wait.h — the request side of the binding benches' floors (bench/node/floor.c,
 * bench/python/floor.c, bench/go/floor.c): a partner thread that, like the engine's async
 * threads (src/thread_pool.rs), looks for the next request for 50 µs (spinning, then yielding
 * the core) before it sleeps on a pipe. So a floor's round trip has the engine's shape: the
 * request reaches a thread that is usually still awake, and only the answer wakes a sleeper. */
#ifndef OH_BENCH_FLOOR_WAIT_H
#define OH_BENCH_FLOOR_WAIT_H
#include <sched.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

static atomic_int floor_req, floor_sleeping;
static int floor_pipe[2] = {-1, -1};

static double floor_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int floor_init(void) { return pipe(floor_pipe); }

/* The partner: returns once a request was posted. */
static void floor_wait(void) {
    for (;;) {
        double t0 = floor_now_ns();
        int looks = 0;
        while (!atomic_exchange(&floor_req, 0)) {
            if (++looks < 64) continue;
            if (floor_now_ns() - t0 > 50000) goto sleep;
            sched_yield();
        }
        return;
    sleep:
        atomic_store(&floor_sleeping, 1);
        if (!atomic_exchange(&floor_req, 0)) {
            char c;
            if (read(floor_pipe[0], &c, 1) != 1) c = 0;
            if (!atomic_exchange(&floor_req, 0)) {
                atomic_store(&floor_sleeping, 0);
                continue; /* a wake-up for a request already taken */
            }
        }
        atomic_store(&floor_sleeping, 0);
        return;
    }
}

/* The requester. */
static void floor_post(void) {
    atomic_store(&floor_req, 1);
    if (atomic_load(&floor_sleeping) && write(floor_pipe[1], "k", 1) != 1) return;
}
#endif
