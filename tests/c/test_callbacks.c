/* test_callbacks.c — host callbacks (docs/abi.md "Host callbacks"): callback hooks and their answers
 * (now, later, from another thread, never, twice), registration and release, the prompt
 * evaluator, re-entrant fires, the decision observer, asynchronous fire and cancellation, and
 * oh_hooks_free with work pending. */
#include "common.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/socket.h>

/* Frees an engine now (a test that checks what free does) and takes it off the gc list. */
static void gc_noop(void *p) { (void)p; }
static void free_now(OhHooks *h) {
    pthread_mutex_lock(&oht_gc_mu);
    for (size_t i = 0; i < oht_gc_len; i++)
        if (oht_gc[i].p == h) oht_gc[i].fn = gc_noop;
    pthread_mutex_unlock(&oht_gc_mu);
    oh_hooks_free(h);
}

/* ---------- a callback that answers with a canned response ---------- */
typedef struct {
    const char *answer;      /* NULL: answer "no decision" */
    int mode;                /* 0 now, 1 later from a thread, 2 never, 3 twice now, 4 raw */
    int delay_ms;
    atomic_int calls;
    atomic_int released;
    pthread_t caller;        /* thread the last call ran on */
    char *last_request;      /* owned copy of the last request */
    OhHooksCall *last_call;
    pthread_mutex_t mu;
} Cb;

static void cb_init(Cb *c, const char *answer, int mode) {
    memset(c, 0, sizeof *c);
    c->answer = answer;
    c->mode = mode;
    pthread_mutex_init(&c->mu, NULL);
}
static void cb_done(Cb *c) {
    free(c->last_request);
    pthread_mutex_destroy(&c->mu);
}
static void cb_release(void *p) { atomic_fetch_add(&((Cb *)p)->released, 1); }

typedef struct { OhHooksCall *call; const char *answer; int delay_ms; int twice; } Later;
static void *answer_later(void *p) {
    Later *l = p;
    sleep_ms(l->delay_ms);
    oh_hooks_respond(l->call, l->answer);
    if (l->twice) oh_hooks_respond(l->call, "{\"decision\":\"allow\"}");
    free(l);
    return NULL;
}

static void cb_fn(void *user, const char *request, OhHooksCall *call) {
    Cb *c = user;
    pthread_mutex_lock(&c->mu);
    free(c->last_request);
    c->last_request = strdup(request);
    c->last_call = call;
    c->caller = pthread_self();
    pthread_mutex_unlock(&c->mu);
    atomic_fetch_add(&c->calls, 1);
    if (c->mode == 0) {
        oh_hooks_respond(call, c->answer);
    } else if (c->mode == 3) {
        oh_hooks_respond(call, c->answer);
        oh_hooks_respond(call, "{\"decision\":\"allow\",\"reason\":\"second\"}");
    } else if (c->mode == 1) {
        Later *l = malloc(sizeof *l);
        *l = (Later){call, c->answer, c->delay_ms, 1};
        pthread_t t;
        pthread_create(&t, NULL, answer_later, l);
        pthread_detach(t);
    }
}

static char *cbcfg(const char *event, const char *name, const char *extra) {
    return xfmt("{\"hooks\":{\"%s\":[{\"callback\":\"%s\"%s%s}]}}", event, name, extra ? "," : "", extra ? J(extra) : "");
}

static void test_register_errors(void) {
    Cb c;
    cb_init(&c, "{}", 0);
    char *err = (char *)"sentinel";
    CHECK(oh_hooks_register(NULL, "x", cb_fn, &c, cb_release, &err) == -1, "NULL engine fails");
    jval *e = err ? gc_json(json_parse(err)) : NULL;
    CHECK_JSTR(e, "code", "null_argument");
    oh_hooks_string_free(err);
    OhHooks *h = ENG(J("{}"), NULL);
    if (!h) return;
    err = (char *)"sentinel";
    CHECK(oh_hooks_register(h, NULL, cb_fn, &c, cb_release, &err) == -1, "NULL name fails");
    CHECK_JSTR(err ? gc_json(json_parse(err)) : NULL, "code", "null_argument");
    oh_hooks_string_free(err);
    err = NULL;
    CHECK(oh_hooks_register(h, "", cb_fn, &c, cb_release, &err) == -1, "empty name fails");
    CHECK_JSTR(err ? gc_json(json_parse(err)) : NULL, "code", "invalid_options");
    oh_hooks_string_free(err);
    err = NULL;
    CHECK(oh_hooks_register(h, "\xff", cb_fn, &c, cb_release, &err) == -1, "a name that is not UTF-8 fails");
    CHECK_JSTR(err ? gc_json(json_parse(err)) : NULL, "code", "invalid_utf8");
    oh_hooks_string_free(err);
    CHECK(atomic_load(&c.released) == 0, "a failed registration keeps nothing and releases nothing");
    err = (char *)"sentinel";
    CHECK(oh_hooks_register(h, "ok", cb_fn, &c, NULL, &err) == 0 && err == NULL, "success writes NULL to error_out");
    CHECK(oh_hooks_register(h, "ok", cb_fn, &c, NULL, NULL) == 0, "error_out may be NULL");
    err = (char *)"sentinel";
    CHECK(oh_hooks_observe(NULL, NULL, NULL, NULL, &err) == -1, "observe on NULL fails");
    oh_hooks_string_free(err);
    CHECK(oh_hooks_cancel(NULL, 1) == -1, "cancel on NULL fails");
    CHECK(oh_hooks_cancel(h, 987654) == 0, "cancelling an unknown fire does nothing");
    oh_hooks_respond(NULL, "{}");
    oh_hooks_respond((OhHooksCall *)(uintptr_t)0x1000, "{\"decision\":\"deny\"}");
    oh_hooks_respond((OhHooksCall *)(uintptr_t)0xc000001, NULL);
    CHECK(1, "answering a call that never existed is ignored");
    cb_done(&c);
}

static void test_answer_now_on_calling_thread(void) {
    char *dir = newdir("stdin");
    char *stdin_file = xfmt("%s/stdin.json", dir);
    /* a jsonIO hook that saves its stdin, then the callback: the callback must get the same bytes */
    char *config = xfmt("{\"hooks\":{\"preToolUse\":[{\"command\":%s,\"jsonIO\":true},{\"callback\":\"canUseTool\"}]}}",
                        q(xfmt("cat > %s", stdin_file)));
    OhHooks *h = ENG(config, NULL);
    Cb c;
    cb_init(&c, "{\"decision\":\"deny\",\"reason\":\"not today\"}", 0);
    if (!h) return;
    CHECK(oh_hooks_register(h, "canUseTool", cb_fn, &c, cb_release, NULL) == 0, "register");
    jval *o = FIREJ(h, "{`event`:`preToolUse`,`toolName`:`Bash`,`toolArgs`:`ls`,`n`:1.5,`x`:{`y`:[1,2]}}");
    CHECK_JBOOL(o, "allowed", 0);
    CHECK_JSTR(o, "reason", "not today");
    CHECK_JSTR(o, "hooks.1.type", "callback");
    CHECK_JSTR(o, "hooks.1.result", "deny");
    CHECK_JBOOL(o, "hooks.1.timedOut", 0);
    CHECK_ABSENT(o, "hooks.1.jsonIO");
    CHECK(atomic_load(&c.calls) == 1, "called once, got %d", atomic_load(&c.calls));
    CHECK(pthread_equal(c.caller, pthread_self()), "a synchronous fire calls the callback on the calling thread");
    const char *saved = read_file(stdin_file, NULL);
    CHECK(saved && c.last_request && !strcmp(saved, c.last_request), "the request is the jsonIO stdin\n  stdin: %s\n  request: %s",
          show(saved), show(c.last_request));
    /* answers are read like jsonIO responses */
    const char *cases[][3] = {
        {"{\"hookSpecificOutput\":{\"decision\":\"allow\",\"additionalContext\":\"ctx\"}}", "true", "allow"},
        {"{\"hookSpecificOutput\":{\"decision\":\"ask\"}}", "true", "ask"},
        {"  ", "true", "none"},
        {"not json", "true", "none"},
        {"[1]", "true", "none"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        c.answer = cases[i][0];
        jval *r = FIREJ(h, "{`event`:`preToolUse`,`toolName`:`Bash`}");
        CHECK_JBOOL(r, "allowed", !strcmp(cases[i][1], "true"));
        CHECK_JSTR(r, "hooks.1.result", cases[i][2]);
    }
    c.answer = NULL;
    jval *r = FIREJ(h, "{`event`:`preToolUse`,`toolName`:`Bash`}");
    CHECK_JSTR(r, "hooks.1.result", "none");
    CHECK_JBOOL(r, "allowed", 1);
    free_now(h);
    CHECK(atomic_load(&c.released) == 1, "free releases the registration once, got %d", atomic_load(&c.released));
    cb_done(&c);
}

static void test_strict_and_caps(void) {
    OhHooks *h = ENG(cbcfg("preToolUse", "f", NULL), "`strict`:true,`maxOutputBytes`:16");
    Cb c;
    cb_init(&c, "not json", 0);
    if (!h) return;
    oh_hooks_register(h, "f", cb_fn, &c, NULL, NULL);
    jval *o = FIREJ(h, "{`event`:`preToolUse`}");
    CHECK_JBOOL(o, "allowed", 0);
    CHECK_JSTR(o, "reason", "malformed hook response");
    c.answer = "{\"decision\":\"allow\",\"reason\":\"this is far too long\"}";
    o = FIREJ(h, "{`event`:`preToolUse`}");
    CHECK_JSTR(o, "reason", "hook output exceeded maxOutputBytes");
    cb_done(&c);
}

static void test_not_registered(void) {
    OhHooks *h = ENG(cbcfg("preToolUse", "canUseTool", NULL), NULL);
    if (!h) return;
    jval *o = FIREJ(h, "{`event`:`preToolUse`,`toolName`:`Bash`}");
    CHECK_OUT(o, "{`allowed`:false,`reason`:`no callback registered for canUseTool`,`hooks`:[{`index`:0,`type`:`callback`,"
                 "`result`:`deny`,`reason`:`no callback registered for canUseTool`,`error`:`no callback registered for canUseTool`}]}");
    /* registering then removing (NULL fn) brings the failure back; the removed one is released */
    Cb c;
    cb_init(&c, "{}", 0);
    oh_hooks_register(h, "canUseTool", cb_fn, &c, cb_release, NULL);
    CHECK_JBOOL(FIREJ(h, "{`event`:`preToolUse`,`toolName`:`Bash`}"), "allowed", 1);
    oh_hooks_register(h, "canUseTool", NULL, NULL, NULL, NULL);
    CHECK(atomic_load(&c.released) == 1, "removal releases");
    CHECK_JSTR(FIREJ(h, "{`event`:`preToolUse`,`toolName`:`Bash`}"), "reason", "no callback registered for canUseTool");
    cb_done(&c);
}

static void test_never_trust_gated(void) {
    /* trusted:false: command hooks of this engine are gated, callback hooks are not */
    OhHooks *h = ENG_OPTS(xfmt("{\"trusted\":false,\"home\":%s,\"cwd\":%s,\"config\":%s}", q(g_dir), q(g_dir),
                               cbcfg("preToolUse", "f", NULL)));
    Cb c;
    cb_init(&c, "{\"decision\":\"deny\",\"reason\":\"host says no\"}", 0);
    if (!h) return;
    oh_hooks_register(h, "f", cb_fn, &c, NULL, NULL);
    jval *o = FIREJ(h, "{`event`:`preToolUse`}");
    CHECK_JSTR(o, "reason", "host says no");
    cb_done(&c);
}

static void test_answer_later_from_another_thread(void) {
    OhHooks *h = ENG(cbcfg("preToolUse", "slow", "`timeout`:5000"), NULL);
    Cb c;
    cb_init(&c, "{\"decision\":\"deny\",\"reason\":\"later\"}", 1);
    c.delay_ms = 80;
    if (!h) return;
    oh_hooks_register(h, "slow", cb_fn, &c, NULL, NULL);
    double t0 = now_ms();
    jval *o = FIREJ(h, "{`event`:`preToolUse`}");
    double dt = now_ms() - t0;
    CHECK_JSTR(o, "reason", "later");
    CHECK(dt >= 75 && dt < 80 + slack(), "the fire waited for the answer: %.0f ms", dt);
    /* the helper thread answers twice: the second is ignored; wait until it has run */
    sleep_ms(50);
    cb_done(&c);
}

static void test_never_answered_times_out(void) {
    OhHooks *h = ENG(cbcfg("preToolUse", "mute", "`timeout`:150"), NULL);
    Cb c;
    cb_init(&c, NULL, 2);
    if (!h) return;
    oh_hooks_register(h, "mute", cb_fn, &c, NULL, NULL);
    double t0 = now_ms();
    jval *o = FIREJ(h, "{`event`:`preToolUse`}");
    double dt = now_ms() - t0;
    CHECK_JBOOL(o, "allowed", 0);
    CHECK_JSTR(o, "reason", "hook failed (timeout or non-zero exit)");
    CHECK_JBOOL(o, "hooks.0.timedOut", 1);
    CHECK_JSTR(o, "hooks.0.error", "no answer within 150 ms");
    CHECK(dt >= 145 && dt < 150 + slack(), "bounded by the hook's timeout: %.0f ms", dt);
    /* the late answer is accepted and dropped, twice over */
    oh_hooks_respond(c.last_call, "{\"decision\":\"allow\"}");
    oh_hooks_respond(c.last_call, "{\"decision\":\"allow\"}");
    /* a call never answered before free is forgotten by free: answering it after is ignored */
    CHECK_JBOOL(FIREJ(h, "{`event`:`preToolUse`}"), "allowed", 0);
    OhHooksCall *orphan = c.last_call;
    free_now(h);
    oh_hooks_respond(orphan, "{\"decision\":\"allow\"}");
    CHECK(1, "answering after free is ignored");
    cb_done(&c);
}

static void test_answer_twice(void) {
    OhHooks *h = ENG(cbcfg("preToolUse", "twice", NULL), NULL);
    Cb c;
    cb_init(&c, "{\"decision\":\"deny\",\"reason\":\"first\"}", 3);
    if (!h) return;
    oh_hooks_register(h, "twice", cb_fn, &c, NULL, NULL);
    for (int i = 0; i < 50; i++) CHECK_JSTR(FIREJ(h, "{`event`:`preToolUse`}"), "reason", "first");
    oh_hooks_respond(c.last_call, "{}");
    cb_done(&c);
}

/* ---------- re-entrancy ---------- */
typedef struct { OhHooks *h; atomic_int depth; } Reenter;
static void reenter_fn(void *user, const char *request, OhHooksCall *call) {
    (void)request;
    Reenter *r = user;
    atomic_fetch_add(&r->depth, 1);
    /* a fire on the same engine from inside the callback: its own callback answers at once */
    char *inner = oh_hooks_fire(r->h, "{\"event\":\"userPromptSubmit\",\"prompt\":\"hi\"}");
    int denied = inner && strstr(inner, "\"allowed\":false") != NULL;
    oh_hooks_string_free(inner);
    oh_hooks_respond(call, denied ? "{\"decision\":\"deny\",\"reason\":\"inner fire denied\"}" : "{}");
}

static void test_reentrant_fire(void) {
    OhHooks *h = ENG(J("{`hooks`:{`preToolUse`:[{`callback`:`outer`}],`userPromptSubmit`:[{`callback`:`inner`}]}}"), NULL);
    Cb inner;
    cb_init(&inner, "{\"decision\":\"deny\"}", 0);
    Reenter r = {h, 0};
    if (!h) return;
    oh_hooks_register(h, "outer", reenter_fn, &r, NULL, NULL);
    oh_hooks_register(h, "inner", cb_fn, &inner, NULL, NULL);
    jval *o = FIREJ(h, "{`event`:`preToolUse`}");
    CHECK_JSTR(o, "reason", "inner fire denied");
    CHECK(atomic_load(&r.depth) == 1 && atomic_load(&inner.calls) == 1, "both callbacks ran");
    cb_done(&inner);
}

/* a callback that re-registers itself (replacing the running registration) */
static atomic_int g_replaced_release;
static void count_release(void *p) { (void)p; atomic_fetch_add(&g_replaced_release, 1); }
static OhHooks *g_self_h;
static void replace_self(void *user, const char *request, OhHooksCall *call) {
    (void)request;
    oh_hooks_register(g_self_h, "self", replace_self, user, count_release, NULL);
    /* the registration running now has been replaced and released... after this call returns */
    oh_hooks_respond(call, atomic_load(&g_replaced_release) == 0 ? "{\"decision\":\"deny\",\"reason\":\"still alive\"}" : "{}");
}

static void test_replace_while_running(void) {
    OhHooks *h = ENG(cbcfg("preToolUse", "self", NULL), NULL);
    if (!h) return;
    g_self_h = h;
    atomic_store(&g_replaced_release, 0);
    oh_hooks_register(h, "self", replace_self, NULL, count_release, NULL);
    CHECK_JSTR(FIREJ(h, "{`event`:`preToolUse`}"), "reason", "still alive");
    CHECK(atomic_load(&g_replaced_release) == 1, "the replaced registration is released once its call returned");
    free_now(h);
    CHECK(atomic_load(&g_replaced_release) == 2, "free releases the last one");
}

/* ---------- the prompt evaluator ---------- */
static void test_prompt_evaluator(void) {
    OhHooks *h = ENG(J("{`hooks`:{`preToolUse`:[{`prompt`:`Is \\\"rm\\\" safe?`,`timeout`:2000}]}}"), NULL);
    if (!h) return;
    CHECK_JSTR(FIREJ(h, "{`event`:`preToolUse`,`toolName`:`Bash`}"), "reason", "prompt hook has no evaluator");
    Cb c;
    cb_init(&c, "{\"decision\":\"deny\",\"reason\":\"the model says no\"}", 0);
    oh_hooks_register(h, "prompt", cb_fn, &c, NULL, NULL);
    jval *o = FIREJ(h, "{`event`:`preToolUse`,`toolName`:`Bash`}");
    CHECK_JSTR(o, "reason", "the model says no");
    CHECK_JSTR(o, "hooks.0.type", "prompt");
    jval *req = c.last_request ? gc_json(json_parse(c.last_request)) : NULL;
    CHECK_JSTR(req, "prompt", "Is \"rm\" safe?");
    CHECK_JSTR(req, "envelope.event", "preToolUse");
    CHECK_JSTR(req, "envelope.toolName", "Bash");
    CHECK_LEN(req, "", 2);
    cb_done(&c);
}

/* ---------- the observer ---------- */
typedef struct {
    pthread_mutex_t mu;
    char *records[64];
    int n;
    atomic_int released;
} Obs;
static void obs_fn(void *user, const char *record) {
    Obs *o = user;
    pthread_mutex_lock(&o->mu);
    if (o->n < 64) o->records[o->n++] = strdup(record);
    pthread_mutex_unlock(&o->mu);
}
static void obs_release(void *user) { atomic_fetch_add(&((Obs *)user)->released, 1); }
static void obs_clear(Obs *o) {
    for (int i = 0; i < o->n; i++) free(o->records[i]);
    o->n = 0;
}
static jval *obs_take(Obs *o, int i) {
    pthread_mutex_lock(&o->mu);
    jval *v = i < o->n ? gc_json(json_parse(o->records[i])) : NULL;
    pthread_mutex_unlock(&o->mu);
    CHECK(v != NULL, "record %d missing", i);
    return v;
}
static int obs_count(Obs *o) {
    pthread_mutex_lock(&o->mu);
    int n = o->n;
    pthread_mutex_unlock(&o->mu);
    return n;
}

static void test_observer(void) {
    char *config = J("{`hooks`:{`preToolUse`:[{`callback`:`f`,`match`:`Bash`}],"
                     "`postToolUse`:[{`command`:`sleep 0.2; echo a >&2`},{`command`:`exit 3`}]}}");
    OhHooks *h = ENG(config, NULL);
    Cb c;
    cb_init(&c, "{\"decision\":\"deny\",\"reason\":\"no\"}", 0);
    Obs ob = {.mu = PTHREAD_MUTEX_INITIALIZER};
    if (!h) return;
    oh_hooks_register(h, "f", cb_fn, &c, NULL, NULL);
    CHECK(oh_hooks_observe(h, obs_fn, &ob, obs_release, NULL) == 0, "observe");
    char *out = oh_hooks_fire(h, "{\"event\":\"preToolUse\",\"toolName\":\"Bash\",\"z\":1}");
    CHECK(obs_count(&ob) == 1, "one record once the fire returned");
    jval *r = obs_take(&ob, 0);
    CHECK_OUT(json_get(r, "outcome"), "{`allowed`:false,`reason`:`no`,`hooks`:[{`index`:0,`type`:`callback`,`timedOut`:false,`result`:`deny`,`reason`:`no`}]}");
    jval *same = gc_json(json_parse(out));
    CHECK(json_equal(strip_durations(json_get(obs_take(&ob, 0), "outcome")), strip_durations(same)), "the record's outcome is the fire's");
    oh_hooks_string_free(out);
    CHECK_JSTR(r, "envelope.event", "preToolUse");
    CHECK_JNUM(r, "envelope.z", 1);
    /* no match, bad input: one record each */
    oh_hooks_string_free(oh_hooks_fire(h, "{\"event\":\"preToolUse\",\"toolName\":\"Read\"}"));
    oh_hooks_string_free(oh_hooks_fire(h, "{not json"));
    CHECK(obs_count(&ob) == 3, "a record for every fire, got %d", obs_count(&ob));
    CHECK_JSTR(obs_take(&ob, 1), "envelope.toolName", "Read");
    CHECK_OUT(json_get(obs_take(&ob, 1), "outcome"), "{`allowed`:true,`hooks`:[]}");
    jval *bad = obs_take(&ob, 2);
    CHECK(json_get(bad, "envelope") && json_get(bad, "envelope")->t == J_NULL, "bad input: envelope null");
    CHECK_JSTR(bad, "outcome.error.code", "invalid_envelope");
    /* background hooks: the record comes when both finished, with both traces */
    double t0 = now_ms();
    oh_hooks_string_free(oh_hooks_fire(h, "{\"event\":\"postToolUse\",\"toolName\":\"Bash\"}"));
    CHECK(obs_count(&ob) == 3 || now_ms() - t0 > 150, "no record before the background hooks end");
    for (int i = 0; i < 200 && obs_count(&ob) < 4; i++) sleep_ms(10);
    CHECK(obs_count(&ob) == 4, "one record after the background hooks");
    jval *bg = obs_take(&ob, 3);
    CHECK_JBOOL(bg, "outcome.allowed", 1);
    CHECK_LEN(bg, "outcome.hooks", 2);
    CHECK_JNUM(bg, "outcome.hooks.0.exitCode", 0);
    CHECK_JSTR(bg, "outcome.hooks.0.stderr", "a\n");
    CHECK_JNUM(bg, "outcome.hooks.1.exitCode", 3);
    /* replacing releases the old observer; NULL stops */
    Obs ob2 = {.mu = PTHREAD_MUTEX_INITIALIZER};
    oh_hooks_observe(h, obs_fn, &ob2, obs_release, NULL);
    CHECK(atomic_load(&ob.released) == 1, "replaced observer released");
    oh_hooks_observe(h, NULL, NULL, NULL, NULL);
    CHECK(atomic_load(&ob2.released) == 1, "stopped observer released");
    oh_hooks_string_free(oh_hooks_fire(h, "{\"event\":\"preToolUse\"}"));
    CHECK(obs_count(&ob) == 4 && obs_count(&ob2) == 0, "no records after stopping");
    obs_clear(&ob);
    obs_clear(&ob2);
    cb_done(&c);
}

/* ---------- asynchronous fire ---------- */
typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int calls;
    char *outcome;
    pthread_t thread;
} Done;
static void done_init(Done *d) {
    memset(d, 0, sizeof *d);
    pthread_mutex_init(&d->mu, NULL);
    pthread_cond_init(&d->cv, NULL);
}
static void done_fn(void *user, char *outcome) {
    Done *d = user;
    pthread_mutex_lock(&d->mu);
    d->calls++;
    if (d->outcome) oh_hooks_string_free(d->outcome);
    d->outcome = outcome;
    d->thread = pthread_self();
    pthread_cond_broadcast(&d->cv);
    pthread_mutex_unlock(&d->mu);
}
/* Waits for done; returns the parsed outcome (NULL and a failed check on timeout). */
static jval *done_wait(Done *d, int ms) {
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += ms / 1000;
    until.tv_nsec += (long)(ms % 1000) * 1000000L;
    if (until.tv_nsec >= 1000000000L) until.tv_sec++, until.tv_nsec -= 1000000000L;
    pthread_mutex_lock(&d->mu);
    while (!d->calls && pthread_cond_timedwait(&d->cv, &d->mu, &until) == 0) {}
    jval *v = d->outcome ? gc_json(json_parse(d->outcome)) : NULL;
    pthread_mutex_unlock(&d->mu);
    CHECK(v != NULL, "done was not called within %d ms", ms);
    return v;
}
static void done_free(Done *d) {
    oh_hooks_string_free(d->outcome);
    pthread_mutex_destroy(&d->mu);
    pthread_cond_destroy(&d->cv);
}

static void test_async_fire(void) {
    OhHooks *h = ENG(J("{`hooks`:{`preToolUse`:[{`command`:`exit 1`,`match`:`Bash`}]}}"), NULL);
    if (!h) return;
    Done a, b, c;
    done_init(&a);
    done_init(&b);
    done_init(&c);
    uint64_t ia = oh_hooks_fire_async(h, "{\"event\":\"preToolUse\",\"toolName\":\"Bash\"}", done_fn, &a);
    uint64_t ib = oh_hooks_fire_async(h, "{\"event\":\"preToolUse\",\"toolName\":\"Read\"}", done_fn, &b);
    uint64_t ic = oh_hooks_fire_async(h, NULL, done_fn, &c);
    CHECK(ia && ib && ic && ia != ib && ib != ic, "distinct non-zero ids");
    jval *oa = done_wait(&a, 5000), *ob = done_wait(&b, 5000), *oc = done_wait(&c, 5000);
    CHECK_JSTR(oa, "reason", "hook denied (exit code)");
    CHECK_OUT(ob, "{`allowed`:true,`hooks`:[]}");
    CHECK_JSTR(oc, "error.code", "null_argument");
    CHECK(!pthread_equal(a.thread, pthread_self()) && !pthread_equal(c.thread, pthread_self()), "done runs on an engine thread");
    CHECK(oh_hooks_cancel(h, ia) == 0, "cancelling a finished fire does nothing");
    sleep_ms(20);
    CHECK(a.calls == 1 && b.calls == 1 && c.calls == 1, "done exactly once");
    CHECK_JSTR(done_wait(&a, 10), "reason", "hook denied (exit code)");
    /* NULL engine: done at once, on this thread, id 0 */
    Done n;
    done_init(&n);
    CHECK(oh_hooks_fire_async(NULL, "{}", done_fn, &n) == 0, "no fire without an engine");
    CHECK(n.calls == 1 && pthread_equal(n.thread, pthread_self()), "done called at once");
    CHECK_JSTR(done_wait(&n, 10), "error.code", "null_argument");
    /* NULL done: fire and forget */
    oh_hooks_fire_async(h, "{\"event\":\"preToolUse\",\"toolName\":\"Bash\"}", NULL, NULL);
    done_free(&a);
    done_free(&b);
    done_free(&c);
    done_free(&n);
}

/* Alive and not a zombie (a zombie grandchild waits for PID 1 to reap it). */
static int pid_alive(pid_t pid) {
    char p[64], buf[512];
    snprintf(p, sizeof p, "/proc/%ld/stat", (long)pid);
    FILE *f = fopen(p, "r");
    if (!f) return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    char *rp = strrchr(buf, ')');
    return !(rp && rp[1] == ' ' && (rp[2] == 'Z' || rp[2] == 'X'));
}

static void test_cancel_kills_the_group(void) {
    char *dir = newdir("cancel");
    char *pidfile = xfmt("%s/pid", dir);
    /* a shell and a grandchild in its group, both ignoring nothing; the hook's timeout is long */
    OhHooks *h = ENG(xfmt("{\"hooks\":{\"preToolUse\":[{\"command\":%s,\"timeout\":60000}]}}",
                          q(xfmt("sleep 30 & echo $! > %s; wait", pidfile))),
                     NULL);
    if (!h) return;
    Done d;
    done_init(&d);
    uint64_t id = oh_hooks_fire_async(h, "{\"event\":\"preToolUse\"}", done_fn, &d);
    CHECK(wait_for_file(pidfile, 3000), "the hook started");
    sleep_ms(30);
    const char *text = read_file(pidfile, NULL);
    pid_t child = text ? (pid_t)atoi(text) : 0;
    double t0 = now_ms();
    CHECK(oh_hooks_cancel(h, id) == 0, "cancel");
    jval *o = done_wait(&d, 3000);
    double dt = now_ms() - t0;
    /* 1.2 (issue 22): the hook the cancel stopped is traced with result "cancelled" (before, the
       outcome had hooks: [], so an audit log could not name it). */
    CHECK_JSTR(o, "hooks.0.result", "cancelled");
    CHECK_JSTR(o, "hooks.0.type", "command");
    CHECK_ABSENT(o, "hooks.1");
    if (o) json_remove(o, "hooks");
    CHECK_OUT(o, "{`allowed`:false,`error`:{`code`:`cancelled`,`message`:`the fire was cancelled (oh_hooks_cancel) before it completed`}}");
    CHECK(dt < 600 + slack(), "done soon after cancel: %.0f ms", dt);
    CHECK(child > 0 && !pid_alive(child), "the hook's grandchild %d was killed with its group", (int)child);
    CHECK(oh_hooks_cancel(h, id) == 0, "cancelling again does nothing");
    sleep_ms(20);
    CHECK(d.calls == 1, "done once");
    done_free(&d);
}

static void test_cancel_callback_wait(void) {
    OhHooks *h = ENG(cbcfg("permissionRequest", "mute", "`timeout`:60000"), NULL);
    Cb c;
    cb_init(&c, NULL, 2);
    if (!h) return;
    oh_hooks_register(h, "mute", cb_fn, &c, NULL, NULL);
    Done d;
    done_init(&d);
    uint64_t id = oh_hooks_fire_async(h, "{\"event\":\"permissionRequest\"}", done_fn, &d);
    for (int i = 0; i < 300 && atomic_load(&c.calls) == 0; i++) sleep_ms(5);
    CHECK(atomic_load(&c.calls) == 1, "the callback was called");
    CHECK(!pthread_equal(c.caller, pthread_self()), "an async fire calls back on an engine thread");
    double t0 = now_ms();
    oh_hooks_cancel(h, id);
    jval *o = done_wait(&d, 2000);
    CHECK(now_ms() - t0 < 100 + slack(), "a pending callback is dropped at once");
    CHECK_JSTR(o, "error.code", "cancelled");
    CHECK_JBOOL(o, "allowed", 0);
    oh_hooks_respond(c.last_call, "{\"decision\":\"allow\"}");
    CHECK(1, "its late answer is ignored");
    done_free(&d);
    cb_done(&c);
}

/* an HTTP hook waiting on a server that never answers: cancel ends the wait */
static void test_cancel_http_wait(void) {
    int srv = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t al = sizeof a;
    CHECK(srv >= 0 && bind(srv, (struct sockaddr *)&a, sizeof a) == 0 && listen(srv, 8) == 0 &&
              getsockname(srv, (struct sockaddr *)&a, &al) == 0,
          "a loopback listener");
    /* the kernel completes the handshake from the backlog; nobody ever reads or answers */
    OhHooks *h = ENG(xfmt("{\"hooks\":{\"preToolUse\":[{\"http\":\"http://127.0.0.1:%d/hook\",\"timeout\":60000}]}}",
                          ntohs(a.sin_port)),
                     NULL);
    if (!h) {
        close(srv);
        return;
    }
    Done d;
    done_init(&d);
    uint64_t id = oh_hooks_fire_async(h, "{\"event\":\"preToolUse\"}", done_fn, &d);
    sleep_ms(150);
    CHECK(d.calls == 0, "still waiting for the server");
    double t0 = now_ms();
    oh_hooks_cancel(h, id);
    jval *o = done_wait(&d, 3000);
    double dt = now_ms() - t0;
    CHECK_JSTR(o, "error.code", "cancelled");
    CHECK(dt < 100 + slack(), "the HTTP wait ended %.0f ms after cancel", dt);
    done_free(&d);
    close(srv);
}

/* a persistent hook whose worker reads the envelope and never answers: cancel ends the wait and
 * the worker is killed (a fresh one serves the next request) */
static void test_cancel_persistent_wait(void) {
    char *dir = newdir("pers");
    char *pidfile = xfmt("%s/pid", dir);
    OhHooks *h = ENG(xfmt("{\"hooks\":{\"preToolUse\":[{\"command\":%s,\"persistent\":true,\"timeout\":60000}]}}",
                          q(xfmt("echo $$ > %s; while read line; do :; done", pidfile))),
                     NULL);
    if (!h) return;
    Done d;
    done_init(&d);
    uint64_t id = oh_hooks_fire_async(h, "{\"event\":\"preToolUse\"}", done_fn, &d);
    CHECK(wait_for_file(pidfile, 3000), "the worker started");
    sleep_ms(100);
    const char *text = read_file(pidfile, NULL);
    pid_t worker = text ? (pid_t)atoi(text) : 0;
    CHECK(d.calls == 0, "still waiting for the worker's answer");
    double t0 = now_ms();
    oh_hooks_cancel(h, id);
    jval *o = done_wait(&d, 3000);
    CHECK(now_ms() - t0 < 600 + slack(), "done soon after cancel: %.0f ms", now_ms() - t0);
    CHECK_JSTR(o, "error.code", "cancelled");
    for (int i = 0; i < 100 && worker > 0 && pid_alive(worker); i++) sleep_ms(10);
    CHECK(worker > 0 && !pid_alive(worker), "the worker %d was killed", (int)worker);
    done_free(&d);
}

/* a fire cancelled while it waits for an engine thread starts nothing, background hooks included */
static void test_cancel_queued_fire(void) {
    char *dir = newdir("queued");
    char *marker = xfmt("%s/ran", dir);
    OhHooks *h = ENG(xfmt("{\"hooks\":{\"preToolUse\":[{\"callback\":\"mute\",\"timeout\":400}],"
                          "\"postToolUse\":[{\"command\":%s}]}}",
                          q(xfmt("touch %s", marker))),
                     NULL);
    Cb c;
    cb_init(&c, NULL, 2);
    if (!h) return;
    oh_hooks_register(h, "mute", cb_fn, &c, NULL, NULL);
    enum { BUSY = 8 };
    Done busy[BUSY], d;
    for (int i = 0; i < BUSY; i++) {
        done_init(&busy[i]);
        oh_hooks_fire_async(h, "{\"event\":\"preToolUse\"}", done_fn, &busy[i]);
    }
    for (int i = 0; i < 300 && atomic_load(&c.calls) < BUSY; i++) sleep_ms(5);
    CHECK(atomic_load(&c.calls) == BUSY, "every engine thread is busy (%d)", atomic_load(&c.calls));
    done_init(&d);
    uint64_t id = oh_hooks_fire_async(h, "{\"event\":\"postToolUse\"}", done_fn, &d);
    oh_hooks_cancel(h, id);
    CHECK_JSTR(done_wait(&d, 3000), "error.code", "cancelled");
    for (int i = 0; i < BUSY; i++) CHECK_JSTR(done_wait(&busy[i], 3000), "reason", "hook failed (timeout or non-zero exit)");
    sleep_ms(100);
    CHECK(!file_exists(marker), "the cancelled fire's background hook never ran");
    for (int i = 0; i < BUSY; i++) done_free(&busy[i]);
    done_free(&d);
    cb_done(&c);
}

#define RACE 200
static void test_cancel_races_completion(void) {
    OhHooks *h = ENG(cbcfg("preToolUse", "now", NULL), NULL);
    Cb c;
    cb_init(&c, "{\"decision\":\"deny\",\"reason\":\"done\"}", 0);
    if (!h) return;
    oh_hooks_register(h, "now", cb_fn, &c, NULL, NULL);
    Done *d = calloc(RACE, sizeof *d);
    uint64_t ids[RACE];
    for (int i = 0; i < RACE; i++) {
        done_init(&d[i]);
        ids[i] = oh_hooks_fire_async(h, "{\"event\":\"preToolUse\"}", done_fn, &d[i]);
        if (i % 3 == 0) oh_hooks_cancel(h, ids[i]);
        if (i % 7 == 0) sched_yield();
        if (i % 3 == 1) oh_hooks_cancel(h, ids[i - 1]);
    }
    int cancelled = 0, completed = 0, other = 0;
    for (int i = 0; i < RACE; i++) {
        jval *o = done_wait(&d[i], 10000);
        const char *code = json_str(json_path(o, "error.code"));
        const char *reason = json_str(json_path(o, "reason"));
        if (code && !strcmp(code, "cancelled")) cancelled++;
        else if (reason && !strcmp(reason, "done")) completed++;
        else other++;
        CHECK(i % 3 != 2 || (reason && !strcmp(reason, "done")), "fire %d was never cancelled", i);
    }
    sleep_ms(20);
    int twice = 0;
    for (int i = 0; i < RACE; i++) twice += d[i].calls != 1;
    CHECK(twice == 0, "%d fires called done other than once", twice);
    CHECK(other == 0 && cancelled + completed == RACE, "every outcome is cancelled or the real one (%d, %d, %d)", cancelled,
          completed, other);
    printf("   cancel race: %d cancelled, %d completed first\n", cancelled, completed);
    for (int i = 0; i < RACE; i++) done_free(&d[i]);
    free(d);
    cb_done(&c);
}

/* free with async fires pending: every done before free returns, and the callbacks' release after
 * every call ended */
static void test_free_waits_for_async_fires(void) {
    OhHooks *h = ENG_OPTS(opts_for(J("{`hooks`:{`preToolUse`:[{`command`:`sleep 0.3`},{`callback`:`later`}]}}"), NULL));
    if (!h) return;
    Cb c;
    cb_init(&c, "{\"decision\":\"deny\",\"reason\":\"answered\"}", 1);
    c.delay_ms = 50;
    oh_hooks_register(h, "later", cb_fn, &c, cb_release, NULL);
    enum { N = 12 };
    Done d[N];
    for (int i = 0; i < N; i++) {
        done_init(&d[i]);
        oh_hooks_fire_async(h, "{\"event\":\"preToolUse\"}", done_fn, &d[i]);
    }
    double t0 = now_ms();
    free_now(h);
    double dt = now_ms() - t0;
    int all = 1;
    for (int i = 0; i < N; i++) {
        all &= d[i].calls == 1;
        jval *o = d[i].outcome ? gc_json(json_parse(d[i].outcome)) : NULL;
        CHECK_JSTR(o, "reason", "answered");
    }
    CHECK(all, "every done ran before oh_hooks_free returned");
    CHECK(atomic_load(&c.released) == 1, "the registration was released by free");
    /* 12 fires of 0.35 s on 8 threads: two rounds */
    CHECK(dt >= 600, "free waited for the queued fires too (%.0f ms)", dt);
    printf("   free waited %.0f ms for %d async fires\n", dt, N);
    sleep_ms(120); /* the answering threads' second (ignored) answers */
    for (int i = 0; i < N; i++) done_free(&d[i]);
    cb_done(&c);
}

/* done may fire again (async and sync) on the engine, and free still waits for the chain */
typedef struct { OhHooks *h; Done *next; } Chain;
static void chain_done(void *user, char *outcome) {
    Chain *ch = user;
    oh_hooks_string_free(outcome);
    oh_hooks_string_free(oh_hooks_fire(ch->h, "{\"event\":\"preToolUse\"}"));
    oh_hooks_fire_async(ch->h, "{\"event\":\"preToolUse\"}", done_fn, ch->next);
}

static void test_done_reenters(void) {
    OhHooks *h = ENG_OPTS(opts_for(J("{`hooks`:{`preToolUse`:[{`command`:`exit 0`}]}}"), NULL));
    if (!h) return;
    Done last;
    done_init(&last);
    Chain ch = {h, &last};
    oh_hooks_fire_async(h, "{\"event\":\"preToolUse\"}", chain_done, &ch);
    free_now(h);
    CHECK(last.calls == 1, "a fire started by done ran before free returned");
    done_free(&last);
}

/* many threads fire at once; half the callbacks answer from yet another thread */
typedef struct { OhHooks *h; int id; int ok; } Firer;
static void *fire_many(void *p) {
    Firer *f = p;
    for (int i = 0; i < 40; i++) {
        char env[128];
        snprintf(env, sizeof env, "{\"event\":\"preToolUse\",\"toolName\":\"%s\",\"n\":%d}",
                 (i + f->id) % 2 ? "Now" : "Later", i);
        char *out = oh_hooks_fire(f->h, env);
        int want_deny = (i + f->id) % 2 == 0;
        f->ok += out && (want_deny ? strstr(out, "\"reason\":\"later\"") != NULL : strstr(out, "\"allowed\":true") != NULL);
        oh_hooks_string_free(out);
    }
    return NULL;
}

static void test_threads_answering_across_threads(void) {
    OhHooks *h = ENG(J("{`hooks`:{`preToolUse`:[{`callback`:`now`,`match`:`Now`},{`callback`:`later`,`match`:`Later`,`timeout`:5000}]}}"),
                     NULL);
    Cb now, later;
    cb_init(&now, "{}", 0);
    cb_init(&later, "{\"decision\":\"deny\",\"reason\":\"later\"}", 1);
    later.delay_ms = 1;
    if (!h) return;
    oh_hooks_register(h, "now", cb_fn, &now, NULL, NULL);
    oh_hooks_register(h, "later", cb_fn, &later, NULL, NULL);
    enum { T = 6 };
    pthread_t t[T];
    Firer f[T];
    for (int i = 0; i < T; i++) {
        f[i] = (Firer){h, i, 0};
        pthread_create(&t[i], NULL, fire_many, &f[i]);
    }
    int ok = 0;
    for (int i = 0; i < T; i++) {
        pthread_join(t[i], NULL);
        ok += f[i].ok;
    }
    CHECK(ok == T * 40, "%d of %d fires decided as expected", ok, T * 40);
    CHECK(atomic_load(&now.calls) + atomic_load(&later.calls) == T * 40, "every fire called its callback once");
    sleep_ms(30); /* the answering threads' ignored second answers */
    cb_done(&now);
    cb_done(&later);
}

/* an asynchronous fire's record reaches the observer before its done; waitNonBlocking callbacks
 * run on engine threads besides the first */
static Obs *g_order_obs;
static atomic_int g_order_records_at_done = -1;
static void order_done(void *user, char *outcome) {
    Done *d = user;
    atomic_store(&g_order_records_at_done, obs_count(g_order_obs));
    done_fn(d, outcome);
}

static void test_observer_async_and_waited(void) {
    OhHooks *h = ENG(J("{`hooks`:{`preToolUse`:[{`callback`:`f`}],`postToolUse`:[{`callback`:`f`},{`callback`:`f`}]}}"),
                     "`waitNonBlocking`:true");
    Cb c;
    cb_init(&c, "{\"hookSpecificOutput\":{\"additionalContext\":\"seen\"}}", 0);
    Obs ob = {.mu = PTHREAD_MUTEX_INITIALIZER};
    if (!h) return;
    oh_hooks_register(h, "f", cb_fn, &c, NULL, NULL);
    oh_hooks_observe(h, obs_fn, &ob, NULL, NULL);
    g_order_obs = &ob;
    Done d;
    done_init(&d);
    oh_hooks_fire_async(h, "{\"event\":\"preToolUse\"}", order_done, &d);
    CHECK_JSTR(done_wait(&d, 5000), "additionalContext", "seen");
    CHECK(atomic_load(&g_order_records_at_done) == 1, "the record was delivered before done");
    jval *o = FIREJ(h, "{`event`:`postToolUse`}");
    CHECK_JSTR(o, "additionalContext", "seen\n\nseen");
    CHECK_LEN(o, "hooks", 2);
    CHECK(obs_count(&ob) == 2, "one record per fire");
    CHECK_LEN(obs_take(&ob, 1), "outcome.hooks", 2);
    obs_clear(&ob);
    done_free(&d);
    cb_done(&c);
}

/* ---------- oh_hooks_reserve_fire + oh_hooks_fire_reserved: a synchronous fire that can be cancelled */

static jval *fire_reserved(const OhHooks *h, const char *env, uint64_t id) {
    char *s = oh_hooks_fire_reserved(h, env, id);
    CHECK(s != NULL, "oh_hooks_fire_reserved returns an outcome");
    if (!s) return gc_json(json_parse("{}"));
    jval *v = json_parse(s);
    oh_hooks_string_free(s);
    return gc_json(v ? v : json_parse("{}"));
}

static void test_fire_reserved_errors(void) {
    OhHooks *h = ENG(J("{`hooks`:{`preToolUse`:[{`command`:`exit 1`,`match`:`Bash`}]}}"), NULL);
    if (!h) return;
    CHECK(oh_hooks_reserve_fire(NULL) == 0, "no id without an engine");
    CHECK_JSTR(fire_reserved(NULL, "{}", 1), "error.code", "null_argument");
    jval *o = fire_reserved(h, "{\"event\":\"preToolUse\",\"toolName\":\"Bash\"}", 0);
    CHECK_JSTR(o, "error.code", "internal");
    CHECK_JBOOL(o, "allowed", 0);
    CHECK_LEN(o, "hooks", 0);
    CHECK_JSTR(fire_reserved(h, "{\"event\":\"preToolUse\"}", 987654), "error.code", "internal");
    uint64_t a = oh_hooks_reserve_fire(h), b = oh_hooks_reserve_fire(h);
    CHECK(a && b && a != b, "distinct non-zero ids");
    /* the same outcome as oh_hooks_fire */
    CHECK_JSTR(fire_reserved(h, "{\"event\":\"preToolUse\",\"toolName\":\"Bash\"}", a), "reason", "hook denied (exit code)");
    /* an id fires once */
    CHECK_JSTR(fire_reserved(h, "{\"event\":\"preToolUse\",\"toolName\":\"Read\"}", a), "error.code", "internal");
    /* a NULL envelope is the fire's error, and uses the id up */
    CHECK_JSTR(fire_reserved(h, NULL, b), "error.code", "null_argument");
    CHECK_JSTR(fire_reserved(h, "{\"event\":\"preToolUse\"}", b), "error.code", "internal");
    CHECK(oh_hooks_cancel(h, a) == 0, "cancelling a used id does nothing");
    uint64_t c = oh_hooks_reserve_fire(h);
    CHECK_OUT(fire_reserved(h, "{\"event\":\"preToolUse\",\"toolName\":\"Read\"}", c), "{`allowed`:true,`hooks`:[]}");
}

static void test_fire_reserved_cancelled_before_it_starts(void) {
    char *dir = newdir("reserved-pre");
    char *mark = xfmt("%s/ran", dir);
    OhHooks *h = ENG(xfmt("{\"hooks\":{\"preToolUse\":[%s]}}", hk(xfmt("touch %s", mark))), NULL);
    if (!h) return;
    uint64_t id = oh_hooks_reserve_fire(h);
    CHECK(oh_hooks_cancel(h, id) == 0, "cancel a reservation");
    jval *o = fire_reserved(h, "{\"event\":\"preToolUse\"}", id);
    CHECK_OUT(o, "{`allowed`:false,`hooks`:[],`error`:{`code`:`cancelled`,`message`:`the fire was cancelled (oh_hooks_cancel) before it completed`}}");
    CHECK(!file_exists(mark), "no hook ran");
    /* a no-match fire (the engine's shortcut) cancelled before it starts is cancelled too */
    id = oh_hooks_reserve_fire(h);
    oh_hooks_cancel(h, id);
    CHECK_JSTR(fire_reserved(h, "{\"event\":\"postToolUse\"}", id), "error.code", "cancelled");
}

typedef struct {
    const OhHooks *h;
    uint64_t id;
    const char *pidfile;
    double cancelled_at;
} Canceller;

static void *cancel_when_started(void *p) {
    Canceller *c = p;
    if (wait_for_file(c->pidfile, 3000)) sleep_ms(30);
    c->cancelled_at = now_ms();
    oh_hooks_cancel(c->h, c->id);
    return NULL;
}

static void test_fire_reserved_cancel_kills_the_group(void) {
    char *dir = newdir("reserved");
    char *pidfile = xfmt("%s/pid", dir);
    OhHooks *h = ENG(xfmt("{\"hooks\":{\"preToolUse\":[{\"command\":%s,\"timeout\":60000}]}}",
                          q(xfmt("sleep 30 & echo $! > %s; wait", pidfile))),
                     NULL);
    if (!h) return;
    Canceller c = {h, oh_hooks_reserve_fire(h), pidfile, 0};
    pthread_t t;
    pthread_create(&t, NULL, cancel_when_started, &c);
    jval *o = fire_reserved(h, "{\"event\":\"preToolUse\"}", c.id);
    double dt = now_ms() - c.cancelled_at;
    pthread_join(t, NULL);
    const char *text = read_file(pidfile, NULL);
    pid_t child = text ? (pid_t)atoi(text) : 0;
    CHECK_JSTR(o, "error.code", "cancelled");
    CHECK_JBOOL(o, "allowed", 0);
    CHECK_JSTR(o, "hooks.0.result", "cancelled");
    CHECK(dt < 600 + slack(), "returned soon after the cancel: %.0f ms", dt);
    CHECK(child > 0 && !pid_alive(child), "the hook's grandchild %d was killed with its group", (int)child);
    CHECK(oh_hooks_cancel(h, c.id) == 0, "cancelling a finished fire does nothing");
}

/* ---------- oh_hooks_fire_async_fd: the completion as a record on a pipe */

typedef struct {
    uint64_t id;
    char *outcome;
} FdRecord;

static int read_record(int fd, FdRecord *r, int ms) {
    struct pollfd p = {fd, POLLIN, 0};
    if (poll(&p, 1, ms) != 1) return 0;
    unsigned char b[16];
    if (read(fd, b, sizeof b) != (ssize_t)sizeof b) return 0;
    uint64_t addr;
    memcpy(&r->id, b, 8);
    memcpy(&addr, b + 8, 8);
    r->outcome = (char *)(uintptr_t)addr;
    return 1;
}

static jval *take_record(FdRecord *r) {
    jval *v = r->outcome ? json_parse(r->outcome) : NULL;
    oh_hooks_string_free(r->outcome);
    r->outcome = NULL;
    return gc_json(v ? v : json_parse("{}"));
}

static void test_fire_async_fd(void) {
    OhHooks *h = ENG(J("{`hooks`:{`preToolUse`:[{`command`:`exit 1`,`match`:`Bash`}]}}"), NULL);
    if (!h) return;
    int p[2];
    if (pipe(p)) return;
    CHECK(oh_hooks_fire_async_fd(NULL, "{}", p[1]) == 0, "no fire without an engine");
    CHECK(oh_hooks_fire_async_fd(h, "{}", -1) == 0, "no fire without an fd");
    uint64_t ia = oh_hooks_fire_async_fd(h, "{\"event\":\"preToolUse\",\"toolName\":\"Bash\"}", p[1]);
    uint64_t ib = oh_hooks_fire_async_fd(h, "{\"event\":\"preToolUse\",\"toolName\":\"Read\"}", p[1]);
    uint64_t ic = oh_hooks_fire_async_fd(h, NULL, p[1]);
    CHECK(ia && ib && ic && ia != ib && ib != ic, "distinct non-zero ids");
    jval *got[3] = {NULL, NULL, NULL};
    for (int i = 0; i < 3; i++) {
        FdRecord r;
        if (!read_record(p[0], &r, 5000)) break;
        jval *o = take_record(&r);
        if (r.id == ia) got[0] = o;
        else if (r.id == ib) got[1] = o;
        else if (r.id == ic) got[2] = o;
    }
    CHECK(got[0] && got[1] && got[2], "one record per fire, each with its id");
    CHECK_JSTR(got[0], "reason", "hook denied (exit code)");
    CHECK_OUT(got[1], "{`allowed`:true,`hooks`:[]}");
    CHECK_JSTR(got[2], "error.code", "null_argument");
    FdRecord extra;
    CHECK(!read_record(p[0], &extra, 50), "exactly one record per fire");
    /* cancelled: still one record, with the cancelled outcome */
    char *dir = newdir("fd");
    char *pidfile = xfmt("%s/pid", dir);
    OhHooks *s = ENG(xfmt("{\"hooks\":{\"preToolUse\":[{\"command\":%s,\"timeout\":60000}]}}",
                          q(xfmt("sleep 30 & echo $! > %s; wait", pidfile))),
                     NULL);
    if (s) {
        uint64_t id = oh_hooks_fire_async_fd(s, "{\"event\":\"preToolUse\"}", p[1]);
        CHECK(wait_for_file(pidfile, 3000), "the hook started");
        oh_hooks_cancel(s, id);
        FdRecord r = {0, NULL};
        CHECK(read_record(p[0], &r, 3000) && r.id == id, "the cancelled fire's record");
        CHECK_JSTR(take_record(&r), "error.code", "cancelled");
    }
    /* the reader gone: the write fails without SIGPIPE (this process has the default
       disposition: a SIGPIPE would end it), and the outcome is freed (valgrind mode) */
    close(p[0]);
    oh_hooks_fire_async_fd(h, "{\"event\":\"preToolUse\",\"toolName\":\"Read\"}", p[1]);
    oh_hooks_fire_async_fd(h, "{\"event\":\"preToolUse\",\"toolName\":\"Bash\"}", p[1]);
    free_now(h);
    CHECK(1, "no SIGPIPE when the pipe's reader is gone");
    close(p[1]);
}

/* Whether SIGPIPE is in the hex mask on the line `key` of a /proc status file: 1, 0, -1 unknown. */
static int status_has_sigpipe(const char *path, const char *key) {
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    char line[256];
    int got = -1;
    size_t n = strlen(key);
    while (fgets(line, sizeof line, f))
        if (strncmp(line, key, n) == 0 && line[n] == ':') {
            got = (int)((strtoull(line + n + 1, NULL, 16) >> (SIGPIPE - 1)) & 1);
            break;
        }
    fclose(f);
    return got;
}

/* Over the engine's asynchronous threads (named oh-hooks-async): how many there are, and how
 * many have SIGPIPE on the status line `key` (SigBlk: blocked, SigPnd: pending). */
static int engine_threads_with_sigpipe(const char *key, int *threads) {
    DIR *d = opendir("/proc/self/task");
    int with = 0;
    *threads = 0;
    if (!d) return 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char path[300], comm[64] = "";
        snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f) continue;
        if (!fgets(comm, sizeof comm, f)) comm[0] = 0;
        fclose(f);
        if (strncmp(comm, "oh-hooks-async", 14) != 0) continue;
        (*threads)++;
        snprintf(path, sizeof path, "/proc/self/task/%s/status", e->d_name);
        if (status_has_sigpipe(path, key) == 1) with++;
    }
    closedir(d);
    return with;
}

static atomic_int g_gate_open;
static void gate_fn(void *user, const char *request, OhHooksCall *call) {
    (void)user;
    (void)request;
    while (!atomic_load(&g_gate_open)) sleep_ms(1);
    oh_hooks_respond(call, NULL);
}

static atomic_int g_observed;
static void count_record(void *user, const char *record) {
    (void)user;
    (void)record;
    atomic_fetch_add(&g_observed, 1);
}

static atomic_int g_flip_stop;
static void *flip_sigpipe(void *arg) {
    (void)arg;
    for (int i = 0; !atomic_load(&g_flip_stop); i++) signal(SIGPIPE, i % 2 ? SIG_DFL : SIG_IGN);
    return NULL;
}

/* The record write keeps SIGPIPE off without two signal-mask calls per fire: an engine thread
 * blocks it once and keeps it blocked; the host's own thread (a refused fire's record) is left
 * as it was. It must hold while the host changes SIGPIPE's disposition at any moment. */
static void test_fire_async_fd_sigpipe(void) {
    OhHooks *h = ENG(cbcfg("preToolUse", "gate", "`timeout`:60000"), NULL);
    if (!h) return;
    oh_hooks_register(h, "gate", gate_fn, NULL, NULL, NULL);
    oh_hooks_observe(h, count_record, NULL, NULL, NULL);
    sigset_t none, mine;
    sigemptyset(&none);
    pthread_sigmask(SIG_SETMASK, &none, NULL);
    int p[2];
    if (pipe(p)) return;
    atomic_store(&g_gate_open, 1);
    for (int i = 0; i < 20; i++) oh_hooks_fire_async_fd(h, "{\"event\":\"preToolUse\"}", p[1]);
    int got = 0;
    for (int i = 0; i < 20; i++) {
        FdRecord r;
        if (!read_record(p[0], &r, 5000)) break;
        take_record(&r);
        got++;
    }
    CHECK(got == 20, "every record read");
    int threads = 0, blocked = engine_threads_with_sigpipe("SigBlk", &threads);
    CHECK(threads > 0 && blocked > 0, "an engine thread that wrote a record keeps SIGPIPE blocked");

    /* The reader gone, the engine busy (8 threads held in the callback, 4096 fires queued), so
     * the fires past that are refused and their records written on this thread: every write
     * fails with EPIPE while another thread flips SIGPIPE between ignored and the default. */
    close(p[0]);
    atomic_store(&g_gate_open, 0);
    atomic_store(&g_flip_stop, 0);
    atomic_store(&g_observed, 0);
    pthread_t flipper;
    pthread_create(&flipper, NULL, flip_sigpipe, NULL);
    int fired = 4096 + 8 + 200;
    for (int i = 0; i < fired; i++) oh_hooks_fire_async_fd(h, "{\"event\":\"preToolUse\"}", p[1]);
    atomic_store(&g_gate_open, 1);
    /* one observer record per fire, after its completion's write */
    for (int i = 0; i < 2000 && atomic_load(&g_observed) < fired; i++) sleep_ms(5);
    CHECK(atomic_load(&g_observed) == fired, "every fire completed");
    sleep_ms(50); /* the last record's write follows its observer call */
    int pending = engine_threads_with_sigpipe("SigPnd", &threads);
    free_now(h);
    atomic_store(&g_flip_stop, 1);
    pthread_join(flipper, NULL);
    signal(SIGPIPE, SIG_DFL);
    CHECK(1, "no SIGPIPE killed the host while its disposition changed");
    CHECK(pending == 0, "an engine thread's own SIGPIPE is not left pending");
    CHECK(status_has_sigpipe("/proc/self/status", "ShdPnd") == 0, "no SIGPIPE left pending for the process");
    pthread_sigmask(SIG_SETMASK, NULL, &mine);
    CHECK(!sigismember(&mine, SIGPIPE), "the host's thread mask is as it was after its refused fires' writes");
    close(p[1]);
}

int main(void) {
    setup("test_callbacks");
    setenv("HOME", g_dir, 1);
    if (chdir(g_dir)) return 2;
    RUN(test_register_errors);
    RUN(test_answer_now_on_calling_thread);
    RUN(test_strict_and_caps);
    RUN(test_not_registered);
    RUN(test_never_trust_gated);
    RUN(test_answer_later_from_another_thread);
    RUN(test_never_answered_times_out);
    RUN(test_answer_twice);
    RUN(test_reentrant_fire);
    RUN(test_replace_while_running);
    RUN(test_prompt_evaluator);
    RUN(test_observer);
    RUN(test_async_fire);
    RUN(test_cancel_kills_the_group);
    RUN(test_cancel_callback_wait);
    RUN(test_cancel_http_wait);
    RUN(test_cancel_persistent_wait);
    RUN(test_cancel_queued_fire);
    RUN(test_cancel_races_completion);
    RUN(test_free_waits_for_async_fires);
    RUN(test_done_reenters);
    RUN(test_threads_answering_across_threads);
    RUN(test_observer_async_and_waited);
    RUN(test_fire_reserved_errors);
    RUN(test_fire_reserved_cancelled_before_it_starts);
    RUN(test_fire_reserved_cancel_kills_the_group);
    RUN(test_fire_async_fd);
    RUN(test_fire_async_fd_sigpipe);
    return DONE();
}
