/* test_vectors.c — runs every *.json file of tests/vectors (format: tests/vectors/README.md).
 * Usage: test_vectors <path to tests/vectors> */
#include "common.h"

#include <dirent.h>

static const char *g_vecdir;
static const char *g_name;

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
        char *out = oh_hooks_fire(h, input);
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
