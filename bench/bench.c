/* oh-hooks performance bench: the C side.
 *
 *   bench run     -o FILE [-r ROUNDS]   every C row, interleaved; raw samples to FILE
 *   bench cref    -o FILE [-n SAMPLES]  only the no-match C call (the reference of the binding rows)
 *   bench report  FILE...               reads sample files, prints the table
 *   bench profile ROW N                 runs one row's operation N times, untimed (for callgrind,
 *                                       strace -c, perf); ROW: see usage()
 *
 * Method (bench/README.md): every row is one sampling function; a round calls each row once,
 * in a freshly shuffled order, so that whatever else the machine is doing (2 cores, other agents)
 * hits every row and its floor alike. Samples are ns per operation. Floors (posix_spawn of the
 * same shell, a raw loopback POST) are rows of the same rounds.
 *
 * Nothing here fails because a number is slow: the program exits non-zero only when something
 * does not run (an engine cannot be created, a hook or a spawn fails, the HTTP server fails).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "oh_hooks.h"

extern char **environ;

/* ------------------------------------------------------------------------------------------ */
/* Inputs shared by every row (and by the binding benches, which must use the same text).     */

/* A realistic preToolUse envelope, compact and `event` first, so the engine forwards it byte
 * for byte to jsonIO and HTTP hooks (278 bytes). */
static const char ENVELOPE[] =
    "{\"event\":\"preToolUse\",\"toolName\":\"Bash\","
    "\"toolArgs\":\"{\\\"command\\\":\\\"ls -la /tmp\\\",\\\"description\\\":\\\"List files\\\"}\","
    "\"sessionId\":\"5f0c2e9a-8b1d-4c3e-9f7a-2d6b1e0c4a11\",\"model\":\"claude-sonnet-4\","
    "\"provider\":\"anthropic\",\"permissionMode\":\"default\",\"turnNumber\":3,\"cwd\":\"/work/project\"}";

/* What the engine exports for ENVELOPE (CONTRACT §5): the ladder's full step passes the same. */
static const char *OH_VARS[] = {
    "OH_EVENT=preToolUse",
    "OH_TOOL_NAME=Bash",
    "OH_TOOL_ARGS={\"command\":\"ls -la /tmp\",\"description\":\"List files\"}",
    "OH_SESSION_ID=5f0c2e9a-8b1d-4c3e-9f7a-2d6b1e0c4a11",
    "OH_MODEL=claude-sonnet-4",
    "OH_PROVIDER=anthropic",
    "OH_PERMISSION_MODE=default",
    "OH_TURN_NUMBER=3",
};

/* The jsonIO hook: reads the whole envelope, answers an empty object (no decision). */
#define JSON_CMD "cat >/dev/null; echo '{}'"

/* 20 hooks on preToolUse, none matching toolName "Bash": 7 substring, 7 glob, 6 regex.
 * Each would deny (exit 1) if it ever matched, which the setup check would catch. */
static const char *NOMATCH_PATTERNS[20] = {
    "Read", "Write", "Edit", "Grep", "WebFetch", "WebSearch", "NotebookEdit",
    "mcp__*", "*__github__*", "Task*", "*Todo*", "Notebook*Cell", "Kill*", "*Shell",
    "/^(Read|Write|Edit)$/", "/^mcp__.*__(create|delete)_/", "/web(fetch|search)/i",
    "/^Bashful$/", "/^Multi(Edit)?$/", "/todo/i",
};

#define NOMATCH_BATCH 1000 /* fires per sample of the no-match rows */
#define HTTP_BATCH 20      /* requests per sample of the HTTP rows */
#define THR_MAX 8
#define THR_NOMATCH_TOTAL 16000 /* fires per sample, split among the threads */
#define THR_SPAWN_TOTAL 24
#define PERS_BATCH 20        /* fires per sample of the persistent-hook rows */
#define THR_PERS_TOTAL 400   /* fires per sample of the persistent throughput rows */

/* ------------------------------------------------------------------------------------------ */
/* Small helpers.                                                                              */

static int g_failures;

static void say_error(const char *fmt, va_list ap) {
    fputs("error: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

static void die(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    say_error(fmt, ap);
    va_end(ap);
    exit(1);
}

static void failure(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    say_error(fmt, ap);
    va_end(ap);
    if (__atomic_add_fetch(&g_failures, 1, __ATOMIC_RELAXED) >= 20) die("too many failures, giving up");
}

static inline double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int count_of(const char *hay, const char *needle) {
    int n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle)) n++;
    return n;
}

static inline double thread_cpu_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static char g_cwd[PATH_MAX];

/* ------------------------------------------------------------------------------------------ */
/* Sample series.                                                                              */

typedef struct {
    char id[48];
    double *v;
    int n, cap;
} Series;

static Series g_series[96];
static int g_nseries;

static Series *series(const char *id) {
    for (int i = 0; i < g_nseries; i++)
        if (strcmp(g_series[i].id, id) == 0) return &g_series[i];
    if (g_nseries == (int)(sizeof g_series / sizeof g_series[0])) die("too many series");
    Series *s = &g_series[g_nseries++];
    snprintf(s->id, sizeof s->id, "%s", id);
    return s;
}

static void record(Series *s, double v) {
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 128;
        s->v = realloc(s->v, (size_t)s->cap * sizeof *s->v);
        if (!s->v) die("out of memory");
    }
    s->v[s->n++] = v;
}

static void write_series(const char *path, const char *meta) {
    FILE *f = fopen(path, "w");
    if (!f) die("cannot write %s: %s", path, strerror(errno));
    if (meta) fputs(meta, f);
    for (int i = 0; i < g_nseries; i++)
        for (int j = 0; j < g_series[i].n; j++) fprintf(f, "%s %.1f\n", g_series[i].id, g_series[i].v[j]);
    if (fclose(f) != 0) die("cannot write %s: %s", path, strerror(errno));
}

/* ------------------------------------------------------------------------------------------ */
/* Engines.                                                                                    */

static OhHooks *new_engine(const char *hooks_json) {
    size_t need = strlen(hooks_json) + strlen(g_cwd) + 128;
    char *opts = malloc(need);
    if (!opts) die("out of memory");
    snprintf(opts, need, "{\"cwd\":\"%s\",\"trusted\":true,\"config\":{\"hooks\":%s}}", g_cwd, hooks_json);
    char *err = NULL;
    OhHooks *h = oh_hooks_new(opts, &err);
    if (!h) die("oh_hooks_new failed for %s: %s", opts, err ? err : "(no error JSON)");
    free(opts);
    return h;
}

static OhHooks *E_none, *E_20, *E_env1, *E_env1sh, *E_json1, *E_env5, *E_http, *E_cb, *E_cbm, *E_cbr;
/* Persistent hooks (bench/policy.py, bench/policy.js, cat) and the same scripts spawned. */
static OhHooks *E_pcat, *E_ppy, *E_spy, *E_pnode, *E_snode, *E_ppy4;
static char g_bench_dir[PATH_MAX]; /* where policy.py and policy.js are */

/* Checks one outcome of a row (outside the timed region). `runs` command or HTTP hooks ran. */
static void check_outcome(const char *row, const char *out, int runs, const char *each) {
    if (!out) {
        failure("%s: oh_hooks_fire returned NULL", row);
        return;
    }
    if (runs == 0) {
        if (strcmp(out, "{\"allowed\":true,\"hooks\":[]}") != 0) failure("%s: unexpected outcome %s", row, out);
        return;
    }
    if (strncmp(out, "{\"allowed\":true,", 16) != 0 || strstr(out, "\"error\"") || count_of(out, each) != runs ||
        count_of(out, "\"result\":\"none\"") != runs)
        failure("%s: a hook did not run as expected: %s", row, out);
}

/* Reads the trace's durationMs (engine-measured time inside hook::run) as ns. */
static double trace_duration_ns(const char *out) {
    const char *p = strstr(out, "\"durationMs\":");
    return p ? strtod(p + 13, NULL) * 1e6 : NAN;
}

/* ------------------------------------------------------------------------------------------ */
/* Spawn floors and the ladder from the floor to what the engine does.                        */

static char *SH_TRUE[] = {"/bin/sh", "-c", "true", NULL};
static char *BIN_TRUE[] = {"/bin/true", NULL};
static char *SH_JSON[] = {"/bin/sh", "-c", JSON_CMD, NULL};
static char **g_env_with_vars; /* environ + OH_VARS, built once */

static void build_env_with_vars(void) {
    size_t n = 0;
    while (environ[n]) n++;
    size_t k = sizeof OH_VARS / sizeof OH_VARS[0];
    g_env_with_vars = calloc(n + k + 1, sizeof(char *));
    if (!g_env_with_vars) die("out of memory");
    size_t j = 0;
    for (size_t i = 0; i < n; i++)
        if (strncmp(environ[i], "OH_", 3) != 0) g_env_with_vars[j++] = environ[i];
    for (size_t i = 0; i < k; i++) g_env_with_vars[j++] = (char *)OH_VARS[i];
}

static int reap(const char *row, pid_t pid) {
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR) {
            failure("%s: waitpid: %s", row, strerror(errno));
            return -1;
        }
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        failure("%s: child did not exit 0 (status %#x)", row, st);
        return -1;
    }
    return 0;
}

/* A: posix_spawn("/bin/sh -c true") + waitpid. B: the same with /bin/true. */
static void op_spawn_plain(char **argv) {
    pid_t pid;
    int rc = posix_spawn(&pid, argv[0], NULL, NULL, argv, environ);
    if (rc) {
        failure("posix_spawn %s: %s", argv[0], strerror(rc));
        return;
    }
    reap(argv[0], pid);
}

/* The ladder: each step adds one thing the engine's env-mode hook does (src/run/command.rs), in C.
 *   1: chdir(cwd) + own process group + signal mask/default as std's Command + stdin and stdout
 *      opened on /dev/null in the parent and dup2'd (what Stdio::null does)
 *   2: + stderr on a pipe, read to EOF
 *   3: + non-blocking pipe, pidfd_open, a poll loop on {stderr, pidfd}, waitpid(WNOHANG) when the
 *      pidfd fires, and the envelope's OH_* variables in the environment
 * Step 3 is the engine's env-mode hook written directly against libc: the engine minus its own
 * user-space work (Command building, environment copying, trace and outcome JSON). */
static void op_ladder(int level) {
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    posix_spawn_file_actions_init(&fa);
    posix_spawnattr_init(&at);
    posix_spawn_file_actions_addchdir_np(&fa, g_cwd);
    sigset_t set;
    sigemptyset(&set);
    posix_spawnattr_setsigmask(&at, &set);
    sigaddset(&set, SIGPIPE);
    posix_spawnattr_setsigdefault(&at, &set);
    posix_spawnattr_setpgroup(&at, 0);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    int in = open("/dev/null", O_RDONLY | O_CLOEXEC);
    int out = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (in < 0 || out < 0) die("open /dev/null: %s", strerror(errno));
    posix_spawn_file_actions_adddup2(&fa, in, 0);
    posix_spawn_file_actions_adddup2(&fa, out, 1);
    int errp[2] = {-1, -1};
    if (level >= 2) {
        if (pipe2(errp, O_CLOEXEC) < 0) die("pipe2: %s", strerror(errno));
        posix_spawn_file_actions_adddup2(&fa, errp[1], 2);
    }
    pid_t pid;
    int rc = posix_spawn(&pid, "/bin/sh", &fa, &at, SH_TRUE, level >= 3 ? g_env_with_vars : environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    close(in);
    close(out);
    if (errp[1] >= 0) close(errp[1]);
    if (rc) {
        failure("ladder %d: posix_spawn: %s", level, strerror(rc));
        if (errp[0] >= 0) close(errp[0]);
        return;
    }
    char buf[4096];
    if (level == 2) {
        while (read(errp[0], buf, sizeof buf) > 0) {
        }
        close(errp[0]);
        reap("ladder 2", pid);
        return;
    }
    if (level == 3) {
        fcntl(errp[0], F_SETFL, fcntl(errp[0], F_GETFL) | O_NONBLOCK);
        int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
        int exited = 0, st = 0;
        while (!exited || errp[0] >= 0) {
            struct pollfd p[2];
            int n = 0;
            if (errp[0] >= 0) p[n++] = (struct pollfd){.fd = errp[0], .events = POLLIN};
            if (!exited && pidfd >= 0) p[n++] = (struct pollfd){.fd = pidfd, .events = POLLIN};
            /* Without pidfd (kernel < 5.3, or valgrind), the engine polls for the exit every 5 ms. */
            if (poll(p, (nfds_t)n, pidfd < 0 && !exited ? 5 : 10000) < 0 && errno != EINTR)
                die("poll: %s", strerror(errno));
            if (pidfd < 0 && !exited && waitpid(pid, &st, WNOHANG) == pid) exited = 1;
            for (int i = 0; i < n; i++) {
                if (!p[i].revents) continue;
                if (p[i].fd == errp[0]) {
                    ssize_t r;
                    while ((r = read(errp[0], buf, sizeof buf)) > 0) {
                    }
                    if (r == 0 || errno != EAGAIN) {
                        close(errp[0]);
                        errp[0] = -1;
                    }
                } else if (waitpid(pid, &st, WNOHANG) == pid) {
                    exited = 1;
                }
            }
        }
        if (pidfd >= 0) close(pidfd);
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) failure("ladder 3: child status %#x", st);
        return;
    }
    reap("ladder 1", pid);
}

/* The jsonIO floor: /bin/sh -c JSON_CMD with the envelope written to a stdin pipe and stdout read
 * to EOF from a pipe, in plain blocking C. */
static void op_json_floor(void) {
    int in[2], out[2];
    if (pipe2(in, O_CLOEXEC) < 0 || pipe2(out, O_CLOEXEC) < 0) die("pipe2: %s", strerror(errno));
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, in[0], 0);
    posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    pid_t pid;
    int rc = posix_spawn(&pid, "/bin/sh", &fa, NULL, SH_JSON, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(in[0]);
    close(out[1]);
    if (rc) {
        failure("json floor: posix_spawn: %s", strerror(rc));
        close(in[1]);
        close(out[0]);
        return;
    }
    size_t len = sizeof ENVELOPE - 1, done = 0;
    while (done < len) {
        ssize_t w = write(in[1], ENVELOPE + done, len - done);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0) {
            failure("json floor: write: %s", strerror(errno));
            break;
        }
        done += (size_t)w;
    }
    close(in[1]);
    char buf[256];
    size_t got = 0;
    ssize_t r;
    while ((r = read(out[0], buf + got, sizeof buf - 1 - got)) > 0) got += (size_t)r;
    close(out[0]);
    buf[got] = 0;
    if (reap("json floor", pid) == 0 && strcmp(buf, "{}\n") != 0) failure("json floor: output %s", buf);
}

/* ------------------------------------------------------------------------------------------ */
/* The persistent floor: a process kept by the bench itself, one envelope line written to its   */
/* stdin pipe and one answer line read from its stdout pipe, in plain blocking C.               */

typedef struct {
    pid_t pid;
    int in, out;
} Kept;

static Kept g_kcat, g_kpy;

static Kept kept_start(char *const argv[]) {
    int in[2], out[2];
    if (pipe2(in, O_CLOEXEC) < 0 || pipe2(out, O_CLOEXEC) < 0) die("pipe2: %s", strerror(errno));
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, in[0], 0);
    posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    Kept k = {0, in[1], out[0]};
    int rc = posix_spawnp(&k.pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(in[0]);
    close(out[1]);
    if (rc) die("cannot start %s: %s", argv[0], strerror(rc));
    return k;
}

static void kept_roundtrip(Kept *k, const char *row) {
    static char line[sizeof ENVELOPE + 1];
    if (!line[0]) {
        memcpy(line, ENVELOPE, sizeof ENVELOPE - 1);
        line[sizeof ENVELOPE - 1] = '\n';
    }
    if (write(k->in, line, sizeof ENVELOPE) != (ssize_t)sizeof ENVELOPE) die("%s: write: %s", row, strerror(errno));
    char buf[4096];
    size_t got = 0;
    while (got == 0 || buf[got - 1] != '\n') {
        ssize_t r = read(k->out, buf + got, sizeof buf - got);
        if (r <= 0) die("%s: the kept process stopped answering", row);
        got += (size_t)r;
    }
}

static void kept_stop(Kept *k) {
    if (!k->pid) return;
    close(k->in);
    char buf[4096];
    while (read(k->out, buf, sizeof buf) > 0) {
    }
    close(k->out);
    int st;
    waitpid(k->pid, &st, 0);
    k->pid = 0;
}

/* ------------------------------------------------------------------------------------------ */
/* The loopback HTTP server (a thread per connection, HTTP/1.1 keep-alive, always 200 `{}`)    */
/* and the raw kept-alive client that is the HTTP floor.                                      */

static int g_http_port;
static pthread_mutex_t g_http_mu = PTHREAD_MUTEX_INITIALIZER;
static char *g_engine_request; /* the first request the engine sent: headers + body */
static char *g_engine_body;
static size_t g_engine_body_len;
static const char HTTP_RESPONSE[] =
    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}";

/* Finds the end of the header block and Content-Length; -1 when incomplete, -2 when chunked. */
static long parse_head(const char *buf, size_t have, size_t *head_len) {
    const char *end = memmem(buf, have, "\r\n\r\n", 4);
    if (!end) return -1;
    *head_len = (size_t)(end - buf) + 4;
    long cl = 0;
    for (const char *p = buf; p < end; p++) {
        if (*p != '\n') continue;
        if (strncasecmp(p + 1, "content-length:", 15) == 0) cl = strtol(p + 16, NULL, 10);
        if (strncasecmp(p + 1, "transfer-encoding:", 18) == 0) return -2;
    }
    return cl;
}

static void *http_conn(void *arg) {
    int fd = (int)(intptr_t)arg;
    size_t cap = 1 << 16, have = 0;
    char *buf = malloc(cap);
    for (;;) {
        size_t head_len;
        long cl = parse_head(buf, have, &head_len);
        if (cl == -2) {
            fprintf(stderr, "error: bench HTTP server: chunked request bodies are not supported\n");
            break;
        }
        if (cl == -1 || have < head_len + (size_t)cl) {
            if (have == cap) break;
            ssize_t n = read(fd, buf + have, cap - have);
            if (n <= 0) break;
            have += (size_t)n;
            continue;
        }
        size_t total = head_len + (size_t)cl;
        pthread_mutex_lock(&g_http_mu);
        if (!g_engine_request && memmem(buf, head_len, "oh-hooks/", 9)) {
            g_engine_request = strndup(buf, total);
            g_engine_body = strndup(buf + head_len, (size_t)cl);
            g_engine_body_len = (size_t)cl;
        }
        pthread_mutex_unlock(&g_http_mu);
        if (send(fd, HTTP_RESPONSE, sizeof HTTP_RESPONSE - 1, MSG_NOSIGNAL) != (ssize_t)(sizeof HTTP_RESPONSE - 1))
            break;
        memmove(buf, buf + total, have - total);
        have -= total;
    }
    free(buf);
    close(fd);
    return NULL;
}

static void *http_accept(void *arg) {
    int lfd = (int)(intptr_t)arg;
    for (;;) {
        int c = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
        if (c < 0) {
            if (errno == EINTR || errno == ECONNABORTED) continue;
            return NULL;
        }
        int one = 1;
        setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        pthread_t t;
        if (pthread_create(&t, NULL, http_conn, (void *)(intptr_t)c) != 0) {
            close(c);
            continue;
        }
        pthread_detach(t);
    }
}

static void start_http_server(void) {
    int lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (lfd < 0) die("socket: %s", strerror(errno));
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    if (bind(lfd, (struct sockaddr *)&a, sizeof a) < 0 || listen(lfd, 64) < 0 ||
        getsockname(lfd, (struct sockaddr *)&a, &len) < 0)
        die("cannot listen on loopback: %s", strerror(errno));
    g_http_port = ntohs(a.sin_port);
    pthread_t t;
    if (pthread_create(&t, NULL, http_accept, (void *)(intptr_t)lfd) != 0) die("pthread_create failed");
    pthread_detach(t);
}

static int g_raw_fd = -1;
static char *g_raw_request;
static size_t g_raw_len;

/* The floor client: one TCP connection kept alive, TCP_NODELAY, the request in one write, the
 * response read up to its Content-Length. The body is exactly what the engine POSTed. */
static void open_raw_client(void) {
    g_raw_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)g_http_port),
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    if (g_raw_fd < 0 || connect(g_raw_fd, (struct sockaddr *)&a, sizeof a) < 0)
        die("raw client cannot connect: %s", strerror(errno));
    int one = 1;
    setsockopt(g_raw_fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (!g_engine_body) die("the HTTP hook never reached the bench server");
    size_t cap = g_engine_body_len + 256;
    g_raw_request = malloc(cap);
    int n = snprintf(g_raw_request, cap,
                     "POST /hook HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nUser-Agent: bench\r\n"
                     "Content-Type: application/json\r\nContent-Length: %zu\r\n\r\n",
                     g_http_port, g_engine_body_len);
    memcpy(g_raw_request + n, g_engine_body, g_engine_body_len);
    g_raw_len = (size_t)n + g_engine_body_len;
}

static void op_http_floor(void) {
    if (send(g_raw_fd, g_raw_request, g_raw_len, MSG_NOSIGNAL) != (ssize_t)g_raw_len)
        die("raw client: send: %s", strerror(errno));
    char buf[1024];
    size_t have = 0, head_len = 0;
    long cl;
    while ((cl = parse_head(buf, have, &head_len)) < 0 || have < head_len + (size_t)cl) {
        ssize_t n = read(g_raw_fd, buf + have, sizeof buf - have);
        if (n <= 0) die("raw client: connection lost");
        have += (size_t)n;
    }
    if (strncmp(buf, "HTTP/1.1 200", 12) != 0) failure("raw client: %.*s", (int)have, buf);
}

/* ------------------------------------------------------------------------------------------ */
/* Rows: one sample each.                                                                     */

static double s_nomatch(OhHooks *e) {
    double t0 = now_ns();
    for (int i = 0; i < NOMATCH_BATCH; i++) oh_hooks_string_free(oh_hooks_fire(e, ENVELOPE));
    return (now_ns() - t0) / NOMATCH_BATCH;
}

static double s_fire(const char *row, OhHooks *e, int runs, const char *each, Series *inner) {
    double t0 = now_ns();
    char *out = oh_hooks_fire(e, ENVELOPE);
    double t = now_ns() - t0;
    check_outcome(row, out, runs, each);
    if (inner && out) record(inner, trace_duration_ns(out));
    oh_hooks_string_free(out);
    return t;
}

static double s_http(void) {
    double t0 = now_ns();
    char *outs[HTTP_BATCH];
    for (int i = 0; i < HTTP_BATCH; i++) outs[i] = oh_hooks_fire(E_http, ENVELOPE);
    double t = (now_ns() - t0) / HTTP_BATCH;
    for (int i = 0; i < HTTP_BATCH; i++) {
        check_outcome("http hook", outs[i], 1, "\"status\":200");
        oh_hooks_string_free(outs[i]);
    }
    return t;
}

/* PERS_BATCH fires of one persistent hook; time per fire. */
static double s_persistent(OhHooks *e, const char *row) {
    char *outs[PERS_BATCH];
    double t0 = now_ns();
    for (int i = 0; i < PERS_BATCH; i++) outs[i] = oh_hooks_fire(e, ENVELOPE);
    double t = (now_ns() - t0) / PERS_BATCH;
    for (int i = 0; i < PERS_BATCH; i++) {
        check_outcome(row, outs[i], 1, "\"persistent\":true");
        oh_hooks_string_free(outs[i]);
    }
    return t;
}

static double s_http_floor(void) {
    double t0 = now_ns();
    for (int i = 0; i < HTTP_BATCH; i++) op_http_floor();
    return (now_ns() - t0) / HTTP_BATCH;
}

/* ---- host callbacks: a callback hook answering at once, and the asynchronous round trip */

#define CB_BATCH 1000   /* fires per sample of the callback row */
#define ASYNC_BATCH 200 /* round trips per sample of the async row */

/* The host function of E_cb: answers "no decision" before returning, on the firing thread. */
static void bench_callback(void *user, const char *request, OhHooksCall *call) {
    (void)user;
    (void)request;
    oh_hooks_respond(call, "{}");
}

/* The host function of E_cbr: answers with a reason and context (no decision), at once. */
static void bench_callback_reason(void *user, const char *request, OhHooksCall *call) {
    (void)user;
    (void)request;
    oh_hooks_respond(call, "{\"reason\":\"checked by the bench\",\"additionalContext\":\"bench context\"}");
}

static double s_callback(OhHooks *e) {
    double t0 = now_ns();
    for (int i = 0; i < CB_BATCH; i++) oh_hooks_string_free(oh_hooks_fire(e, ENVELOPE));
    return (now_ns() - t0) / CB_BATCH;
}

/* ---- the CLI: `oh-hooks fire` from a shell on a no-match event, beside /bin/true spawned the
 * same way (stdout on /dev/null, the envelope as an argument). */
static char *g_cli_argv[8];
static char *TRUE_ARGV[] = {"/bin/true", "fire", (char *)ENVELOPE, NULL};
static char g_cli_dir[PATH_MAX + 64];

static void op_spawn_devnull(char **argv) {
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    pid_t pid;
    int rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc) {
        failure("posix_spawn %s: %s", argv[0], strerror(rc));
        return;
    }
    reap(argv[0], pid);
}

/* BENCH_CLI names the oh-hooks binary (run.sh passes target/release/oh-hooks). It runs in a
 * directory of its own whose .oh/config.yaml has a hook on postToolUse only, trusted, so the
 * fire reads its layers (as a harness calling it does) and runs nothing. */
static int setup_cli(void) {
    const char *cli = getenv("BENCH_CLI");
    if (!cli || !*cli) return 0;
    snprintf(g_cli_dir, sizeof g_cli_dir, "%s/target/bench/cli-project", g_cwd);
    char path[PATH_MAX + 128];
    snprintf(path, sizeof path, "%s/target/bench", g_cwd);
    mkdir(path, 0755);
    mkdir(g_cli_dir, 0755);
    snprintf(path, sizeof path, "%s/.oh", g_cli_dir);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/.oh/config.yaml", g_cli_dir);
    FILE *f = fopen(path, "w");
    if (!f) die("cannot write %s: %s", path, strerror(errno));
    fputs("hooks:\n  postToolUse:\n    - command: \"true\"\n", f);
    fclose(f);
    int i = 0;
    g_cli_argv[i++] = (char *)cli;
    g_cli_argv[i++] = "fire";
    g_cli_argv[i++] = "--cwd";
    g_cli_argv[i++] = g_cli_dir;
    g_cli_argv[i++] = "--trusted";
    g_cli_argv[i++] = (char *)ENVELOPE;
    g_cli_argv[i] = NULL;
    op_spawn_devnull(g_cli_argv);
    if (g_failures) die("`%s fire` does not answer a no-match fire with exit 0", cli);
    return 1;
}
static int g_have_cli;

static pthread_mutex_t g_async_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_async_cv = PTHREAD_COND_INITIALIZER;
static int g_async_done;

static void bench_done(void *user, char *outcome) {
    (void)user;
    if (!outcome || strcmp(outcome, "{\"allowed\":true,\"hooks\":[]}") != 0) failure("async fire: unexpected outcome %s", outcome);
    oh_hooks_string_free(outcome);
    /* Signalled after the unlock: signalled under it, the woken thread would find the mutex
     * still held and sleep once more (two futex calls and two context switches more a round
     * trip: docs/performance.md "Round 6"). Safe because g_async_cv is static: a waiter that
     * freed its condition variable once woken would need the signal under the lock. */
    pthread_mutex_lock(&g_async_mu);
    g_async_done = 1;
    pthread_mutex_unlock(&g_async_mu);
    pthread_cond_signal(&g_async_cv);
}

/* One oh_hooks_fire_async on the no-hook engine, waited for: submit, an engine thread fires,
 * `done` wakes this thread. */
static void op_async(void) {
    g_async_done = 0;
    oh_hooks_fire_async(E_none, ENVELOPE, bench_done, NULL);
    pthread_mutex_lock(&g_async_mu);
    while (!g_async_done) pthread_cond_wait(&g_async_cv, &g_async_mu);
    pthread_mutex_unlock(&g_async_mu);
}

static double s_async(void) {
    double t0 = now_ns();
    for (int i = 0; i < ASYNC_BATCH; i++) op_async();
    return (now_ns() - t0) / ASYNC_BATCH;
}

/* The async round trip's floors: the same two hand-offs (there and back) between two plain
 * pthreads, no engine. The partner thread sleeps between round trips, as an engine thread past
 * its spin does: this is what waking a sleeping thread costs on this machine, and what the
 * engine's round trip cannot beat. W: a condition variable each way, signalled after the unlock
 * as the bench's own `done` is; E: an eventfd each way, the partner blocked in read(2). */
static pthread_mutex_t g_fl_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_fl_go = PTHREAD_COND_INITIALIZER, g_fl_back = PTHREAD_COND_INITIALIZER;
static int g_fl_turn; /* 0 idle, 1 the partner's turn, 2 answered */
static int g_fl_efd[2] = {-1, -1};

static void *floor_cv_partner(void *arg) {
    (void)arg;
    for (;;) {
        pthread_mutex_lock(&g_fl_mu);
        while (g_fl_turn != 1) pthread_cond_wait(&g_fl_go, &g_fl_mu);
        g_fl_turn = 2;
        pthread_mutex_unlock(&g_fl_mu);
        pthread_cond_signal(&g_fl_back);
    }
    return NULL;
}

static void *floor_efd_partner(void *arg) {
    (void)arg;
    uint64_t v;
    for (;;) {
        if (read(g_fl_efd[0], &v, sizeof v) != sizeof v) continue;
        v = 1;
        if (write(g_fl_efd[1], &v, sizeof v) != sizeof v) failure("eventfd write: %s", strerror(errno));
    }
    return NULL;
}

static int g_sp_efd;
static void *floor_spin_partner(void *arg);

static void setup_async_floors(void) {
    pthread_t t;
    g_fl_efd[0] = eventfd(0, EFD_CLOEXEC);
    g_fl_efd[1] = eventfd(0, EFD_CLOEXEC);
    g_sp_efd = eventfd(0, EFD_CLOEXEC);
    if (g_fl_efd[0] < 0 || g_fl_efd[1] < 0 || g_sp_efd < 0) die("eventfd: %s", strerror(errno));
    if (pthread_create(&t, NULL, floor_cv_partner, NULL) || pthread_create(&t, NULL, floor_efd_partner, NULL) ||
        pthread_create(&t, NULL, floor_spin_partner, NULL))
        die("cannot start the async floors' threads");
}

static void op_floor_cv(void) {
    pthread_mutex_lock(&g_fl_mu);
    g_fl_turn = 1;
    pthread_mutex_unlock(&g_fl_mu);
    pthread_cond_signal(&g_fl_go);
    pthread_mutex_lock(&g_fl_mu);
    while (g_fl_turn != 2) pthread_cond_wait(&g_fl_back, &g_fl_mu);
    g_fl_turn = 0;
    pthread_mutex_unlock(&g_fl_mu);
}

static void op_floor_efd(void) {
    uint64_t v = 1;
    if (write(g_fl_efd[0], &v, sizeof v) != sizeof v) failure("eventfd write: %s", strerror(errno));
    if (read(g_fl_efd[1], &v, sizeof v) != sizeof v) failure("eventfd read: %s", strerror(errno));
}

/* S: the engine's own arrangement without the engine: the partner, once done, looks for the
 * next request for 50 µs (spinning, then yielding the core, as the async pool's threads do,
 * src/thread_pool.rs) before it sleeps on an eventfd; the answer comes back on a condition
 * variable, as the bench's `done` does. A round trip then costs one wake-up (this thread's). */
static atomic_int g_sp_req, g_sp_sleeping;

static void *floor_spin_partner(void *arg) {
    (void)arg;
    for (;;) {
        double t0 = now_ns();
        int looks = 0, got = 0;
        while (!(got = atomic_exchange(&g_sp_req, 0))) {
            if (++looks < 64) continue;
            if (now_ns() - t0 > 50000) break;
            sched_yield();
        }
        if (!got) {
            atomic_store(&g_sp_sleeping, 1);
            if (!(got = atomic_exchange(&g_sp_req, 0))) {
                uint64_t v;
                if (read(g_sp_efd, &v, sizeof v) != sizeof v) continue;
                got = atomic_exchange(&g_sp_req, 0);
            }
            atomic_store(&g_sp_sleeping, 0);
            if (!got) continue; /* a wake-up for a request already taken */
        }
        pthread_mutex_lock(&g_fl_mu);
        g_fl_turn = 2;
        pthread_mutex_unlock(&g_fl_mu);
        pthread_cond_signal(&g_fl_back);
    }
    return NULL;
}

static void op_floor_spin(void) {
    pthread_mutex_lock(&g_fl_mu);
    g_fl_turn = 3; /* not the condvar partner's turn */
    pthread_mutex_unlock(&g_fl_mu);
    atomic_store(&g_sp_req, 1);
    if (atomic_load(&g_sp_sleeping)) {
        uint64_t v = 1;
        if (write(g_sp_efd, &v, sizeof v) != sizeof v) failure("eventfd write: %s", strerror(errno));
    }
    pthread_mutex_lock(&g_fl_mu);
    while (g_fl_turn != 2) pthread_cond_wait(&g_fl_back, &g_fl_mu);
    g_fl_turn = 0;
    pthread_mutex_unlock(&g_fl_mu);
}

static double s_async_floor(int kind) {
    double t0 = now_ns();
    for (int i = 0; i < ASYNC_BATCH; i++) kind == 2 ? op_floor_spin() : kind ? op_floor_efd() : op_floor_cv();
    return (now_ns() - t0) / ASYNC_BATCH;
}

/* ---- threads: a pool of THR_MAX workers; a sample wakes them, N of them work. */

enum { K_NOMATCH, K_ENV1, K_FLOOR, K_FLOOR_B, K_PERS };
static pthread_barrier_t g_start, g_end;
static int g_thr_kind, g_thr_n, g_thr_quit;

static void *worker(void *arg) {
    int id = (int)(intptr_t)arg;
    for (;;) {
        pthread_barrier_wait(&g_start);
        if (g_thr_quit) return NULL;
        if (id < g_thr_n) {
            int kind = g_thr_kind;
            if (kind == K_NOMATCH) {
                for (int i = 0; i < THR_NOMATCH_TOTAL / g_thr_n; i++) oh_hooks_string_free(oh_hooks_fire(E_20, ENVELOPE));
            } else if (kind == K_PERS) {
                for (int i = 0; i < THR_PERS_TOTAL / g_thr_n; i++) {
                    char *out = oh_hooks_fire(E_ppy4, ENVELOPE);
                    check_outcome("threads, persistent Python hook", out, 1, "\"persistent\":true");
                    oh_hooks_string_free(out);
                }
            } else {
                for (int i = 0; i < THR_SPAWN_TOTAL / g_thr_n; i++) {
                    if (kind == K_ENV1) {
                        char *out = oh_hooks_fire(E_env1, ENVELOPE);
                        check_outcome("threads, true hook", out, 1, "\"exitCode\":0");
                        oh_hooks_string_free(out);
                    } else {
                        op_spawn_plain(kind == K_FLOOR ? SH_TRUE : BIN_TRUE);
                    }
                }
            }
        }
        pthread_barrier_wait(&g_end);
    }
}

static pthread_t g_workers[THR_MAX];

static void start_pool(void) {
    pthread_barrier_init(&g_start, NULL, THR_MAX + 1);
    pthread_barrier_init(&g_end, NULL, THR_MAX + 1);
    for (int i = 0; i < THR_MAX; i++)
        if (pthread_create(&g_workers[i], NULL, worker, (void *)(intptr_t)i) != 0) die("pthread_create failed");
}

static void stop_pool(void) {
    g_thr_quit = 1;
    pthread_barrier_wait(&g_start);
    for (int i = 0; i < THR_MAX; i++) pthread_join(g_workers[i], NULL);
}

static double s_threads(int kind, int n) {
    g_thr_kind = kind;
    g_thr_n = n;
    double t0 = now_ns();
    pthread_barrier_wait(&g_start);
    pthread_barrier_wait(&g_end);
    double total = kind == K_NOMATCH ? THR_NOMATCH_TOTAL : kind == K_PERS ? THR_PERS_TOTAL : THR_SPAWN_TOTAL;
    return (now_ns() - t0) / total;
}

/* ---- the row table */

typedef struct {
    const char *id;
    int kind;
    int arg;
} Row;

enum {
    R_NOMATCH_NONE, R_NOMATCH_20, R_FLOOR_SH, R_FLOOR_TRUE, R_LADDER, R_ENV1, R_ENV1SH, R_JSON_FLOOR, R_JSON1,
    R_ENV5, R_HTTP_FLOOR, R_HTTP, R_THREADS, R_KEPT, R_PERS, R_SPAWNED, R_CALLBACK, R_ASYNC, R_ASYNC_FLOOR, R_CLI
};

static Row ROWS[] = {
    {"nomatch.none", R_NOMATCH_NONE, 0},
    {"nomatch.20", R_NOMATCH_20, 0},
    {"floor.sh", R_FLOOR_SH, 0},
    {"floor.true", R_FLOOR_TRUE, 0},
    {"ladder.1", R_LADDER, 1},
    {"ladder.2", R_LADDER, 2},
    {"ladder.3", R_LADDER, 3},
    {"env1", R_ENV1, 0},
    {"env1sh", R_ENV1SH, 0},
    {"floor.json", R_JSON_FLOOR, 0},
    {"json1", R_JSON1, 0},
    {"env5", R_ENV5, 0},
    {"floor.http", R_HTTP_FLOOR, 0},
    {"http1", R_HTTP, 0},
    {"cb.now", R_CALLBACK, 0},
    {"cb.match", R_CALLBACK, 1},
    {"cb.reason", R_CALLBACK, 2},
    {"floor.cli", R_CLI, 0},
    {"cli.fire", R_CLI, 1},
    {"async.rt", R_ASYNC, 0},
    {"floor.async.cv", R_ASYNC_FLOOR, 0},
    {"floor.async.efd", R_ASYNC_FLOOR, 1},
    {"floor.async.spin", R_ASYNC_FLOOR, 2},
    {"thr.nomatch.1", R_THREADS, K_NOMATCH * 100 + 1},
    {"thr.nomatch.2", R_THREADS, K_NOMATCH * 100 + 2},
    {"thr.nomatch.4", R_THREADS, K_NOMATCH * 100 + 4},
    {"thr.nomatch.8", R_THREADS, K_NOMATCH * 100 + 8},
    {"thr.env1.1", R_THREADS, K_ENV1 * 100 + 1},
    {"thr.env1.2", R_THREADS, K_ENV1 * 100 + 2},
    {"thr.env1.4", R_THREADS, K_ENV1 * 100 + 4},
    {"thr.env1.8", R_THREADS, K_ENV1 * 100 + 8},
    {"thr.floor.1", R_THREADS, K_FLOOR * 100 + 1},
    {"thr.floor.2", R_THREADS, K_FLOOR * 100 + 2},
    {"thr.floor.4", R_THREADS, K_FLOOR * 100 + 4},
    {"thr.floor.8", R_THREADS, K_FLOOR * 100 + 8},
    {"thr.floorB.1", R_THREADS, K_FLOOR_B * 100 + 1},
    {"thr.floorB.2", R_THREADS, K_FLOOR_B * 100 + 2},
    {"thr.floorB.4", R_THREADS, K_FLOOR_B * 100 + 4},
    {"thr.floorB.8", R_THREADS, K_FLOOR_B * 100 + 8},
    {"floor.pipe", R_KEPT, 0},
    {"pers.cat", R_PERS, 0},
    {"floor.pers.py", R_KEPT, 1},
    {"pers.py", R_PERS, 1},
    {"spawn.py", R_SPAWNED, 0},
    {"pers.node", R_PERS, 2},
    {"spawn.node", R_SPAWNED, 1},
    {"thr.pers.1", R_THREADS, K_PERS * 100 + 1},
    {"thr.pers.2", R_THREADS, K_PERS * 100 + 2},
    {"thr.pers.4", R_THREADS, K_PERS * 100 + 4},
};
#define NROWS ((int)(sizeof ROWS / sizeof ROWS[0]))

static Series *g_env1_inner;

static double sample(const Row *r) {
    double t0;
    switch (r->kind) {
    case R_NOMATCH_NONE: return s_nomatch(E_none);
    case R_NOMATCH_20: return s_nomatch(E_20);
    case R_FLOOR_SH:
        t0 = now_ns();
        op_spawn_plain(SH_TRUE);
        return now_ns() - t0;
    case R_FLOOR_TRUE:
        t0 = now_ns();
        op_spawn_plain(BIN_TRUE);
        return now_ns() - t0;
    case R_LADDER:
        t0 = now_ns();
        op_ladder(r->arg);
        return now_ns() - t0;
    case R_ENV1: return s_fire("env hook", E_env1, 1, "\"exitCode\":0", g_env1_inner);
    case R_ENV1SH: return s_fire("env hook via sh", E_env1sh, 1, "\"exitCode\":0", NULL);
    case R_JSON_FLOOR:
        t0 = now_ns();
        op_json_floor();
        return now_ns() - t0;
    case R_JSON1: return s_fire("jsonIO hook", E_json1, 1, "\"exitCode\":0", NULL);
    case R_ENV5: return s_fire("5 env hooks", E_env5, 5, "\"exitCode\":0", NULL);
    case R_HTTP_FLOOR: return s_http_floor();
    case R_HTTP: return s_http();
    case R_THREADS: return s_threads(r->arg / 100, r->arg % 100);
    case R_CALLBACK: return s_callback(r->arg == 0 ? E_cb : r->arg == 1 ? E_cbm : E_cbr);
    case R_CLI:
        t0 = now_ns();
        if (g_have_cli) op_spawn_devnull(r->arg ? g_cli_argv : TRUE_ARGV);
        return g_have_cli ? now_ns() - t0 : NAN;
    case R_ASYNC: return s_async();
    case R_ASYNC_FLOOR: return s_async_floor(r->arg);
    case R_KEPT: {
        Kept *k = r->arg ? &g_kpy : &g_kcat;
        t0 = now_ns();
        for (int i = 0; i < PERS_BATCH; i++) kept_roundtrip(k, r->id);
        return (now_ns() - t0) / PERS_BATCH;
    }
    case R_PERS: return s_persistent(r->arg == 0 ? E_pcat : r->arg == 1 ? E_ppy : E_pnode, r->id);
    case R_SPAWNED: return s_fire(r->id, r->arg ? E_snode : E_spy, 1, "\"exitCode\":0", NULL);
    }
    return NAN;
}

static uint64_t g_rng = 0x9e3779b97f4a7c15ULL;
static uint64_t rnd(void) {
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 7;
    g_rng ^= g_rng << 17;
    return g_rng;
}

/* The persistent engines, each fired once (so their workers are running), and the kept floors. */
static void setup_persistent(void) {
    char cfg[4 * PATH_MAX];
    E_pcat = new_engine("{\"preToolUse\":[{\"command\":\"cat\",\"persistent\":true}]}");
    snprintf(cfg, sizeof cfg, "{\"preToolUse\":[{\"command\":\"python3 %s/policy.py\",\"persistent\":true}]}",
             g_bench_dir);
    E_ppy = new_engine(cfg);
    snprintf(cfg, sizeof cfg,
             "{\"preToolUse\":[{\"command\":\"python3 %s/policy.py\",\"persistent\":true,\"workers\":4}]}",
             g_bench_dir);
    E_ppy4 = new_engine(cfg);
    snprintf(cfg, sizeof cfg, "{\"preToolUse\":[{\"command\":\"python3 %s/policy.py\",\"jsonIO\":true}]}", g_bench_dir);
    E_spy = new_engine(cfg);
    snprintf(cfg, sizeof cfg, "{\"preToolUse\":[{\"command\":\"node %s/policy.js\",\"persistent\":true}]}",
             g_bench_dir);
    E_pnode = new_engine(cfg);
    snprintf(cfg, sizeof cfg, "{\"preToolUse\":[{\"command\":\"node %s/policy.js\",\"jsonIO\":true}]}", g_bench_dir);
    E_snode = new_engine(cfg);
    struct {
        OhHooks *e;
        const char *row, *each;
    } first[] = {{E_pcat, "persistent cat", "\"persistent\":true"},
                 {E_ppy, "persistent Python", "\"persistent\":true"},
                 {E_ppy4, "persistent Python, 4 workers", "\"persistent\":true"},
                 {E_spy, "spawned Python", "\"exitCode\":0"},
                 {E_pnode, "persistent Node", "\"persistent\":true"},
                 {E_snode, "spawned Node", "\"exitCode\":0"}};
    for (size_t i = 0; i < sizeof first / sizeof first[0]; i++) {
        char *out = oh_hooks_fire(first[i].e, ENVELOPE);
        check_outcome(first[i].row, out, 1, first[i].each);
        oh_hooks_string_free(out);
    }
    if (g_failures) die("the persistent-hook engines do not work (python3 and node are needed)");
    static char *CAT[] = {"cat", NULL};
    static char py_path[PATH_MAX + 16];
    snprintf(py_path, sizeof py_path, "%s/policy.py", g_bench_dir);
    char *PY[] = {"python3", py_path, NULL};
    g_kcat = kept_start(CAT);
    g_kpy = kept_start(PY);
    kept_roundtrip(&g_kcat, "floor.pipe");
    kept_roundtrip(&g_kpy, "floor.pers.py");
}

static void setup_engines(int with_http) {
    E_none = new_engine("{\"postToolUse\":[{\"command\":\"true\"}]}");
    char cfg[4096];
    size_t n = (size_t)snprintf(cfg, sizeof cfg, "{\"preToolUse\":[");
    for (int i = 0; i < 20; i++)
        n += (size_t)snprintf(cfg + n, sizeof cfg - n, "%s{\"command\":\"exit 1\",\"match\":\"%s\"}", i ? "," : "",
                              NOMATCH_PATTERNS[i]);
    snprintf(cfg + n, sizeof cfg - n, "]}");
    E_20 = new_engine(cfg);
    E_env1 = new_engine("{\"preToolUse\":[{\"command\":\"true\"}]}");
    /* `true;` has shell syntax, so the engine must run it as /bin/sh -c 'true;', like floor A. */
    E_env1sh = new_engine("{\"preToolUse\":[{\"command\":\"true;\"}]}");
    E_json1 = new_engine("{\"preToolUse\":[{\"command\":\"" JSON_CMD "\",\"jsonIO\":true}]}");
    E_env5 = new_engine("{\"preToolUse\":[{\"command\":\"true\"},{\"command\":\"true\"},{\"command\":\"true\"},"
                        "{\"command\":\"true\"},{\"command\":\"true\"}]}");
    if (with_http) {
        start_http_server();
        snprintf(cfg, sizeof cfg, "{\"preToolUse\":[{\"http\":\"http://127.0.0.1:%d/hook\"}]}", g_http_port);
        E_http = new_engine(cfg);
        char *out = oh_hooks_fire(E_http, ENVELOPE);
        check_outcome("http hook", out, 1, "\"status\":200");
        oh_hooks_string_free(out);
        if (g_failures) die("the HTTP hook does not work against the bench server");
        open_raw_client();
    }
    E_cb = new_engine("{\"preToolUse\":[{\"callback\":\"canUseTool\"}]}");
    char *cb_err = NULL;
    if (oh_hooks_register(E_cb, "canUseTool", bench_callback, NULL, NULL, &cb_err) != 0)
        die("oh_hooks_register failed: %s", cb_err ? cb_err : "(no error JSON)");
    E_cbm = new_engine("{\"preToolUse\":[{\"callback\":\"canUseTool\",\"match\":\"Bash\"}]}");
    if (oh_hooks_register(E_cbm, "canUseTool", bench_callback, NULL, NULL, &cb_err) != 0)
        die("oh_hooks_register failed: %s", cb_err ? cb_err : "(no error JSON)");
    E_cbr = new_engine("{\"preToolUse\":[{\"callback\":\"canUseTool\",\"match\":\"Bash\"}]}");
    if (oh_hooks_register(E_cbr, "canUseTool", bench_callback_reason, NULL, NULL, &cb_err) != 0)
        die("oh_hooks_register failed: %s", cb_err ? cb_err : "(no error JSON)");
    char *out = NULL;
    OhHooks *cbs[] = {E_cb, E_cbm, E_cbr};
    for (int i = 0; i < 3; i++) {
        out = oh_hooks_fire(cbs[i], ENVELOPE);
        if (!out || !strstr(out, "\"type\":\"callback\"") || strncmp(out, "{\"allowed\":true,", 16) != 0 ||
            !strstr(out, i == 2 ? "\"reason\":\"checked by the bench\"" : "\"result\":\"none\""))
            die("the callback hook does not work: %s", out ? out : "(NULL)");
        oh_hooks_string_free(out);
    }
    op_async();
    if (g_failures) die("the asynchronous fire does not work");
    out = oh_hooks_fire(E_none, ENVELOPE);
    check_outcome("no hook for the event", out, 0, NULL);
    oh_hooks_string_free(out);
    out = oh_hooks_fire(E_20, ENVELOPE);
    check_outcome("20 hooks none match", out, 0, NULL);
    oh_hooks_string_free(out);
    if (g_failures) die("the no-match engines do not behave as expected");
}

static void free_engines(void) {
    OhHooks **all[] = {&E_none, &E_20, &E_env1, &E_env1sh, &E_json1, &E_env5, &E_http,
                       &E_pcat, &E_ppy, &E_spy, &E_pnode, &E_snode, &E_ppy4, &E_cb, &E_cbm, &E_cbr};
    kept_stop(&g_kcat);
    kept_stop(&g_kpy);
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        oh_hooks_free(*all[i]);
        *all[i] = NULL;
    }
}

/* BENCH_ONLY="prefix1 prefix2 ..." restricts a run to the rows whose id starts with one of them
 * (for investigating one row; the table then reports the others as missing). */
static const char *g_only;

static int row_selected(const char *id) {
    const char *p = g_only;
    while (*p) {
        while (*p == ' ' || *p == ',') p++;
        size_t l = strcspn(p, " ,");
        if (l && strncmp(id, p, l) == 0) return 1;
        p += l;
    }
    return 0;
}

static int cmd_run(const char *out_path, int rounds) {
    g_only = getenv("BENCH_ONLY");
    build_env_with_vars();
    setup_engines(1);
    setup_persistent();
    g_have_cli = setup_cli();
    setup_async_floors();
    start_pool();
    g_env1_inner = series("env1.inner");
    Series *ser[NROWS], *cpu_ser[NROWS];
    for (int i = 0; i < NROWS; i++) {
        ser[i] = series(ROWS[i].id);
        /* One operation per sample, on this thread: its CPU time (user + system of the firing
         * thread, CLOCK_THREAD_CPUTIME_ID) is the parent's own work, which waiting for the child
         * or for the CPU does not inflate. */
        int single = ROWS[i].kind != R_NOMATCH_NONE && ROWS[i].kind != R_NOMATCH_20 && ROWS[i].kind != R_THREADS &&
                     ROWS[i].kind != R_HTTP && ROWS[i].kind != R_HTTP_FLOOR && ROWS[i].kind != R_KEPT &&
                     ROWS[i].kind != R_PERS && ROWS[i].kind != R_SPAWNED && ROWS[i].kind != R_CALLBACK &&
                     ROWS[i].kind != R_ASYNC;
        char id[64];
        snprintf(id, sizeof id, "%s.cpu", ROWS[i].id);
        cpu_ser[i] = single ? series(id) : NULL;
    }
    int order[NROWS];
    for (int i = 0; i < NROWS; i++) order[i] = i;
    const int warmup = 2;
    double t_start = now_ns();
    for (int round = 0; round < warmup + rounds; round++) {
        for (int i = NROWS - 1; i > 0; i--) {
            int j = (int)(rnd() % (uint64_t)(i + 1));
            int t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
        for (int k = 0; k < NROWS; k++) {
            const Row *r = &ROWS[order[k]];
            if (g_only && !row_selected(r->id)) continue;
            double c0 = thread_cpu_ns();
            double v = sample(r);
            double cpu = thread_cpu_ns() - c0;
            if (round >= warmup) {
                record(ser[order[k]], v);
                if (cpu_ser[order[k]]) record(cpu_ser[order[k]], cpu);
            }
        }
        if (round == warmup - 1) g_env1_inner->n = 0; /* drop the warm-up's inner samples */
        if (round >= warmup && (round - warmup + 1) % 10 == 0) {
            fprintf(stderr, "\r  C bench: round %d/%d", round - warmup + 1, rounds);
            fflush(stderr);
        }
    }
    fprintf(stderr, "\r  C bench: %d rounds in %.1f s\n", rounds, (now_ns() - t_start) / 1e9);
    stop_pool();
    char meta[2048];
    pthread_mutex_lock(&g_http_mu);
    /* The engine's request head, for docs/performance.md (bodies are compared, not heads). */
    char head[1024] = "";
    if (g_engine_request) {
        const char *e = strstr(g_engine_request, "\r\n\r\n");
        size_t hl = e ? (size_t)(e - g_engine_request) : 0;
        size_t j = 0;
        for (size_t i = 0; i < hl && j < sizeof head - 3; i++) {
            if (g_engine_request[i] == '\r') continue;
            if (g_engine_request[i] == '\n') {
                head[j++] = ' ';
                head[j++] = '|';
                head[j++] = ' ';
            } else
                head[j++] = g_engine_request[i];
        }
        head[j] = 0;
    }
    pthread_mutex_unlock(&g_http_mu);
    snprintf(meta, sizeof meta, "#meta rounds %d\n#meta http_engine_request %s\n#meta http_body_bytes %zu\n", rounds,
             head, g_engine_body_len);
    write_series(out_path, meta);
    free_engines();
    if (g_failures) {
        fprintf(stderr, "error: %d failure(s) during the C bench (see above)\n", g_failures);
        return 1;
    }
    return 0;
}

static int cmd_cref(const char *out_path, int samples) {
    setup_engines(0);
    Series *s = series("bind.c");
    for (int i = 0; i < 3; i++) s_nomatch(E_none);
    for (int i = 0; i < samples; i++) record(s, s_nomatch(E_none));
    write_series(out_path, NULL);
    free_engines();
    return g_failures ? 1 : 0;
}

/* ------------------------------------------------------------------------------------------ */
/* profile: one row's operation N times, untimed.                                             */

static int cmd_profile(const char *what, int n) {
    build_env_with_vars();
    int http = strcmp(what, "http") == 0 || strcmp(what, "floor-http") == 0;
    setup_engines(http);
    if (!strncmp(what, "pers", 4) || !strcmp(what, "floor-pipe")) setup_persistent();
    if (!strncmp(what, "threads", 7)) { /* threadsN: N threads, n samples of the no-match thread row */
        int t = atoi(what + 7);
        if (t != 1 && t != 2 && t != 4 && t != 8) die("threadsN: N is 1, 2, 4 or 8");
        start_pool();
        for (int i = 0; i < n; i++) s_threads(K_NOMATCH, t);
        stop_pool();
        free_engines();
        return g_failures ? 1 : 0;
    }
    for (int i = 0; i < n; i++) {
        if (!strcmp(what, "nomatch0")) oh_hooks_string_free(oh_hooks_fire(E_none, ENVELOPE));
        else if (!strcmp(what, "nomatch20")) oh_hooks_string_free(oh_hooks_fire(E_20, ENVELOPE));
        else if (!strcmp(what, "env1")) s_fire("env hook", E_env1, 1, "\"exitCode\":0", NULL);
        else if (!strcmp(what, "env1sh")) s_fire("env hook via sh", E_env1sh, 1, "\"exitCode\":0", NULL);
        else if (!strcmp(what, "env5")) s_fire("5 env hooks", E_env5, 5, "\"exitCode\":0", NULL);
        else if (!strcmp(what, "json1")) s_fire("jsonIO hook", E_json1, 1, "\"exitCode\":0", NULL);
        else if (!strcmp(what, "http")) s_fire("http hook", E_http, 1, "\"status\":200", NULL);
        else if (!strcmp(what, "callback")) oh_hooks_string_free(oh_hooks_fire(E_cb, ENVELOPE));
        else if (!strcmp(what, "async")) op_async();
        else if (!strcmp(what, "floor-sh")) op_spawn_plain(SH_TRUE);
        else if (!strcmp(what, "floor-true")) op_spawn_plain(BIN_TRUE);
        else if (!strcmp(what, "floor-json")) op_json_floor();
        else if (!strcmp(what, "floor-http")) op_http_floor();
        else if (!strcmp(what, "pers-cat")) s_persistent(E_pcat, "persistent cat");
        else if (!strcmp(what, "pers-py")) s_persistent(E_ppy, "persistent Python");
        else if (!strcmp(what, "floor-pipe")) kept_roundtrip(&g_kcat, "floor.pipe");
        else if (!strncmp(what, "ladder", 6) && what[6] >= '1' && what[6] <= '3' && !what[7]) op_ladder(what[6] - '0');
        else die("unknown profile row `%s`", what);
    }
    free_engines();
    return g_failures ? 1 : 0;
}

/* ------------------------------------------------------------------------------------------ */
/* report                                                                                      */

typedef struct {
    int n;
    double med, p95;
} Stat;

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static Stat stat_of(const char *id) {
    Stat st = {0, NAN, NAN};
    for (int i = 0; i < g_nseries; i++) {
        if (strcmp(g_series[i].id, id) != 0) continue;
        Series *s = &g_series[i];
        int n = 0;
        for (int j = 0; j < s->n; j++)
            if (!isnan(s->v[j])) s->v[n++] = s->v[j];
        if (n == 0) return st;
        qsort(s->v, (size_t)n, sizeof(double), cmp_double);
        st.n = n;
        st.med = n % 2 ? s->v[n / 2] : (s->v[n / 2 - 1] + s->v[n / 2]) / 2;
        int k = (int)ceil(0.95 * n) - 1;
        st.p95 = s->v[k < 0 ? 0 : k];
    }
    return st;
}

/* Formats ns as a time with a unit, 4 significant digits or so. */
static const char *fmt_t(char *buf, double ns) {
    if (isnan(ns)) return strcpy(buf, "—");
    if (ns < 1e4) sprintf(buf, "%.3f µs", ns / 1e3);
    else if (ns < 1e5) sprintf(buf, "%.1f µs", ns / 1e3);
    else sprintf(buf, "%.0f µs", ns / 1e3);
    return buf;
}

static const char *fmt_ratio(char *buf, double r) {
    if (isnan(r)) return strcpy(buf, "—");
    sprintf(buf, "%.2f×", r);
    return buf;
}

static int g_missing;
static int g_cpu_col; /* print the CPU-time column (section [2]) */

/* One table line: label, median, p95, floor label, ratio, target text, verdict. */
static void line(const char *label, const char *id, const char *floor_label, const char *floor_id, double target_ratio,
                 double target_abs_ns, double divide) {
    Stat s = stat_of(id);
    char a[32], b[32], c[32], t[32] = "", v[16] = "";
    if (s.n == 0) {
        printf("  %-46s  (no samples: this row did not run)\n", label);
        g_missing++;
        return;
    }
    double med = s.med / divide, p95 = s.p95 / divide;
    double ratio = NAN;
    if (floor_id) {
        Stat f = stat_of(floor_id);
        if (f.n) ratio = med / f.med;
    }
    if (target_ratio > 0) {
        sprintf(t, "≤ %g×", target_ratio);
        strcpy(v, isnan(ratio) ? "?" : ratio <= target_ratio ? "meets" : "MISSES");
    } else if (target_abs_ns > 0) {
        sprintf(t, "≤ %.0f µs", target_abs_ns / 1e3);
        strcpy(v, med <= target_abs_ns ? "meets" : "MISSES");
    }
    char cpu[32] = "";
    if (g_cpu_col) {
        char cid[64];
        snprintf(cid, sizeof cid, "%s.cpu", id);
        Stat cs = stat_of(cid);
        if (cs.n) fmt_t(cpu, cs.med / divide);
    }
    printf("  %-46s %11s %11s  %-3s %7s  %-7s %-7s%s%10s\n", label, fmt_t(a, med), fmt_t(b, p95),
           floor_label ? floor_label : "", fmt_ratio(c, ratio), t, v, g_cpu_col ? " " : "", cpu);
}

static int load_file(const char *path, char *meta_head, size_t meta_cap, int *rounds) {
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    char buf[4096];
    while (fgets(buf, sizeof buf, f)) {
        if (strncmp(buf, "#meta ", 6) == 0) {
            buf[strcspn(buf, "\n")] = 0;
            if (strncmp(buf + 6, "rounds ", 7) == 0) *rounds = atoi(buf + 13);
            if (strncmp(buf + 6, "http_engine_request ", 20) == 0) {
                size_t l = strlen(buf + 26);
                if (l >= meta_cap) l = meta_cap - 1;
                memcpy(meta_head, buf + 26, l);
                meta_head[l] = 0;
            }
            continue;
        }
        char id[64];
        double v;
        if (sscanf(buf, "%63s %lf", id, &v) == 2) record(series(id), v);
    }
    fclose(f);
    return 0;
}

static int cmd_report(int argc, char **argv) {
    char head[1024] = "";
    int rounds = 0;
    for (int i = 0; i < argc; i++)
        if (load_file(argv[i], head, sizeof head, &rounds) < 0) fprintf(stderr, "warning: cannot read %s\n", argv[i]);
    const char *hdr = "  %-46s %11s %11s  %-3s %7s  %-7s %s\n";
    printf("\nAll rows: median and p95 over %d interleaved rounds (bench/README.md). 'vs' names the floor,\n"
           "'ratio' is median / the floor's median measured in the same rounds.\n",
           rounds);

    printf("\n[1] Fire path, no hook runs: oh_hooks_fire + oh_hooks_string_free through the C ABI,\n"
           "    278-byte preToolUse envelope parsed every call; %d calls per sample, time per call\n",
           NOMATCH_BATCH);
    printf(hdr, "row", "median", "p95", "vs", "ratio", "target", "");
    line("no hook for the event", "nomatch.none", NULL, NULL, 0, 1000, 1);
    line("20 hooks on the event, none match (7/7/6)", "nomatch.20", NULL, NULL, 0, 1000, 1);

    printf("\n[2] Command hooks, one blocking preToolUse fire each (time per fire);\n"
           "    C = the jsonIO command `%s`\n", JSON_CMD);
    printf("  %-46s %11s %11s  %-3s %7s  %-7s %-7s %10s\n", "row", "median", "p95", "vs", "ratio", "target", "",
           "CPU");
    g_cpu_col = 1;
    line("A  floor: posix_spawn /bin/sh -c true + waitpid", "floor.sh", NULL, NULL, 0, 0, 1);
    line("B  floor: posix_spawn /bin/true + waitpid", "floor.true", "A", "floor.sh", 0, 0, 1);
    line("   ladder 1: A + chdir, pgroup, /dev/null stdio", "ladder.1", "A", "floor.sh", 0, 0, 1);
    line("   ladder 2: 1 + stderr pipe read to EOF", "ladder.2", "A", "floor.sh", 0, 0, 1);
    line("   ladder 3: 2 + pidfd/poll loop + OH_* vars", "ladder.3", "A", "floor.sh", 0, 0, 1);
    line("env-mode hook `true`", "env1", "A", "floor.sh", 0, 0, 1);
    line("  same, vs B (/bin/true: its like-for-like)", "env1", "B", "floor.true", 1.05, 0, 1);
    line("  of which inside the hook (trace durationMs)", "env1.inner", "A", "floor.sh", 0, 0, 1);
    line("env-mode hook `true;` (shell syntax: sh -c)", "env1sh", "A", "floor.sh", 1.05, 0, 1);
    line("  same, vs ladder 3 (its semantics in plain C)", "env1sh", "L3", "ladder.3", 0, 0, 1);
    line("J  floor: sh -c C, envelope piped in, out read", "floor.json", "A", "floor.sh", 0, 0, 1);
    line("jsonIO hook C", "json1", "J", "floor.json", 1.05, 0, 1);
    line("  same, vs A (sh -c true)", "json1", "A", "floor.sh", 0, 0, 1);
    line("5 env-mode hooks `true`, chained: whole fire", "env5", "A", "floor.sh", 0, 0, 1);
    line("  per hook (whole fire / 5)", "env5", "A", "floor.sh", 0, 0, 5);
    line("  per hook, vs B (like-for-like)", "env5", "B", "floor.true", 1.05, 0, 5);
    g_cpu_col = 0;
    printf("  (CPU: median CPU time of the firing thread per fire, user + system: the parent's own work,\n"
           "   not the child's, and not inflated by waiting for the child or for a core)\n");

    printf("\n[3] HTTP hook on loopback (in-process C server, HTTP/1.1 keep-alive, 200 \"{}\"),\n"
           "    %d requests per sample, time per request\n",
           HTTP_BATCH);
    printf(hdr, "row", "median", "p95", "vs", "ratio", "target", "");
    line("H  floor: raw kept-alive POST, same body", "floor.http", NULL, NULL, 0, 0, 1);
    line("HTTP hook (ureq agent, kept alive)", "http1", "H", "floor.http", 1.5, 0, 1);
    if (head[0]) printf("    engine request head: %s\n", head);

    printf("\n[3b] Host callbacks: a preToolUse callback hook whose C function answers `{}` at once (on the\n"
           "    firing thread), %d fires per sample; an asynchronous fire (no hook) waited for on a\n"
           "    condition variable, %d round trips per sample; openHarness's route to its host is the\n"
           "    loopback HTTP hook of [3]\n",
           CB_BATCH, ASYNC_BATCH);
    printf(hdr, "row", "median", "p95", "vs", "ratio", "target", "");
    line("N  no-match fire (= [1] no hook for the event)", "nomatch.none", NULL, NULL, 0, 0, 1);
    line("callback hook answering at once (no match)", "cb.now", "N", "nomatch.none", 0, 0, 1);
    {
        static const struct {
            const char *label, *id;
            double target;
        } C[] = {{"  over the no-match fire", "cb.now", 0},
                 {"callback hook, `match: Bash`, answers {}", "cb.match", 1000},
                 {"callback hook, `match: Bash`, reason+context", "cb.reason", 2000}};
        Stat nm = stat_of("nomatch.none");
        char a[32], t[32];
        for (size_t i = 0; i < sizeof C / sizeof C[0]; i++) {
            if (i > 0) line(C[i].label, C[i].id, "N", "nomatch.none", 0, 0, 1);
            Stat cs = stat_of(C[i].id);
            if (!cs.n || !nm.n) continue;
            double over = cs.med - nm.med;
            if (C[i].target > 0) sprintf(t, "≤ %.0f µs", C[i].target / 1e3);
            else t[0] = 0;
            printf("  %-46s %11s %11s  %-3s %7s  %-7s %s\n", i ? "  over the no-match fire" : C[i].label,
                   fmt_t(a, over), "", "", "", t, C[i].target <= 0 ? "" : over <= C[i].target ? "meets" : "MISSES");
        }
        Stat cb = stat_of("cb.now"), http = stat_of("http1");
        char b[32], c[32];
        if (cb.n && http.n)
            printf("  %-46s %11s %11s  %-3s %7s\n", "  openHarness's route: HTTP hook of [3]", fmt_t(a, http.med),
                   fmt_t(b, http.p95), "cb", fmt_ratio(c, http.med / cb.med));
    }
    line("W  floor: 2 pthreads, condvar there and back", "floor.async.cv", NULL, NULL, 0, 0, 1);
    line("E  floor: 2 pthreads, eventfd there and back", "floor.async.efd", NULL, NULL, 0, 0, 1);
    line("async fire round trip (no hook)", "async.rt", "W", "floor.async.cv", 0, 10000, 1);
    line("S  floor: partner spins 50 µs, then condvar back", "floor.async.spin", NULL, NULL, 0, 0, 1);
    line("  the same", "async.rt", "E", "floor.async.efd", 0, 0, 1);
    line("  the same", "async.rt", "S", "floor.async.spin", 0, 0, 1);

    printf("\n[3c] The CLI from a shell: `oh-hooks fire --cwd DIR --trusted ENVELOPE` on a no-match event\n"
           "    (DIR/.oh/config.yaml has a postToolUse hook only), stdout on /dev/null, one spawn + wait per\n"
           "    sample, beside /bin/true spawned with the same arguments\n");
    printf(hdr, "row", "median", "p95", "vs", "ratio", "target", "");
    g_cpu_col = 0;
    line("T  floor: posix_spawn /bin/true + waitpid", "floor.cli", NULL, NULL, 0, 0, 1);
    line("oh-hooks fire, no hook matches", "cli.fire", "T", "floor.cli", 1.5, 0, 1);

    printf("\n[4] Threads firing on one handle: throughput (fires/s; p95 column = the slow side, from\n"
           "    the p95 time per fire). no-match: the 20-hook engine, %d fires per sample; `true`: one\n"
           "    env-mode hook, %d fires per sample; floors A and B spawned from as many threads\n",
           THR_NOMATCH_TOTAL, THR_SPAWN_TOTAL);
    printf("  %-8s %11s %10s %6s  %11s %10s  %9s %9s %6s %6s\n", "threads", "no-match/s", "p95", "scale",
           "`true`/s", "p95", "floor A/s", "floor B/s", "vs A", "vs B");
    Stat base = stat_of("thr.nomatch.1");
    for (int n = 1; n <= 8; n *= 2) {
        char id[32];
        snprintf(id, sizeof id, "thr.nomatch.%d", n);
        Stat a = stat_of(id);
        snprintf(id, sizeof id, "thr.env1.%d", n);
        Stat b = stat_of(id);
        snprintf(id, sizeof id, "thr.floor.%d", n);
        Stat c = stat_of(id);
        snprintf(id, sizeof id, "thr.floorB.%d", n);
        Stat d = stat_of(id);
        if (!a.n || !b.n || !c.n || !d.n) {
            printf("  %-8d (no samples: this row did not run)\n", n);
            g_missing++;
            continue;
        }
        printf("  %-8d %11.0f %10.0f %5.2f×  %11.0f %10.0f  %9.0f %9.0f %5.2f× %5.2f×\n", n, 1e9 / a.med,
               1e9 / a.p95, base.med / a.med, 1e9 / b.med, 1e9 / b.p95, 1e9 / c.med, 1e9 / d.med, c.med / b.med,
               d.med / b.med);
    }
    printf("  (scale: no-match fires/s over its 1-thread fires/s; vs A, vs B: `true`-hook fires/s over the\n"
           "   floor's spawns/s at the same thread count: below 1 means the engine is slower)\n");

    printf("\n[5] Persistent hooks (`persistent: true`): one blocking preToolUse fire each, %d fires per\n"
           "    sample; the floors are the same processes kept by the bench in plain C (one envelope line\n"
           "    written to a pipe, one answer line read). Python/Node: bench/policy.py, bench/policy.js,\n"
           "    the same files spawned as jsonIO hooks for the spawned rows (one fire per sample)\n",
           PERS_BATCH);
    printf(hdr, "row", "median", "p95", "vs", "ratio", "target", "");
    line("E  floor: kept `cat`, line in, line out", "floor.pipe", NULL, NULL, 0, 0, 1);
    line("persistent hook `cat` (echo worker)", "pers.cat", "E", "floor.pipe", 1.3, 0, 1);
    line("P  floor: kept python3 policy.py, line in/out", "floor.pers.py", NULL, NULL, 0, 0, 1);
    line("persistent Python policy hook", "pers.py", "P", "floor.pers.py", 1.3, 0, 1);
    line("spawned Python policy hook (jsonIO)", "spawn.py", "P", "floor.pers.py", 0, 0, 1);
    line("persistent Node policy hook", "pers.node", "P", "floor.pers.py", 0, 0, 1);
    line("spawned Node policy hook (jsonIO)", "spawn.node", "P", "floor.pers.py", 0, 0, 1);
    {
        Stat pp = stat_of("pers.py"), sp = stat_of("spawn.py"), pn = stat_of("pers.node"), sn = stat_of("spawn.node");
        if (pp.n && sp.n) {
            double r = sp.med / pp.med;
            printf("  %-46s %11.0f×  %-18s ≥ 300×   %s\n", "Python: spawned / persistent", r, "", r >= 300 ? "meets" : "MISSES");
        }
        if (pn.n && sn.n) printf("  %-46s %11.0f×\n", "Node: spawned / persistent", sn.med / pn.med);
    }
    printf("  %-8s %11s %10s %6s   (persistent Python policy hook, workers: 4, %d fires per sample\n"
           "  %-8s %11s %10s %6s    split among the threads; scale = fires/s over 1 thread's)\n",
           "threads", "fires/s", "p95", "scale", THR_PERS_TOTAL, "", "", "", "");
    Stat pbase = stat_of("thr.pers.1");
    for (int n = 1; n <= 4; n *= 2) {
        char id[32];
        snprintf(id, sizeof id, "thr.pers.%d", n);
        Stat a = stat_of(id);
        if (!a.n) {
            printf("  %-8d (no samples: this row did not run)\n", n);
            g_missing++;
            continue;
        }
        printf("  %-8d %11.0f %10.0f %5.2f×\n", n, 1e9 / a.med, 1e9 / a.p95, pbase.med / a.med);
    }

    printf("\n[6] Bindings, one no-match fire (the engine with no hook for the event, same envelope):\n"
           "    time per call, and the overhead over the C call measured in the same interleaved rounds\n");
    printf("  %-46s %11s %11s  %11s %7s  %s\n", "call", "median", "p95", "overhead", "ratio", "target");
    Stat cref = stat_of("bind.c");
    /* Targets (issue 20): over = the overhead over the C call; abs = the time per call. */
    static const struct {
        const char *label, *id;
        double over, abs;
    } B[] = {
        {"C  oh_hooks_fire + oh_hooks_string_free", "bind.c", 0, 0},
        {"Node  hooks.fireSync(object)", "node.fireSync", 0, 2000},
        {"Node  hooks.fireSync(string)", "node.fireSync.str", 0, 0},
        {"Node  await hooks.fire(object)", "node.fire", 0, 10000},
        {"Go    h.Fire(ctx, Envelope)", "go.Fire", 3000, 0},
        {"Go    h.FireJSON(ctx, []byte)", "go.FireJSON", 0, 0},
        {"Python  hooks.fire(dict)", "py.fire", 0, 10000},
        {"Python  hooks.fire_json(str)", "py.fire_json", 0, 0},
    };
    for (size_t i = 0; i < sizeof B / sizeof B[0]; i++) {
        Stat s = stat_of(B[i].id);
        char a[32], b[32], c[32], d[32];
        if (!s.n) {
            printf("  %-46s  (no samples: this row did not run)\n", B[i].label);
            g_missing++;
            continue;
        }
        char t[48] = "";
        if (B[i].over > 0)
            sprintf(t, "overhead ≤ %.0f µs %s", B[i].over / 1e3, s.med - cref.med <= B[i].over ? "meets" : "MISSES");
        else if (B[i].abs > 0)
            sprintf(t, "≤ %.0f µs %s", B[i].abs / 1e3, s.med <= B[i].abs ? "meets" : "MISSES");
        printf("  %-46s %11s %11s  %11s %7s  %s\n", B[i].label, fmt_t(a, s.med), fmt_t(b, s.p95),
               i == 0 ? "" : fmt_t(c, s.med - cref.med), i == 0 ? "" : fmt_ratio(d, s.med / cref.med), t);
    }
    Stat main_c = stat_of("nomatch.none");
    if (main_c.n && cref.n) {
        char a[32], b[32];
        printf("  (the same C call in the main C run, table [1]: %s; here %s)\n", fmt_t(a, main_c.med),
               fmt_t(b, cref.med));
    }

    printf("\n[5b] Bindings with host callbacks: a fire whose one hook is a callback answering at once with no\n"
           "    decision, each in its language (same envelope); the engine's async fire with no hook; the\n"
           "    C rows of [3b] for reference (from the main C run, not these interleaved rounds)\n");
    printf(hdr, "row", "median", "p95", "vs", "ratio", "target", "");
    line("C  callback hook ([3b])", "cb.now", NULL, NULL, 0, 0, 1);
    line("C  async fire round trip ([3b])", "async.rt", NULL, NULL, 0, 10000, 1);
    line("Node  hooks.fireSync, JS callback", "node.fireSync.cb", NULL, NULL, 0, 5000, 1);
    line("Node  await hooks.fire, JS callback", "node.fire.cb", NULL, NULL, 0, 5000, 1);
    line("Node  T  floor: C thread -> threadsafe function", "node.floor.tsfn", NULL, NULL, 0, 0, 1);
    line("Node  P  floor: C thread -> pipe -> uv_poll", "node.floor.pipe", NULL, NULL, 0, 0, 1);
    line("Node  await hooks.fire, no hook", "node.fire", "P", "node.floor.pipe", 0, 10000, 1);
    line("Node  await fire, HTTP hook to this process", "node.fire.http", "cb", "node.fire.cb", 0, 0, 1);
    line("Go    h.Fire(Background), Go callback", "go.Fire.cb", NULL, NULL, 0, 5000, 1);
    line("Go    same, ohhooks.Inline()", "go.Fire.cb.inline", NULL, NULL, 0, 5000, 1);
    line("Go    G  floor: a goroutine woken by a C thread", "go.floor.cwake", NULL, NULL, 0, 0, 1);
    line("Go    h.Fire(ctx that can end), no hook", "go.Fire.ctx", "G", "go.floor.cwake", 0, 10000, 1);
    line("Python  hooks.fire, Python callback", "py.fire.cb", NULL, NULL, 0, 5000, 1);
    line("Python  R  floor: C thread -> pipe -> add_reader", "py.floor.reader", NULL, NULL, 0, 0, 1);
    line("Python  S  floor: C thread -> call_soon_threadsafe", "py.floor.cst", NULL, NULL, 0, 0, 1);
    line("Python  await hooks.fire_async, no hook", "py.fire_async", "R", "py.floor.reader", 0, 30000, 1);
    if (g_missing) {
        fprintf(stderr, "error: %d row(s) of the table have no samples\n", g_missing);
        return 1;
    }
    return 0;
}

/* ------------------------------------------------------------------------------------------ */

static void usage(void) {
    fprintf(stderr,
            "usage: bench run -o FILE [-r ROUNDS]\n"
            "       bench cref -o FILE [-n SAMPLES]\n"
            "       bench report FILE...\n"
            "       bench profile ROW N   ROW: nomatch0 nomatch20 env1 env1sh env5 json1 http floor-sh\n"
            "                                  floor-true floor-json floor-http ladder1 ladder2 ladder3\n"
            "                                  callback async\n"
            "                                  threads1 threads2 threads4 threads8 (no-match samples)\n"
            "                                  pers-cat pers-py floor-pipe (%d fires each)\n"
            "       bench envelope         prints the envelope every row fires\n",
            PERS_BATCH);
    exit(2);
}

int main(int argc, char **argv) {
    if (argc < 2) usage();
    if (!getcwd(g_cwd, sizeof g_cwd)) die("getcwd: %s", strerror(errno));
    if (strpbrk(g_cwd, "\"\\")) die("the working directory must not contain quotes or backslashes");
    const char *bdir = getenv("BENCH_DIR");
    snprintf(g_bench_dir, sizeof g_bench_dir, "%s", bdir && *bdir ? bdir : "bench");
    if (g_bench_dir[0] != '/') {
        char rel[PATH_MAX];
        snprintf(rel, sizeof rel, "%s", g_bench_dir);
        if (snprintf(g_bench_dir, sizeof g_bench_dir, "%s/%s", g_cwd, rel) >= (int)sizeof g_bench_dir)
            die("BENCH_DIR is too long");
    }
    if (strpbrk(g_bench_dir, "\"\\ ")) die("BENCH_DIR must not contain quotes, backslashes or spaces");
    const char *cmd = argv[1];
    if (!strcmp(cmd, "report")) return cmd_report(argc - 2, argv + 2);
    if (!strcmp(cmd, "envelope")) return puts(ENVELOPE) < 0;
    if (!strcmp(cmd, "profile")) {
        if (argc != 4) usage();
        return cmd_profile(argv[2], atoi(argv[3]));
    }
    const char *out = NULL;
    int rounds = 100, samples = 20;
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "-o") && i + 1 < argc) out = argv[++i];
        else if (!strcmp(argv[i], "-r") && i + 1 < argc) rounds = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-n") && i + 1 < argc) samples = atoi(argv[++i]);
        else usage();
    }
    if (!out || rounds < 1 || samples < 1) usage();
    if (!strcmp(cmd, "run")) return cmd_run(out, rounds);
    if (!strcmp(cmd, "cref")) return cmd_cref(out, samples);
    usage();
    return 2;
}
