/* The floors of Python's `await fire_async` (bench.py), built by run.sh as pyfloor.so: a C
 * thread, woken by a request, that either writes a 16-byte record to a pipe the event
 * loop watches with add_reader (how the engine completes fire_async now, without Python), or
 * calls a ctypes function from that thread, which wakes the loop with call_soon_threadsafe (how
 * the engine's `done` did it before). No engine. The C thread waits for a request as the
 * engine's threads do (../floor_wait.h). */
#include <pthread.h>
#include <stdint.h>
#include <unistd.h>

#include "../floor_wait.h"

static char mode;
static int resp_fd = -1;
static void (*callback)(void);

static void *partner(void *arg) {
    (void)arg;
    unsigned char record[16] = {0};
    for (;;) {
        floor_wait();
        if (mode == 'c') callback();
        else if (write(resp_fd, record, sizeof record) != (ssize_t)sizeof record) return NULL;
    }
    return NULL;
}

int pyfloor_start(int fd, void (*fn)(void)) {
    pthread_t t;
    resp_fd = fd;
    callback = fn;
    if (floor_init()) return -1;
    return pthread_create(&t, NULL, partner, NULL);
}

/* 'c': call the function from the C thread; anything else: write a record to fd. */
void pyfloor_kick(char m) {
    mode = m; /* read by the partner after floor_post's atomic store */
    floor_post();
}
