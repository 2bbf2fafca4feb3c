// The Go `Fire(ctx)` row's old floor (floor.go): a C thread, woken from Go, that calls into Go,
// which wakes a goroutine. No engine.
#include <pthread.h>
#include <stdint.h>
#include "_cgo_export.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int pending;

static void *partner(void *arg) {
    (void)arg;
    pthread_mutex_lock(&mu);
    for (;;) {
        while (!pending) pthread_cond_wait(&cv, &mu);
        pending = 0;
        pthread_mutex_unlock(&mu);
        benchFloorWake();
        pthread_mutex_lock(&mu);
    }
    return NULL;
}

int bench_floor_start(void) {
    pthread_t t;
    return pthread_create(&t, NULL, partner, NULL);
}

void bench_floor_kick(void) {
    pthread_mutex_lock(&mu);
    pending = 1;
    pthread_cond_signal(&cv);
    pthread_mutex_unlock(&mu);
}
