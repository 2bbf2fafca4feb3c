/* test_vectors.c — runs every *.json file of tests/vectors (format: tests/vectors/README.md).
 * Usage: test_vectors <path to tests/vectors> */
#include "common.h"

#include <dirent.h>

static const char *g_vecdir;
static const char *g_name;

/* A callback a vector names: answers every call at once with its canned response, and keeps the
 * requests of the current fire (README of tests/vectors: "callbacks", "requests"). */
typedef struct {
    char *name;
    char *answer; /* NULL: oh_hooks_respond(call, NULL) */
    jval *requests; /* array of the requests of the current fire */
} VecCb;

/* waitNonBlocking runs hooks on several threads at once */
static pthread_mutex_t g_veccb_mu = PTHREAD_MUTEX_INITIALIZER;

static void veccb_fn(void *user, const char *request, OhHooksCall *call) {
    VecCb *c = user;
    jval *r = json_parse(request);
    CHECK(r != NULL, "%s: callback %s got a request that is not JSON: %s", g_name, c->name, request);
    pthread_mutex_lock(&g_veccb_mu);
    if (r) j_push(c->requests, NULL, 0, r);
    pthread_mutex_unlock(&g_veccb_mu);
    oh_hooks_respond(call, c->answer);
}
static void veccb_clear(VecCb *c) {
    pthread_mutex_lock(&g_veccb_mu);
    for (size_t i = 0; i < c->requests->len; i++) json_free(c->requests->items[i]);
    c->requests->len = 0;
    pthread_mutex_unlock(&g_veccb_mu);
}
static void veccb_release(void *user) {
    VecCb *c = user;
    free(c->name);
    free(c->answer);
    json_free(c->requests);
    free(c);
}

static int cmp_names(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* `s` with every `from` replaced by `to` (collected). */
static char *replace_all(const char *s, const char *from, const char *to) {
    size_t fl = strlen(from), tl = strlen(to), n = 0;
    for (const char *p = s; (p = strstr(p, from)); p += fl) n++;
    char *out = malloc(strlen(s) + n * tl + 1), *o = out;
    for (const char *p = s, *hit; ; p = hit + fl) {
        hit = strstr(p, from);
        size_t keep = hit ? (size_t)(hit - p) : strlen(p);
        memcpy(o, p, keep);
        o += keep;
        if (!hit) break;
        memcpy(o, to, tl);
        o += tl;
    }
    *o = 0;
    return gc_str(out);
}

static void run_vector(void) {
    char *path = xfmt("%s/%s", g_vecdir, g_name);
    size_t n = 0;
    char *text = read_file(path, &n);
    CHECK(text != NULL, "%s: cannot read", path);
    if (!text) return;
    /* Placeholders for a fresh home and cwd, where the vector's `files` are written. */
    char *home = newdir("vec-home"), *cwd = newdir("vec-cwd");
    text = replace_all(replace_all(text, "@HOME@", home), "@CWD@", cwd);
    n = strlen(text);
    char perr[200];
    jval *v = gc_json(json_parse_n(text, n, perr, sizeof perr));
    CHECK(v && v->t == J_OBJ, "%s: not a JSON object: %s", g_name, perr);
    if (!v || v->t != J_OBJ) return;
    CHECK(json_str(json_get(v, "description")) != NULL, "%s: no description", g_name);

    jval *files = json_get(v, "files");
    for (size_t i = 0; files && files->t == J_OBJ && i < files->len; i++) {
        const char *fpath = files->keys[i], *content = json_str(files->items[i]);
        CHECK(fpath[0] == '/' && content, "%s: files: each key is a path under @HOME@ or @CWD@, each value a string",
              g_name);
        if (fpath[0] != '/' || !content) continue;
        char *dir = xfmt("%s", fpath);
        *strrchr(dir, '/') = 0;
        mkdirs(dir);
        write_file(fpath, content);
    }
    jval *opts = json_get(v, "options");
    char *opts_s = opts && opts->t != J_NULL ? gc_str(json_dump(opts)) : NULL;
    jval *want_err = json_get(v, "newError");
    jval *fires = json_get(v, "fires");
    char *err = NULL;
    OhHooks *h = oh_hooks_new(opts_s, &err);
    if (want_err) {
        CHECK(fires == NULL, "%s: a vector with newError has no fires", g_name);
        CHECK(h == NULL, "%s: oh_hooks_new succeeded, expected %s", g_name, gc_str(json_dump(want_err)));
        jval *got = err ? gc_json(json_parse(err)) : NULL;
        CHECK(json_equal(got, want_err), "%s: newError\n   got:  %s\n   want: %s", g_name, show(err),
              gc_str(json_dump(want_err)));
        if (err) oh_hooks_string_free(err);
        if (h) oh_hooks_free(h);
        return;
    }
    CHECK(h != NULL, "%s: oh_hooks_new failed: %s", g_name, show(err));
    CHECK(err == NULL, "%s: *error_out not NULL on success", g_name);
    if (err) oh_hooks_string_free(err);
    if (!h) return;
    gc_add(h, gc_free_engine);
    jval *callbacks = json_get(v, "callbacks");
    CHECK(!callbacks || callbacks->t == J_OBJ, "%s: callbacks must be an object", g_name);
    VecCb *registered[32];
    size_t nreg = 0;
    for (size_t k = 0; callbacks && callbacks->t == J_OBJ && k < callbacks->len && nreg < 32; k++) {
        VecCb *c = calloc(1, sizeof *c);
        c->name = strdup(callbacks->keys[k]);
        jval *a = callbacks->items[k];
        c->answer = a->t == J_NULL ? NULL : a->t == J_STR ? strdup(a->s) : json_dump(a);
        c->requests = json_parse("[]");
        char *rerr = NULL;
        CHECK(oh_hooks_register(h, c->name, veccb_fn, c, veccb_release, &rerr) == 0, "%s: register %s: %s", g_name,
              c->name, show(rerr));
        oh_hooks_string_free(rerr);
        registered[nreg++] = c;
    }
    CHECK(fires && fires->t == J_ARR && fires->len > 0, "%s: no fires", g_name);
    if (!fires || fires->t != J_ARR) return;
    for (size_t i = 0; i < fires->len; i++) {
        jval *f = fires->items[i];
        jval *envelope = json_get(f, "envelope"), *raw = json_get(f, "raw"), *want = json_get(f, "outcome");
        CHECK(!envelope != !raw, "%s: fire %zu needs exactly one of envelope / raw", g_name, i);
        CHECK(want && want->t == J_OBJ, "%s: fire %zu has no outcome", g_name, i);
        if (!want || (!envelope && !raw)) continue;
        const char *input = envelope ? gc_str(json_dump(envelope)) : json_str(raw);
        CHECK(input != NULL, "%s: fire %zu: raw must be a string", g_name, i);
        if (!input) continue;
        for (size_t k = 0; k < nreg; k++) veccb_clear(registered[k]);
        char *out = oh_hooks_fire(h, input);
        jval *want_requests = json_get(f, "requests");
        for (size_t k = 0; want_requests && want_requests->t == J_OBJ && k < nreg; k++) {
            jval *w = json_get(want_requests, registered[k]->name);
            jval *empty = gc_json(json_parse("[]"));
            if (!w) w = empty;
            CHECK(json_equal(registered[k]->requests, w), "%s: fire %zu: requests to %s\n   got:  %s\n   want: %s", g_name, i,
                  registered[k]->name, gc_str(json_dump(registered[k]->requests)), gc_str(json_dump(w)));
        }
        CHECK(out != NULL, "%s: fire %zu returned NULL", g_name, i);
        if (!out) continue;
        jval *got = gc_json(json_parse(out));
        CHECK(got != NULL, "%s: fire %zu: outcome is not JSON: %s", g_name, i, out);
        if (got) {
            jval *hooks = json_get(got, "hooks");
            for (size_t k = 0; hooks && hooks->t == J_ARR && k < hooks->len; k++) {
                jval *d = json_get(hooks->items[k], "durationMs");
                CHECK(d && d->t == J_NUM, "%s: fire %zu: trace %zu has no durationMs", g_name, i, k);
            }
            strip_durations(got);
            strip_durations(want);
            CHECK(json_equal(got, want), "%s: fire %zu (%s)\n   got:  %s\n   want: %s", g_name, i, input,
                  gc_str(json_dump(got)), gc_str(json_dump(want)));
        }
        oh_hooks_string_free(out);
    }
}

int main(int argc, char **argv) {
    setup("test_vectors");
    setenv("HOME", g_dir, 1);
    if (argc != 2) {
        fprintf(stderr, "usage: %s <tests/vectors dir>\n", argv[0]);
        return 2;
    }
    static char absdir[4096];
    if (!realpath(argv[1], absdir)) {
        perror(argv[1]);
        return 2;
    }
    g_vecdir = absdir;
    DIR *d = opendir(g_vecdir);
    if (!d) {
        perror(g_vecdir);
        return 2;
    }
    char **names = NULL;
    size_t count = 0;
    for (struct dirent *e; (e = readdir(d));) {
        size_t l = strlen(e->d_name);
        if (l > 5 && !strcmp(e->d_name + l - 5, ".json")) {
            names = realloc(names, (count + 1) * sizeof *names);
            names[count++] = strdup(e->d_name);
        }
    }
    closedir(d);
    qsort(names, count, sizeof *names, cmp_names);
    if (chdir(g_dir)) return 2;
    CHECK(count >= 25, "expected at least 25 vectors in %s, found %zu", g_vecdir, count);
    for (size_t i = 0; i < count; i++) {
        g_name = names[i];
        oht_fn_fail = 0;
        run_vector();
        gc_collect();
        if (oht_fn_fail) printf("FAIL %s\n", names[i]);
        else printf("ok %s\n", names[i]);
        free(names[i]);
    }
    free(names);
    return DONE();
}
