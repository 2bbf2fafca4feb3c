/* common.h — helpers shared by the C test programs (include it first).
 * Everything goes through the ABI in oh_hooks.h; nothing here knows the engine's insides. */
#ifndef OHT_COMMON_H
#define OHT_COMMON_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define OHT_FN static __attribute__((unused))

#include "oh_hooks.h"
#include "check.h"
#include "json.h"

/* ---------- per-test garbage list: freed after each RUN() ---------- */
typedef struct { void *p; void (*fn)(void *); } oht_gc_item;
static oht_gc_item *oht_gc;
static size_t oht_gc_len, oht_gc_cap;
static pthread_mutex_t oht_gc_mu = PTHREAD_MUTEX_INITIALIZER;

OHT_FN void *gc_add(void *p, void (*fn)(void *)) {
    if (!p) return p;
    pthread_mutex_lock(&oht_gc_mu);
    if (oht_gc_len == oht_gc_cap) {
        oht_gc_cap = oht_gc_cap ? oht_gc_cap * 2 : 64;
        oht_gc = realloc(oht_gc, oht_gc_cap * sizeof *oht_gc);
        if (!oht_gc) abort();
    }
    oht_gc[oht_gc_len].p = p;
    oht_gc[oht_gc_len].fn = fn;
    oht_gc_len++;
    pthread_mutex_unlock(&oht_gc_mu);
    return p;
}
OHT_FN void gc_free_json(void *p) { json_free(p); }
OHT_FN void gc_free_engine(void *p) { oh_hooks_free(p); }
static void gc_collect(void) {
    pthread_mutex_lock(&oht_gc_mu);
    /* in reverse order of registration (an engine goes after what was made from it) */
    while (oht_gc_len) {
        oht_gc_item it = oht_gc[--oht_gc_len];
        pthread_mutex_unlock(&oht_gc_mu);
        it.fn(it.p);
        pthread_mutex_lock(&oht_gc_mu);
    }
    free(oht_gc);
    oht_gc = NULL;
    oht_gc_cap = 0;
    pthread_mutex_unlock(&oht_gc_mu);
}
OHT_FN char *gc_str(char *s) { return gc_add(s, free); }
OHT_FN jval *gc_json(jval *v) { return gc_add(v, gc_free_json); }

/* A formatted string, freed after the test. */
OHT_FN char *xfmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
OHT_FN char *xfmt(const char *fmt, ...) {
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *s = malloc((size_t)n + 1);
    if (!s) abort();
    vsnprintf(s, (size_t)n + 1, fmt, ap2);
    va_end(ap2);
    return gc_str(s);
}
/* JSON written with backticks for quotes: J("{`event`:`preToolUse`}"). */
OHT_FN char *J(const char *tmpl) {
    char *s = gc_str(strdup(tmpl));
    for (char *p = s; *p; p++)
        if (*p == '`') *p = '"';
    return s;
}
/* A C string as a JSON string literal. */
OHT_FN char *q(const char *s) { return gc_str(json_quote(s)); }
OHT_FN const char *show(const char *s) { return s ? s : "(absent)"; }
OHT_FN int streq(const char *a, const char *b) { return a == b || (a && b && !strcmp(a, b)); }

/* ---------- files and time ---------- */
static char oht_root[64];
static char *g_dir; /* a clean directory for this program: home and cwd of most engines */

OHT_FN int oht_rm(const char *p, const struct stat *st, int flag, struct FTW *f) {
    (void)st; (void)flag; (void)f;
    remove(p);
    return 0;
}
OHT_FN void tmp_cleanup(void) {
    if (oht_root[0] && !getenv("OHT_KEEP")) nftw(oht_root, oht_rm, 16, FTW_DEPTH | FTW_PHYS);
    free(g_dir);
}
/* Creates the program's temp root; call first in main(). */
OHT_FN void setup(const char *prog) {
    oht_prog = prog;
    setvbuf(stdout, NULL, _IOLBF, 0);
    snprintf(oht_root, sizeof oht_root, "/tmp/oh-ctest-%s.XXXXXX", prog);
    if (!mkdtemp(oht_root)) { perror("mkdtemp"); exit(2); }
    g_dir = malloc(strlen(oht_root) + 8);
    sprintf(g_dir, "%s/work", oht_root);
    mkdir(g_dir, 0755);
    atexit(tmp_cleanup);
}
/* A fresh empty directory under the temp root. */
OHT_FN char *newdir(const char *name) {
    static int n;
    static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&mu);
    int k = ++n;
    pthread_mutex_unlock(&mu);
    char *d = xfmt("%s/%s-%d", oht_root, name, k);
    if (mkdir(d, 0755)) { perror(d); abort(); }
    return d;
}
OHT_FN void mkdirs(const char *path) {
    char *p = strdup(path);
    for (char *s = p + 1; *s; s++)
        if (*s == '/') { *s = 0; mkdir(p, 0755); *s = '/'; }
    mkdir(p, 0755);
    free(p);
}
OHT_FN void write_file(const char *path, const char *content) {
    FILE *f = fopen(path, "w");
    if (!f) { perror(path); abort(); }
    fputs(content, f);
    fclose(f);
}
/* Whole file, freed after the test; NULL when it cannot be read. */
OHT_FN char *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    sbuf b = {0};
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) sb_putn(&b, buf, n);
    fclose(f);
    if (len) *len = b.len;
    return gc_str(sb_take(&b));
}
OHT_FN int file_exists(const char *path) { return access(path, F_OK) == 0; }
OHT_FN double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}
OHT_FN void sleep_ms(int ms) {
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) && errno == EINTR) {}
}
OHT_FN int wait_for_file(const char *path, int ms) {
    double end = now_ms() + ms;
    while (now_ms() < end) {
        if (file_exists(path)) return 1;
        sleep_ms(20);
    }
    return file_exists(path);
}
/* Timing allowance: 250 ms, plus OHT_SLACK_MS (run.sh raises it under valgrind/ASan). */
OHT_FN double slack(void) {
    const char *e = getenv("OHT_SLACK_MS");
    return 250.0 + (e ? atof(e) : 0.0);
}

/* ---------- engines and outcomes ---------- */
OHT_FN jval *parse_owned(char *s, const char *what) {
    if (!s) return NULL;
    jval *v = json_parse(s);
    CHECK(v != NULL, "%s is not JSON: %s", what, s);
    oh_hooks_string_free(s);
    return gc_json(v);
}

/* Engine from an exact options string; NULL (and a failed check) when creation fails. */
#define ENG_OPTS(opts) eng_opts_at(__FILE__, __LINE__, (opts))
OHT_FN OhHooks *eng_opts_at(const char *file, int line, const char *opts) {
    char *err = (char *)"sentinel";
    OhHooks *h = oh_hooks_new(opts, &err);
    if (!h) {
        pthread_mutex_lock(&oht_mu);
        printf("FAIL %s:%d: oh_hooks_new(%s) failed: %s\n", file, line, show(opts), err ? err : "(no error)");
        pthread_mutex_unlock(&oht_mu);
        oht_count(0);
        if (err) oh_hooks_string_free(err);
        return NULL;
    }
    oht_count(err == NULL);
    if (err) printf("FAIL %s:%d: oh_hooks_new succeeded but left *error_out non-NULL\n", file, line);
    return gc_add(h, gc_free_engine);
}
/* Engine with trusted:true, home and cwd = g_dir, the inline config and extra options (J-style). */
#define ENG(cfg, extra) ENG_OPTS(opts_for((cfg), (extra)))
OHT_FN char *opts_for(const char *cfg, const char *extra) {
    return xfmt("{\"trusted\":true,\"home\":%s,\"cwd\":%s%s%s%s%s}", q(g_dir), q(g_dir),
                cfg ? ",\"config\":" : "", cfg ? cfg : "", extra ? "," : "", extra ? J(extra) : "");
}

/* Expects oh_hooks_new to fail; returns the parsed error JSON (or NULL + failed check). */
#define NEW_ERROR(opts) new_error_at(__FILE__, __LINE__, (opts))
OHT_FN jval *new_error_at(const char *file, int line, const char *opts) {
    char *err = NULL;
    OhHooks *h = oh_hooks_new(opts, &err);
    if (h) {
        printf("FAIL %s:%d: oh_hooks_new(%s) succeeded, expected an error\n", file, line, show(opts));
        oht_count(0);
        oh_hooks_free(h);
        if (err) oh_hooks_string_free(err);
        return NULL;
    }
    oht_count(1);
    if (!err) {
        printf("FAIL %s:%d: oh_hooks_new(%s) returned NULL without an error\n", file, line, show(opts));
        oht_count(0);
        return NULL;
    }
    jval *v = json_parse(err);
    int ok = v && v->t == J_OBJ && json_str(json_get(v, "code")) && json_str(json_get(v, "message")) &&
             json_str(json_get(v, "message"))[0];
    if (!ok) {
        printf("FAIL %s:%d: error JSON lacks code/message: %s\n", file, line, err);
        oht_count(0);
    }
    oh_hooks_string_free(err);
    return gc_json(v);
}

/* Fires and parses; checks the invariant shape of every outcome (§4). */
#define FIRE(h, env) fire_at(__FILE__, __LINE__, (h), (env))
#define FIREJ(h, env) fire_at(__FILE__, __LINE__, (h), J(env))
OHT_FN jval *fire_at(const char *file, int line, const OhHooks *h, const char *env) {
    char *s = oh_hooks_fire(h, env);
    if (!s) {
        printf("FAIL %s:%d: oh_hooks_fire returned NULL\n", file, line);
        oht_count(0);
        return gc_json(json_parse("{\"allowed\":null,\"hooks\":null}"));
    }
    jval *v = json_parse(s);
    int ok = v && v->t == J_OBJ && json_get(v, "allowed") && json_get(v, "allowed")->t == J_BOOL &&
             json_get(v, "hooks") && json_get(v, "hooks")->t == J_ARR;
    if (ok) {
        jval *hooks = json_get(v, "hooks");
        for (size_t i = 0; i < hooks->len; i++) {
            jval *d = json_get(hooks->items[i], "durationMs");
            if (!d || d->t != J_NUM || d->n < 0) ok = 0;
        }
    }
    if (!ok) {
        printf("FAIL %s:%d: malformed outcome (allowed, hooks and every trace's durationMs required): %s\n",
               file, line, s);
        oht_count(0);
    } else {
        oht_count(1);
    }
    oh_hooks_string_free(s);
    if (!v) v = json_parse("{}");
    return gc_json(v);
}
/* Deletes durationMs from every trace (the one field that varies between runs). */
OHT_FN jval *strip_durations(jval *o) {
    jval *hooks = json_get(o, "hooks");
    if (hooks && hooks->t == J_ARR)
        for (size_t i = 0; i < hooks->len; i++) json_remove(hooks->items[i], "durationMs");
    return o;
}

/* Exact outcome check, durations ignored: CHECK_OUT(o, "{`allowed`:true,`hooks`:[]}").
 * Every macro below evaluates its arguments once (they may be FIRE(...) calls). */
#define CHECK_OUT(o, expected_tmpl)                                                            \
    do {                                                                                       \
        jval *oht_o = (o);                                                                     \
        jval *oht_e = gc_json(json_parse(J(expected_tmpl)));                                   \
        if (!oht_e) { CHECK(0, "bad expected JSON in test: %s", J(expected_tmpl)); break; }    \
        strip_durations(oht_e);                                                                \
        strip_durations(oht_o);                                                                \
        char *oht_got = gc_str(json_dump(oht_o)), *oht_want = gc_str(json_dump(oht_e));        \
        CHECK(json_equal(oht_o, oht_e), "outcome\n   got:  %s\n   want: %s", oht_got, oht_want); \
    } while (0)
#define CHECK_JSTR(v, path, want)                                                              \
    do {                                                                                       \
        jval *oht_v = (v);                                                                     \
        const char *oht_p = (path), *oht_w = (want);                                           \
        jval *oht_x = json_path(oht_v, oht_p);                                                 \
        const char *oht_g = json_str(oht_x);                                                   \
        char *oht_d = gc_str(json_dump(oht_v));                                                \
        CHECK(streq(oht_g, oht_w) && (oht_w || !oht_x), "%s: got %s (%s), want %s\n   in: %s", oht_p, \
              show(oht_g), json_typename(oht_x), show(oht_w), oht_d);                          \
    } while (0)
#define CHECK_ABSENT(v, path)                                                                  \
    do {                                                                                       \
        jval *oht_v = (v);                                                                     \
        const char *oht_p = (path);                                                            \
        char *oht_d = gc_str(json_dump(oht_v));                                                \
        CHECK(json_path(oht_v, oht_p) == NULL, "%s should be absent\n   in: %s", oht_p, oht_d); \
    } while (0)
#define CHECK_JBOOL(v, path, want)                                                             \
    do {                                                                                       \
        jval *oht_v = (v);                                                                     \
        const char *oht_p = (path);                                                            \
        int oht_w = !!(want);                                                                  \
        jval *oht_x = json_path(oht_v, oht_p);                                                 \
        char *oht_d = gc_str(json_dump(oht_v));                                                \
        CHECK(oht_x && oht_x->t == J_BOOL && !oht_x->b == !oht_w, "%s: want %s\n   in: %s", oht_p, \
              oht_w ? "true" : "false", oht_d);                                                \
    } while (0)
#define CHECK_JNUM(v, path, want)                                                              \
    do {                                                                                       \
        jval *oht_v = (v);                                                                     \
        const char *oht_p = (path);                                                            \
        double oht_w = (double)(want);                                                         \
        jval *oht_x = json_path(oht_v, oht_p);                                                 \
        char *oht_d = gc_str(json_dump(oht_v));                                                \
        CHECK(oht_x && oht_x->t == J_NUM && oht_x->n == oht_w, "%s: want %g\n   in: %s", oht_p, oht_w, oht_d); \
    } while (0)
#define CHECK_LEN(v, path, want)                                                               \
    do {                                                                                       \
        jval *oht_v = (v);                                                                     \
        const char *oht_p = (path);                                                            \
        int oht_w = (int)(want);                                                               \
        jval *oht_x = json_path(oht_v, oht_p);                                                 \
        char *oht_d = gc_str(json_dump(oht_v));                                                \
        CHECK(oht_x && (oht_x->t == J_ARR || oht_x->t == J_OBJ) && oht_x->len == (size_t)oht_w, \
              "%s: want %d entries\n   in: %s", oht_p, oht_w, oht_d);                        \
    } while (0)
/* An outcome that reports bad input: allowed false, hooks [], error.code = code, a message. */
#define CHECK_FIRE_ERROR(o, want_code)                                                          \
    do {                                                                                        \
        jval *oht_fo = (o);                                                                     \
        CHECK_JBOOL(oht_fo, "allowed", 0);                                                      \
        CHECK_LEN(oht_fo, "hooks", 0);                                                          \
        CHECK_JSTR(oht_fo, "error.code", (want_code));                                          \
        const char *oht_m = json_str(json_path(oht_fo, "error.message"));                       \
        char *oht_fd = gc_str(json_dump(oht_fo));                                               \
        CHECK(oht_m && oht_m[0], "error.message missing or empty: %s", oht_fd);                 \
        CHECK_ABSENT(oht_fo, "permissionDecision");                                             \
        CHECK_ABSENT(oht_fo, "additionalContext");                                              \
    } while (0)

/* ---------- hook and config builders ---------- */
/* env-mode command hook */
OHT_FN char *hk(const char *cmd) { return xfmt("{\"command\":%s}", q(cmd)); }
/* jsonIO command hook */
OHT_FN char *hkj(const char *cmd) { return xfmt("{\"command\":%s,\"jsonIO\":true}", q(cmd)); }
/* jsonIO hook that prints `resp` (no single quotes in it) */
OHT_FN char *hkr(const char *resp) { return hkj(xfmt("printf '%%s' '%s'", resp)); }
/* command hook plus extra keys written J-style: hkx("exit 1", "`match`:`Bash`") */
OHT_FN char *hkx(const char *cmd, const char *extra) { return xfmt("{\"command\":%s,%s}", q(cmd), J(extra)); }
/* {"hooks":{"<event>":[h1, h2, ...]}}, the list ends with NULL */
OHT_FN char *cfg(const char *event, ...) {
    va_list ap;
    va_start(ap, event);
    sbuf b = {0};
    sb_printf(&b, "{\"hooks\":{\"%s\":[", event);
    int first = 1;
    for (const char *h; (h = va_arg(ap, const char *));) {
        if (!first) sb_putc(&b, ',');
        sb_puts(&b, h);
        first = 0;
    }
    sb_puts(&b, "]}}");
    va_end(ap);
    return gc_str(sb_take(&b));
}

/* Value of NAME in a file written by `env -0 > file`; NULL when absent. */
OHT_FN const char *envfile_get(const char *content, size_t len, const char *name) {
    size_t nl = strlen(name);
    for (size_t i = 0; i < len;) {
        const char *e = content + i;
        size_t el = strnlen(e, len - i);
        if (el > nl && !memcmp(e, name, nl) && e[nl] == '=') return e + nl + 1;
        i += el + 1;
    }
    return NULL;
}

#endif
