// The Go `Fire(ctx)` row's old floor (floor.go): a C thread, woken from Go, that calls into Go,
// which wakes a goroutine. No engine. The C thread waits for a request as the engine's threads
// do (../floor_wait.h).
#include <pthread.h>
#include <stdint.h>
#include "_cgo_export.h"
#include "../floor_wait.h"

static void *partner(void *arg) {
    (void)arg;
    for (;;) {
        floor_wait();
        benchFloorWake();
    }
    return NULL;
}

int bench_floor_start(void) {
    pthread_t t;
    if (floor_init()) return -1;
    return pthread_create(&t, NULL, partner, NULL);
}

void bench_floor_kick(void) { floor_post(); }
