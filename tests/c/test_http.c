/* test_http.c — CONTRACT §3.5 (HTTP hooks) through the ABI, against a real HTTP/1.1 keep-alive
 * server on 127.0.0.1 started by this program: decisions and context from the body, the request's
 * shape (POST, application/json, compact envelope with `event` first), fail-closed answers
 * (non-2xx, 3xx not followed, timeout, refused, malformed, too large), the legacy
 * {"allowed":false}, connection reuse (one connection for 50 fires, few for 8 threads), and HTTP
 * hooks on a non-blocking event with waitNonBlocking. Mirrors tests/it/http.rs. */
#include "common.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdatomic.h>
#include <strings.h>
#include <sys/socket.h>

/* ---------- the server ---------- */
/* One thread accepts; one thread per connection parses requests (request line, headers,
 * Content-Length body) and answers each with Content-Length, keeping the connection open. The
 * request's path picks the answer (see srv_answer). Stopped by srv_stop (registered with gc_add
 * when started, so it runs after the test's engines are freed): wakes the accept thread through a
 * pipe, shuts every connection down, joins every thread and closes every socket. */
typedef struct srv srv;
typedef struct conn {
    srv *s;
    int fd;
    pthread_t th;
    int started;
    struct conn *next;
} conn;
struct srv {
    int lfd, port, wake[2];
    pthread_t accept_th;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int stopping;
    conn *conns;
    atomic_int connections, requests;
    /* the last request, for the request-shape test (under mu) */
    char *last_method, *last_path, *last_ctype, *last_body;
    size_t last_len;
};

static int send_all(int fd, const char *p, size_t n) {
    while (n) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL); /* the client may be gone (timeout test) */
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Waits up to ms, or less when the server stops. */
static void srv_sleep(srv *s, int ms) {
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += ms / 1000;
    until.tv_nsec += (long)(ms % 1000) * 1000000L;
    if (until.tv_nsec >= 1000000000L) until.tv_sec++, until.tv_nsec -= 1000000000L;
    pthread_mutex_lock(&s->mu);
    while (!s->stopping)
        if (pthread_cond_timedwait(&s->cv, &s->mu, &until) == ETIMEDOUT) break;
    pthread_mutex_unlock(&s->mu);
}

/* The canned answer for a path: status, extra header lines, body (owned). */
static char *srv_answer(srv *s, const char *path, int *status, const char **extra) {
    *status = 200;
    *extra = "";
    if (!strcmp(path, "/allow")) return strdup("{\"decision\":\"allow\"}");
    if (!strcmp(path, "/deny")) return strdup("{\"decision\":\"deny\",\"reason\":\"server says no\"}");
    if (!strcmp(path, "/specific-deny"))
        return strdup("{\"hookSpecificOutput\":{\"decision\":\"deny\",\"reason\":\"specific no\"}}");
    if (!strcmp(path, "/specific-allow")) return strdup("{\"hookSpecificOutput\":{\"decision\":\"allow\"}}");
    if (!strcmp(path, "/context")) return strdup("{\"hookSpecificOutput\":{\"additionalContext\":\"from http\"}}");
    if (!strcmp(path, "/echo")) return strdup("{\"hookSpecificOutput\":{\"additionalContext\":\"echoed\"}}");
    if (!strcmp(path, "/500")) return *status = 500, strdup("oops");
    if (!strcmp(path, "/302")) return *status = 302, *extra = "Location: /allow\r\n", strdup("");
    if (!strcmp(path, "/sleep")) {
        srv_sleep(s, 1500);
        return strdup("{\"decision\":\"allow\"}");
    }
    if (!strcmp(path, "/empty")) return strdup("");
    if (!strcmp(path, "/malformed")) return strdup("{not json");
    if (!strcmp(path, "/big")) {
        sbuf b = {0};
        sb_puts(&b, "{\"reason\":\"");
        for (int i = 0; i < 4096; i++) sb_putc(&b, 'x');
        sb_puts(&b, "\"}");
        return sb_take(&b);
    }
    if (!strcmp(path, "/legacy")) return strdup("{\"allowed\":false}");
    if (!strcmp(path, "/legacy-reason")) return strdup("{\"allowed\":false,\"reason\":\"legacy no\"}");
    *status = 404;
    return strdup("");
}

/* Reads more bytes into b; 0 on EOF or error. */
static int srv_fill(int fd, sbuf *b) {
    char tmp[4096];
    for (;;) {
        ssize_t r = recv(fd, tmp, sizeof tmp, 0);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return 0;
        sb_putn(b, tmp, (size_t)r);
        return 1;
    }
}

static void *srv_conn_main(void *arg) {
    conn *c = arg;
    srv *s = c->s;
    sbuf in = {0};
    for (;;) {
        /* request line and headers */
        char *end;
        while (!in.p || !(end = strstr(in.p, "\r\n\r\n")))
            if (in.len > (1 << 20) || !srv_fill(c->fd, &in)) goto out;
        size_t head_len = (size_t)(end - in.p) + 4;
        char *head = strndup(in.p, head_len - 4);
        char method[16] = "", path[1024] = "", ctype[256] = "";
        size_t length = 0;
        int close_after = 0;
        char *save = NULL;
        char *line = strtok_r(head, "\r\n", &save);
        if (!line || sscanf(line, "%15s %1023s", method, path) != 2) { free(head); goto out; }
        while ((line = strtok_r(NULL, "\r\n", &save))) {
            char *colon = strchr(line, ':');
            if (!colon) continue;
            *colon = 0;
            char *v = colon + 1;
            while (*v == ' ' || *v == '\t') v++;
            if (!strcasecmp(line, "content-length")) length = strtoul(v, NULL, 10);
            else if (!strcasecmp(line, "content-type")) snprintf(ctype, sizeof ctype, "%s", v);
            else if (!strcasecmp(line, "connection") && !strcasecmp(v, "close")) close_after = 1;
        }
        free(head);
        /* body */
        while (in.len < head_len + length)
            if (!srv_fill(c->fd, &in)) goto out;
        pthread_mutex_lock(&s->mu);
        free(s->last_method), free(s->last_path), free(s->last_ctype), free(s->last_body);
        s->last_method = strdup(method);
        s->last_path = strdup(path);
        s->last_ctype = strdup(ctype);
        s->last_body = strndup(in.p + head_len, length);
        s->last_len = length;
        pthread_mutex_unlock(&s->mu);
        /* drop the request from the buffer */
        memmove(in.p, in.p + head_len + length, in.len - head_len - length);
        in.len -= head_len + length;
        in.p[in.len] = 0;
        atomic_fetch_add(&s->requests, 1);
        /* answer */
        int status;
        const char *extra;
        char *body = srv_answer(s, path, &status, &extra);
        sbuf outb = {0};
        sb_printf(&outb, "HTTP/1.1 %d X\r\nContent-Type: application/json\r\nContent-Length: %zu\r\n%s\r\n%s", status,
                  strlen(body), extra, body);
        free(body);
        int bad = send_all(c->fd, outb.p, outb.len);
        free(outb.p);
        if (bad || close_after) goto out;
    }
out:
    free(in.p);
    shutdown(c->fd, SHUT_RDWR);
    return NULL;
}

static void *srv_accept_main(void *arg) {
    srv *s = arg;
    for (;;) {
        struct pollfd p[2] = {{s->lfd, POLLIN, 0}, {s->wake[0], POLLIN, 0}};
        if (poll(p, 2, -1) < 0) {
            if (errno == EINTR) continue;
            return NULL;
        }
        if (p[1].revents) return NULL;
        int fd = accept4(s->lfd, NULL, NULL, SOCK_CLOEXEC);
        if (fd < 0) continue;
        atomic_fetch_add(&s->connections, 1);
        conn *c = calloc(1, sizeof *c);
        if (!c) abort();
        c->s = s;
        c->fd = fd;
        pthread_mutex_lock(&s->mu);
        c->next = s->conns;
        s->conns = c;
        c->started = pthread_create(&c->th, NULL, srv_conn_main, c) == 0;
        pthread_mutex_unlock(&s->mu);
    }
}

static void srv_stop(void *arg) {
    srv *s = arg;
    pthread_mutex_lock(&s->mu);
    s->stopping = 1;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
    if (write(s->wake[1], "x", 1) != 1) perror("srv_stop: write");
    pthread_join(s->accept_th, NULL);
    /* the accept thread is gone: the list no longer changes */
    for (conn *c = s->conns; c; c = c->next) shutdown(c->fd, SHUT_RDWR);
    while (s->conns) {
        conn *c = s->conns;
        s->conns = c->next;
        if (c->started) pthread_join(c->th, NULL);
        close(c->fd);
        free(c);
    }
    close(s->lfd), close(s->wake[0]), close(s->wake[1]);
    free(s->last_method), free(s->last_path), free(s->last_ctype), free(s->last_body);
    pthread_cond_destroy(&s->cv);
    pthread_mutex_destroy(&s->mu);
    free(s);
}

/* A new server, stopped after the test (after its engines are freed). NULL + failed check on error. */
static srv *srv_start(void) {
    srv *s = calloc(1, sizeof *s);
    if (!s) abort();
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->cv, NULL);
    atomic_init(&s->connections, 0);
    atomic_init(&s->requests, 0);
    struct sockaddr_in a = {0};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t al = sizeof a;
    s->lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int ok = s->lfd >= 0 && bind(s->lfd, (struct sockaddr *)&a, sizeof a) == 0 && listen(s->lfd, 64) == 0 &&
             getsockname(s->lfd, (struct sockaddr *)&a, &al) == 0 && pipe2(s->wake, O_CLOEXEC) == 0;
    CHECK(ok, "server socket: %s", strerror(errno));
    if (!ok) abort();
    s->port = ntohs(a.sin_port);
    CHECK(pthread_create(&s->accept_th, NULL, srv_accept_main, s) == 0, "pthread_create (accept)");
    return gc_add(s, srv_stop);
}

static char *url(srv *s, const char *path) { return xfmt("http://127.0.0.1:%d%s", s->port, path); }
static int nreq(srv *s) { return atomic_load(&s->requests); }
static int nconn(srv *s) { return atomic_load(&s->connections); }

/* {"http": url, "timeout": ms} plus extra keys (J-style, may be NULL) */
static char *hh(const char *u, int timeout_ms, const char *extra) {
    return xfmt("{\"http\":%s,\"timeout\":%d%s%s}", q(u), timeout_ms, extra ? "," : "", extra ? J(extra) : "");
}

/* Generous per-request timeout: only test_timeout relies on a short one (valgrind is slow). */
#define T_OK 5000

/* An engine with one HTTP hook on `event`, maxOutputBytes 1024 (as tests/it/http.rs). */
static OhHooks *one_hook(srv *s, const char *path, const char *event) {
    return ENG(cfg(event, hh(url(s, path), T_OK, NULL), NULL), "`maxOutputBytes`:1024");
}
static jval *outcome(srv *s, const char *path) {
    OhHooks *h = one_hook(s, path, "preToolUse");
    if (!h) return gc_json(json_parse("{}"));
    return FIREJ(h, "{`event`:`preToolUse`,`toolName`:`Bash`}");
}

/* ---------- tests ---------- */
static void test_allow_and_deny(void) {
    srv *s = srv_start();
    CHECK_OUT(outcome(s, "/allow"),
              "{`allowed`:true,`hooks`:[{`index`:0,`type`:`http`,`status`:200,`timedOut`:false,`result`:`allow`}]}");
    /* top-level deny: the reason kept, no permission decision */
    jval *o = outcome(s, "/deny");
    CHECK_JBOOL(o, "allowed", 0);
    CHECK_JSTR(o, "reason", "server says no");
    CHECK_ABSENT(o, "permissionDecision");
    CHECK_JSTR(o, "hooks.0.type", "http");
    CHECK_JSTR(o, "hooks.0.result", "deny");
    CHECK_JNUM(o, "hooks.0.status", 200);
    /* hookSpecificOutput.decision deny: a permission decision deny */
    o = outcome(s, "/specific-deny");
    CHECK_JBOOL(o, "allowed", 0);
    CHECK_JSTR(o, "permissionDecision", "deny");
    CHECK_JSTR(o, "reason", "specific no");
    CHECK_JSTR(o, "hooks.0.result", "deny");
    o = outcome(s, "/specific-allow");
    CHECK_JBOOL(o, "allowed", 1);
    CHECK_JSTR(o, "permissionDecision", "allow");
    CHECK_ABSENT(o, "reason");
    CHECK_JSTR(o, "hooks.0.result", "allow");
    CHECK(nreq(s) == 4, "the server saw %d requests, want 4", nreq(s));
}

static void test_context_and_request_shape(void) {
    srv *s = srv_start();
    jval *o = outcome(s, "/context");
    CHECK_JBOOL(o, "allowed", 1);
    CHECK_JSTR(o, "additionalContext", "from http");
    CHECK_ABSENT(o, "permissionDecision");
    CHECK_ABSENT(o, "reason");
    CHECK_JSTR(o, "hooks.0.result", "none");

    /* The body is the envelope as compact JSON, event first, then the fields in the order
     * received (unknown and nested ones included); POST with Content-Type application/json. */
    OhHooks *h = one_hook(s, "/echo", "userPromptSubmit");
    if (!h) return;
    o = FIREJ(h, "{ `prompt` : `hi`, `event` : `userPromptSubmit`, `n` : 1.5,\n"
                 "  `extra` : { `a` : [ 1, true, null ], `s` : `x y` } }");
    CHECK_JBOOL(o, "allowed", 1);
    CHECK_JSTR(o, "additionalContext", "echoed");
    pthread_mutex_lock(&s->mu);
    char *method = gc_str(s->last_method ? strdup(s->last_method) : NULL);
    char *path = gc_str(s->last_path ? strdup(s->last_path) : NULL);
    char *ctype = gc_str(s->last_ctype ? strdup(s->last_ctype) : NULL);
    char *body = gc_str(s->last_body ? strdup(s->last_body) : NULL);
    pthread_mutex_unlock(&s->mu);
    CHECK(streq(method, "POST"), "method: got %s, want POST", show(method));
    CHECK(streq(path, "/echo"), "path: got %s, want /echo", show(path));
    CHECK(streq(ctype, "application/json"), "Content-Type: got %s, want application/json", show(ctype));
    const char *want = "{\"event\":\"userPromptSubmit\",\"prompt\":\"hi\",\"n\":1.5,"
                       "\"extra\":{\"a\":[1,true,null],\"s\":\"x y\"}}";
    jval *got = body ? gc_json(json_parse(body)) : NULL;
    CHECK(got && got->t == J_OBJ, "the request body is a JSON object: %s", show(body));
    if (!got || got->t != J_OBJ) return;
    /* same meaning, same key order, and compact (no whitespace outside strings) */
    CHECK(json_equal(got, gc_json(json_parse(want))), "body: got %s, want %s", body, want);
    int order_ok = got->len == 4 && !strcmp(got->keys[0], "event") && !strcmp(got->keys[1], "prompt") &&
                   !strcmp(got->keys[2], "n") && !strcmp(got->keys[3], "extra");
    CHECK(order_ok, "key order: event first, then as received: %s", body);
    int in_str = 0, ws = 0;
    for (const char *p = body; *p; p++) {
        if (in_str && *p == '\\' && p[1]) { p++; continue; }
        if (*p == '"') in_str = !in_str;
        else if (!in_str && strchr(" \t\r\n", *p)) ws = 1;
    }
    CHECK(!ws, "the body is compact JSON: %s", body);
}

/* A deny that fails closed with `reason`, traced as an http hook with that reason. */
#define CHECK_FAIL_CLOSED(o, want_reason)                                                        \
    do {                                                                                         \
        jval *fc_o = (o);                                                                        \
        CHECK_JBOOL(fc_o, "allowed", 0);                                                         \
        CHECK_JSTR(fc_o, "reason", (want_reason));                                               \
        CHECK_ABSENT(fc_o, "additionalContext");                                                 \
        CHECK_LEN(fc_o, "hooks", 1);                                                             \
        CHECK_JSTR(fc_o, "hooks.0.type", "http");                                                \
        CHECK_JSTR(fc_o, "hooks.0.result", "deny");                                              \
        CHECK_JSTR(fc_o, "hooks.0.reason", (want_reason));                                       \
    } while (0)

static void test_failures_fail_closed(void) {
    srv *s = srv_start();
    jval *o = outcome(s, "/500");
    CHECK_FAIL_CLOSED(o, "hook HTTP 500");
    CHECK_JNUM(o, "hooks.0.status", 500);
    CHECK_JBOOL(o, "hooks.0.timedOut", 0);
    o = outcome(s, "/404");
    CHECK_FAIL_CLOSED(o, "hook HTTP 404");
    CHECK_JNUM(o, "hooks.0.status", 404);

    /* 302 is not followed: one request, and the answer is the 302 itself */
    int before = nreq(s);
    o = outcome(s, "/302");
    CHECK_FAIL_CLOSED(o, "hook HTTP 302");
    CHECK_JNUM(o, "hooks.0.status", 302);
    CHECK(nreq(s) - before == 1, "a redirect was followed: the server saw %d requests for one fire", nreq(s) - before);

    o = outcome(s, "/malformed");
    CHECK_FAIL_CLOSED(o, "hook HTTP malformed response");
    CHECK_JNUM(o, "hooks.0.status", 200);
    o = outcome(s, "/big"); /* 4 KiB body, maxOutputBytes 1024 */
    CHECK_FAIL_CLOSED(o, "hook HTTP response too large");
    CHECK_JNUM(o, "hooks.0.status", 200);
    o = outcome(s, "/legacy");
    CHECK_FAIL_CLOSED(o, "hook denied");
    CHECK_ABSENT(o, "permissionDecision");
    CHECK_JNUM(o, "hooks.0.status", 200);
    o = outcome(s, "/legacy-reason"); /* docs/config.md "HTTP hooks": its reason if it has one */
    CHECK_FAIL_CLOSED(o, "legacy no");

    /* an empty 2xx body: no decision */
    CHECK_OUT(outcome(s, "/empty"),
              "{`allowed`:true,`hooks`:[{`index`:0,`type`:`http`,`status`:200,`timedOut`:false,`result`:`none`}]}");
    CHECK(nreq(s) == 8, "the server saw %d requests, want 8", nreq(s));
}

static void test_timeout(void) {
    srv *s = srv_start();
    OhHooks *h = ENG(cfg("preToolUse", hh(url(s, "/sleep"), 300, NULL), NULL), NULL);
    if (!h) return;
    double t0 = now_ms();
    jval *o = FIREJ(h, "{`event`:`preToolUse`,`toolName`:`Bash`}");
    double dt = now_ms() - t0;
    CHECK_FAIL_CLOSED(o, "hook HTTP error");
    CHECK_JBOOL(o, "hooks.0.timedOut", 1);
    CHECK_ABSENT(o, "hooks.0.status");
    /* the server answers after 1.5 s: the fire must not wait for it */
    double limit = 300 + slack();
    if (limit > 1200) limit = 1200;
    CHECK(dt < limit, "a 300 ms HTTP timeout took %.0f ms (limit %.0f, the server sleeps 1500)", dt, limit);
    CHECK(dt >= 290, "the fire returned after %.0f ms, before its 300 ms timeout", dt);
    CHECK(nreq(s) == 1, "the server saw %d requests, want 1", nreq(s));
}

static void test_refused(void) {
    /* a port nobody listens on: bind, learn the port, close */
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = {0};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t al = sizeof a;
    int ok = fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof a) == 0 &&
             getsockname(fd, (struct sockaddr *)&a, &al) == 0;
    CHECK(ok, "bind: %s", strerror(errno));
    if (fd >= 0) close(fd);
    if (!ok) return;
    OhHooks *h = ENG(cfg("preToolUse", hh(xfmt("http://127.0.0.1:%d/x", ntohs(a.sin_port)), T_OK, NULL), NULL), NULL);
    if (!h) return;
    double t0 = now_ms();
    jval *o = FIREJ(h, "{`event`:`preToolUse`}");
    double dt = now_ms() - t0;
    CHECK_FAIL_CLOSED(o, "hook HTTP error");
    CHECK_JBOOL(o, "hooks.0.timedOut", 0);
    CHECK_ABSENT(o, "hooks.0.status");
    const char *err = json_str(json_path(o, "hooks.0.error"));
    CHECK(err && err[0], "a refused connection has a trace error: %s", gc_str(json_dump(o)));
    CHECK(dt < 100 + slack(), "a refused connection took %.0f ms", dt);
}

static void test_one_connection_reused(void) {
    srv *s = srv_start();
    OhHooks *h = one_hook(s, "/allow", "preToolUse");
    if (!h) return;
    int bad = 0;
    for (int i = 0; i < 50; i++) {
        jval *o = FIREJ(h, "{`event`:`preToolUse`}");
        jval *al = json_get(o, "allowed");
        if (!al || al->t != J_BOOL || !al->b || !streq(json_str(json_path(o, "hooks.0.result")), "allow")) {
            if (!bad++) CHECK(0, "fire %d: want allowed with result allow, got %s", i, gc_str(json_dump(o)));
        }
    }
    CHECK(!bad, "%d of 50 fires were not allowed", bad);
    CHECK(nreq(s) == 50, "the server saw %d requests, want 50", nreq(s));
    CHECK(nconn(s) == 1, "keep-alive: %d connections for 50 fires, want 1", nconn(s));
}

static OhHooks *g_h;

static void *fire_worker(void *arg) {
    int t = (int)(intptr_t)arg;
    for (int i = 0; i < 25; i++) {
        int bash = (t + i) % 2 == 0;
        jval *o = FIRE(g_h, xfmt("{\"event\":\"preToolUse\",\"toolName\":\"%s\"}", bash ? "Bash" : "Read"));
        if (bash) {
            CHECK_JBOOL(o, "allowed", 0);
            CHECK_JSTR(o, "reason", "server says no");
            CHECK_LEN(o, "hooks", 1); /* the deny stops the walk */
        } else {
            CHECK_JBOOL(o, "allowed", 1);
            CHECK_JSTR(o, "additionalContext", "from http");
            CHECK_LEN(o, "hooks", 1); /* the Bash-only hook does not match */
            CHECK_JNUM(o, "hooks.0.index", 1);
        }
    }
    return NULL;
}

static void test_eight_threads_at_once(void) {
    srv *s = srv_start();
    g_h = ENG(cfg("preToolUse", hh(url(s, "/deny"), T_OK, "`match`:`Bash`"), hh(url(s, "/context"), T_OK, NULL), NULL),
              NULL);
    if (!g_h) return;
    pthread_t th[8];
    int made[8];
    for (int i = 0; i < 8; i++) {
        made[i] = pthread_create(&th[i], NULL, fire_worker, (void *)(intptr_t)i) == 0;
        CHECK(made[i], "pthread_create");
    }
    for (int i = 0; i < 8; i++)
        if (made[i]) pthread_join(th[i], NULL);
    CHECK(nreq(s) == 200, "the server saw %d requests, want 200", nreq(s));
    CHECK(nconn(s) <= 16, "connections are pooled: %d for 200 requests from 8 threads", nconn(s));
    g_h = NULL;
}

static void test_non_blocking_event(void) {
    srv *s = srv_start();
    OhHooks *h = ENG(cfg("postToolUse", hh(url(s, "/deny"), T_OK, NULL), NULL), "`waitNonBlocking`:true");
    if (!h) return;
    jval *o = FIREJ(h, "{`event`:`postToolUse`,`toolName`:`Bash`}");
    CHECK_JBOOL(o, "allowed", 1);
    CHECK_ABSENT(o, "permissionDecision");
    CHECK_JSTR(o, "reason", "server says no"); /* §3.2: reasons are still gathered */
    CHECK_LEN(o, "hooks", 1);
    CHECK_JSTR(o, "hooks.0.type", "http");
    CHECK_JSTR(o, "hooks.0.result", "deny");
    CHECK_JNUM(o, "hooks.0.status", 200);
    CHECK(nreq(s) == 1, "the server saw %d requests, want 1", nreq(s));
}

int main(void) {
    setup("test_http");
    setenv("HOME", g_dir, 1);
    if (chdir(g_dir)) return 2;
    RUN(test_allow_and_deny);
    RUN(test_context_and_request_shape);
    RUN(test_failures_fail_closed);
    RUN(test_timeout);
    RUN(test_refused);
    RUN(test_one_connection_reused);
    RUN(test_eight_threads_at_once);
    RUN(test_non_blocking_event);
    return DONE();
}
