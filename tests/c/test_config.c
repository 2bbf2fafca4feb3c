/* test_config.c — CONTRACT §2 (layers, configPath, config), §3.1 (validation, reload), §3.7 (trust,
 * disableAllHooks). Config files are written into fresh temp dirs. */
#include "common.h"

#include <sys/time.h>

/* Writes dir/name (creating dirs) and returns the path. */
static char *put(const char *dir, const char *name, const char *content) {
    char *p = xfmt("%s/%s", dir, name);
    char *slash = strrchr(p, '/');
    *slash = 0;
    mkdirs(p);
    *slash = '/';
    write_file(p, content);
    return p;
}
static char *opts_path(const char *path) {
    return xfmt("{\"trusted\":true,\"home\":%s,\"cwd\":%s,\"configPath\":%s}", q(g_dir), q(g_dir), q(path));
}
static char *opts_layers(const char *home, const char *cwd, const char *extra) {
    return xfmt("{\"trusted\":true,\"home\":%s,\"cwd\":%s%s%s}", q(home), q(cwd), extra ? "," : "", extra ? J(extra) : "");
}
/* `word` occurs in s as a whole word (not followed by a letter): "match" but not only "matcher". */
static int has_word(const char *s, const char *word) {
    size_t n = strlen(word);
    for (const char *p = s ? strstr(s, word) : NULL; p; p = strstr(p + 1, word)) {
        char c = p[n];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) return 1;
    }
    return 0;
}

/* Checks an invalid_config error: file (NULL = must be absent), line within [lo,hi] (lo 0 = line
 * optional; lo < 0 = line required within [-lo,hi]), path one of the '|'-separated alternatives
 * (NULL = any), and a message naming `mention`. */
static void check_cfg_err(int tl, jval *e, const char *file, int lo, int hi, const char *paths, const char *mention) {
    if (!e) return;
    const char *dump = gc_str(json_dump(e));
    const char *code = json_str(json_get(e, "code"));
    CHECK(streq(code, "invalid_config"), "line %d: code %s, want invalid_config: %s", tl, show(code), dump);
    const char *gotfile = json_str(json_get(e, "file"));
    if (file) {
        CHECK(streq(gotfile, file), "line %d: file %s, want %s: %s", tl, show(gotfile), file, dump);
    } else {
        CHECK(gotfile == NULL, "line %d: an inline config has no file: %s", tl, dump);
    }
    jval *line = json_get(e, "line");
    if (lo < 0) CHECK(line != NULL, "line %d: the error should carry the line: %s", tl, dump);
    if (line) {
        int l = line->t == J_NUM ? (int)line->n : -1;
        int want_lo = lo < 0 ? -lo : lo;
        CHECK(line->t == J_NUM && (want_lo == 0 || (l >= want_lo && l <= hi)), "line %d: line %d, want %d..%d: %s",
              tl, l, want_lo, hi, dump);
    }
    if (paths) {
        const char *got = json_str(json_get(e, "path"));
        int ok = 0;
        char *alts = gc_str(strdup(paths));
        for (char *save = NULL, *a = strtok_r(alts, "|", &save); a; a = strtok_r(NULL, "|", &save))
            if (streq(got, a)) ok = 1;
        CHECK(ok, "line %d: path %s, want %s: %s", tl, show(got), paths, dump);
    }
    if (mention) {
        const char *m = json_str(json_get(e, "message"));
        CHECK(has_word(m, mention), "line %d: the message should name `%s`: %s", tl, mention, dump);
    }
}
#define CFG_ERR_FILE(content, lo, hi, paths, mention)                                    \
    do {                                                                                 \
        char *oht_p = put(newdir("cfg"), "config.yaml", (content));                      \
        check_cfg_err(__LINE__, NEW_ERROR(opts_path(oht_p)), oht_p, (lo), (hi), (paths), (mention)); \
    } while (0)

static void test_validation_errors(void) {
    /* bad YAML: the line is always known */
    CFG_ERR_FILE("hooks:\n  preToolUse:\n    - command: [unclosed\n", -3, 4, NULL, NULL);
    CFG_ERR_FILE("hooks: {preToolUse: [\n", -1, 2, NULL, NULL);
    /* unknown event, with the camelCase suggestion */
    CFG_ERR_FILE("hooks:\n  PreToolUse:\n    - command: exit 0\n", 2, 3, "hooks.PreToolUse|hooks", "preToolUse");
    CFG_ERR_FILE("hooks:\n  preToolUse: []\n  PostToolUse: []\n", 3, 3, "hooks.PostToolUse|hooks", "postToolUse");
    CFG_ERR_FILE("hooks:\n  preToolUse: []\n  sessionStart: []\n  Bogus:\n    - command: x\n", 4, 4, "hooks.Bogus|hooks", NULL);
    CFG_ERR_FILE("hooks:\n  bogusEvent:\n    - command: exit 0\n", 2, 3, "hooks.bogusEvent|hooks", NULL);
    /* unknown key in an entry, with the suggestion */
    CFG_ERR_FILE("hooks:\n  preToolUse:\n    - command: exit 0\n      matcher: Bash\n", 3, 4,
                 "hooks.preToolUse[0].matcher|hooks.preToolUse[0]", "match");
    CFG_ERR_FILE("hooks:\n  preToolUse:\n    - command: exit 0\n    - command: exit 0\n      timeOut: 5\n", 4, 5,
                 "hooks.preToolUse[1].timeOut|hooks.preToolUse[1]", NULL);
    /* timeout not a positive integer */
    const char *timeouts[] = {"0", "-1", "\"x\"", "1.5", "x", "\"100\"", "[1]"};
    for (size_t i = 0; i < sizeof timeouts / sizeof *timeouts; i++) {
        char *c = xfmt("hooks:\n  preToolUse:\n    - command: exit 0\n    - command: exit 0\n      timeout: %s\n",
                       timeouts[i]);
        CFG_ERR_FILE(c, 4, 5, "hooks.preToolUse[1].timeout", NULL);
    }
    /* match: regex that does not compile, unknown flag, not a string */
    CFG_ERR_FILE("hooks:\n  preToolUse:\n    - command: exit 0\n      match: \"/(?<=a)b/\"\n", 3, 4,
                 "hooks.preToolUse[0].match", NULL);
    CFG_ERR_FILE("hooks:\n  preToolUse:\n    - command: exit 0\n      match: \"/(a)\\\\1/\"\n", 3, 4,
                 "hooks.preToolUse[0].match", NULL);
    CFG_ERR_FILE("hooks:\n  preToolUse:\n    - command: exit 0\n      match: \"/a/q\"\n", 3, 4,
                 "hooks.preToolUse[0].match", NULL);
    CFG_ERR_FILE("hooks:\n  preToolUse:\n    - command: exit 0\n      match: \"/a(/\"\n", 3, 4,
                 "hooks.preToolUse[0].match", NULL);
    CFG_ERR_FILE("hooks:\n  preToolUse:\n    - command: exit 0\n      match: 5\n", 3, 4, "hooks.preToolUse[0].match", NULL);
    CFG_ERR_FILE("hooks:\n  preToolUse:\n    - command: exit 0\n      match: [Bash]\n", 3, 4, "hooks.preToolUse[0].match", NULL);
    /* no handler, several handlers */
    CFG_ERR_FILE("hooks:\n  preToolUse:\n    - match: Bash\n      timeout: 5\n", 3, 4, "hooks.preToolUse[0]", NULL);
    CFG_ERR_FILE("hooks:\n  preToolUse:\n    - {}\n", 3, 3, "hooks.preToolUse[0]", NULL);
    CFG_ERR_FILE("hooks:\n  preToolUse:\n    - command: exit 0\n      prompt: ok?\n", 3, 4,
                 "hooks.preToolUse[0]|hooks.preToolUse[0].prompt|hooks.preToolUse[0].command", NULL);
    CFG_ERR_FILE("hooks:\n  preToolUse:\n    - command: exit 0\n      http: http://127.0.0.1:9/\n", 3, 4,
                 "hooks.preToolUse[0]|hooks.preToolUse[0].http|hooks.preToolUse[0].command", NULL);
    /* handler not a string */
    CFG_ERR_FILE("hooks:\n  preToolUse:\n    - command: 5\n", 3, 3, "hooks.preToolUse[0].command", NULL);
    CFG_ERR_FILE("hooks:\n  preToolUse:\n    - command: [a, b]\n", 3, 3, "hooks.preToolUse[0].command", NULL);
    CFG_ERR_FILE("hooks:\n  preToolUse:\n    - command: true\n", 3, 3, "hooks.preToolUse[0].command", NULL);
    CFG_ERR_FILE("hooks:\n  preToolUse:\n    - prompt: {a: 1}\n", 3, 3, "hooks.preToolUse[0].prompt", NULL);
    CFG_ERR_FILE("hooks:\n  preToolUse:\n    - http: 80\n", 3, 3, "hooks.preToolUse[0].http", NULL);
    CFG_ERR_FILE("hooks:\n  preToolUse:\n    - command: null\n", 3, 3, "hooks.preToolUse[0].command|hooks.preToolUse[0]", NULL);
    /* disableAllHooks not a boolean */
    CFG_ERR_FILE("disableAllHooks: \"true\"\n", 1, 1, "disableAllHooks", NULL);
    CFG_ERR_FILE("disableAllHooks: 1\n", 1, 1, "disableAllHooks", NULL);
    CFG_ERR_FILE("hooks: null\ndisableAllHooks: yes\n", 2, 2, "disableAllHooks", NULL);
    /* top level not a map */
    CFG_ERR_FILE("- a\n- b\n", 0, 0, NULL, NULL);
    CFG_ERR_FILE("just a string\n", 0, 0, NULL, NULL);
    CFG_ERR_FILE("42\n", 0, 0, NULL, NULL);
    /* hooks not a map of lists; entries not maps */
    CFG_ERR_FILE("hooks: [a]\n", 1, 1, "hooks", NULL);
    CFG_ERR_FILE("hooks: 5\n", 1, 1, "hooks", NULL);
    CFG_ERR_FILE("hooks:\n  preToolUse: exit 1\n", 2, 2, "hooks.preToolUse", NULL);
    CFG_ERR_FILE("hooks:\n  preToolUse: {command: exit 1}\n", 2, 2, "hooks.preToolUse", NULL);
    CFG_ERR_FILE("hooks:\n  preToolUse:\n    - exit 1\n", 3, 3, "hooks.preToolUse[0]", NULL);
    CFG_ERR_FILE("hooks:\n  preToolUse:\n    - [command, exit 1]\n", 3, 3, "hooks.preToolUse[0]", NULL);
}

static void test_valid_files(void) {
    const char *fine[] = {
        "hooks: null\n",
        "hooks:\n  preToolUse: null\n",
        "hooks:\n  preToolUse:\n",
        "hooks:\n  preToolUse: []\n",
        "hooks: {}\n",
        "disableAllHooks: false\n",
        "model: some/model\nprovider: x\nharness: {anything: [1, 2]}\n",
        "hooks:\n  preToolUse:\n    - command: exit 0\n      match: Zzz\n      timeout: 100\n      jsonIO: true\n",
        "hooks:\n  postToolUse:\n    - prompt: ok?\n      jsonIO: true\n",
        "# only a comment\nhooks:\n  sessionStart: null\n  preToolUse: null\n",
    };
    for (size_t i = 0; i < sizeof fine / sizeof *fine; i++) {
        char *p = put(newdir("fine"), "config.yaml", fine[i]);
        OhHooks *h = ENG_OPTS(opts_path(p));
        if (!h) { printf("   (config: %s)\n", fine[i]); continue; }
        jval *o = FIREJ(h, "{`event`:`preToolUse`,`toolName`:`Bash`}");
        CHECK_OUT(o, "{`allowed`:true,`hooks`:[]}");
    }
    /* inline config: the same rules, without a file */
    OhHooks *h = ENG(J("{`hooks`:{`preToolUse`:null}}"), NULL);
    CHECK(h != NULL, "inline preToolUse: null");
    h = ENG(J("{`hooks`:null}"), NULL);
    CHECK(h != NULL, "inline hooks: null");
    h = ENG(J("{`model`:`x`}"), NULL);
    CHECK(h != NULL, "inline harness keys ignored");
}

static void test_inline_config_errors(void) {
    check_cfg_err(__LINE__, NEW_ERROR(opts_for(J("{`hooks`:{`PreToolUse`:[{`command`:`exit 0`}]}}"), NULL)), NULL, 0, 0,
                  "hooks.PreToolUse|hooks", "preToolUse");
    check_cfg_err(__LINE__, NEW_ERROR(opts_for(J("{`hooks`:{`preToolUse`:[{`command`:`x`},{`command`:`x`,`timeout`:0}]}}"), NULL)),
                  NULL, 0, 0, "hooks.preToolUse[1].timeout", NULL);
    check_cfg_err(__LINE__, NEW_ERROR(opts_for(J("{`hooks`:{`preToolUse`:[{`command`:`x`,`matcher`:`Bash`}]}}"), NULL)),
                  NULL, 0, 0, "hooks.preToolUse[0].matcher|hooks.preToolUse[0]", "match");
    check_cfg_err(__LINE__, NEW_ERROR(opts_for(J("{`hooks`:{`preToolUse`:[{`command`:`x`,`match`:`/(?<=a)b/`}]}}"), NULL)),
                  NULL, 0, 0, "hooks.preToolUse[0].match", NULL);
    check_cfg_err(__LINE__, NEW_ERROR(opts_for(J("{`disableAllHooks`:`no`}"), NULL)), NULL, 0, 0, "disableAllHooks", NULL);
    check_cfg_err(__LINE__, NEW_ERROR(opts_for(J("{`hooks`:{`preToolUse`:[{`command`:1.5}]}}"), NULL)), NULL, 0, 0,
                  "hooks.preToolUse[0].command", NULL);
    check_cfg_err(__LINE__, NEW_ERROR(opts_for(J("{`hooks`:[]}"), NULL)), NULL, 0, 0, "hooks", NULL);
}

static void test_json_config_path(void) {
    char *d = newdir("jsoncfg");
    char *p = put(d, "hooks.json", "{\"hooks\":{\"preToolUse\":[{\"command\":\"printf '{\\\"reason\\\":\\\"from-json\\\"}'\",\"jsonIO\":true}]}}");
    OhHooks *h = ENG_OPTS(opts_path(p));
    if (h) {
        jval *o = FIREJ(h, "{`event`:`preToolUse`}");
        CHECK_JSTR(o, "reason", "from-json");
    }
    p = put(d, "bad.json", "{\"hooks\":{\"preToolUse\":[{\"command\":\"x\",\"timeout\":-1}]}}");
    check_cfg_err(__LINE__, NEW_ERROR(opts_path(p)), p, 0, 0, "hooks.preToolUse[0].timeout", NULL);
    p = put(d, "broken.json", "{\"hooks\": {\"preToolUse\": [\n");
    check_cfg_err(__LINE__, NEW_ERROR(opts_path(p)), p, 0, 0, NULL, NULL);
}

/* A layer file whose preToolUse hook answers with reason and additionalContext `who`: the outcome's
   context lists every layer whose hook ran, in order (hooks add up, version 1.1). */
static const char *layer(const char *who) {
    return xfmt("hooks:\n  preToolUse:\n    - command: \"printf '{\\\"reason\\\":\\\"%s\\\",\\\"hookSpecificOutput\\\":{\\\"additionalContext\\\":\\\"%s\\\"}}'\"\n      jsonIO: true\n", who, who);
}
static const char *reason_of(OhHooks *h) {
    if (!h) return "(no engine)";
    jval *o = FIREJ(h, "{`event`:`preToolUse`,`toolName`:`Bash`}");
    const char *r = json_str(json_get(o, "additionalContext"));
    return r ? r : "(none)";
}
#define CHECK_REASON(h, want) \
    do { const char *oht_r = reason_of(h); CHECK(streq(oht_r, (want)), "reason %s, want %s", oht_r, (want)); } while (0)

static void test_layers(void) {
    char *home = newdir("home"), *cwd = newdir("proj");
    /* each layer alone */
    put(home, ".oh/config.yaml", layer("user"));
    CHECK_REASON(ENG_OPTS(opts_layers(home, cwd, NULL)), "user");
    put(cwd, ".oh/config.yaml", layer("project"));
    CHECK_REASON(ENG_OPTS(opts_layers(home, cwd, NULL)), "user\n\nproject");
    put(cwd, ".oh/config.local.yaml", layer("local"));
    CHECK_REASON(ENG_OPTS(opts_layers(home, cwd, NULL)), "user\n\nproject\n\nlocal");
    /* layers subset */
    CHECK_REASON(ENG_OPTS(opts_layers(home, cwd, "`layers`:[`user`]")), "user");
    CHECK_REASON(ENG_OPTS(opts_layers(home, cwd, "`layers`:[`project`]")), "project");
    CHECK_REASON(ENG_OPTS(opts_layers(home, cwd, "`layers`:[`user`,`project`]")), "user\n\nproject");
    CHECK_REASON(ENG_OPTS(opts_layers(home, cwd, "`layers`:[`local`]")), "local");
    CHECK_REASON(ENG_OPTS(opts_layers(home, cwd, "`layers`:[`user`,`local`]")), "user\n\nlocal");
    CHECK_REASON(ENG_OPTS(opts_layers(home, cwd, "`layers`:[]")), "(none)");
    /* a bad file in a layer that is not read does not matter */
    char *cwd2 = newdir("proj-bad");
    put(cwd2, ".oh/config.yaml", "hooks: [\n");
    CHECK_REASON(ENG_OPTS(opts_layers(home, cwd2, "`layers`:[`user`]")), "user");
    /* configPath instead of the layers */
    char *cp = put(newdir("cp"), "custom.yaml", layer("configPath"));
    CHECK_REASON(ENG_OPTS(xfmt("{\"trusted\":true,\"home\":%s,\"cwd\":%s,\"configPath\":%s}", q(home), q(cwd), q(cp))),
                 "configPath");
    /* inline config instead of any file */
    CHECK_REASON(ENG_OPTS(xfmt("{\"trusted\":true,\"home\":%s,\"cwd\":%s,\"config\":{}}", q(home), q(cwd))), "(none)");
    /* no upward search: a subdirectory of the project does not see its .oh */
    char *sub = xfmt("%s/sub", cwd);
    mkdirs(sub);
    CHECK_REASON(ENG_OPTS(opts_layers(home, sub, NULL)), "user");
    /* missing files are simply absent */
    CHECK_REASON(ENG_OPTS(opts_layers(newdir("empty-home"), newdir("empty-proj"), NULL)), "(none)");
}

/* Version 1.1: hooks add up, the user's first; a project switches off only its own. (Version 1
   merged shallowly: a project `hooks:` replaced the user's whole.) */
static void test_layers_add_up(void) {
    char *home = newdir("home"), *cwd = newdir("proj");
    put(home, ".oh/config.yaml", layer("user"));
    put(cwd, ".oh/config.yaml", "hooks:\n  postToolUse:\n    - command: exit 0\n");
    CHECK_REASON(ENG_OPTS(opts_layers(home, cwd, NULL)), "user");
    put(cwd, ".oh/config.yaml", "hooks: {}\n");
    CHECK_REASON(ENG_OPTS(opts_layers(home, cwd, NULL)), "user");
    put(cwd, ".oh/config.yaml", "model: x\ndisableAllHooks: false\n");
    CHECK_REASON(ENG_OPTS(opts_layers(home, cwd, NULL)), "user");
    /* a project disableAllHooks switches off the project's hooks only */
    put(cwd, ".oh/config.yaml", layer("project"));
    put(cwd, ".oh/config.local.yaml", "disableAllHooks: true\n");
    CHECK_REASON(ENG_OPTS(opts_layers(home, cwd, NULL)), "user");
    /* disableAllHooks in the user layer switches off everything, and no project lifts it */
    put(home, ".oh/config.yaml", "disableAllHooks: true\n");
    put(cwd, ".oh/config.local.yaml", "disableAllHooks: false\n");
    OhHooks *h = ENG_OPTS(opts_layers(home, cwd, NULL));
    if (h) {
        jval *o = FIREJ(h, "{`event`:`preToolUse`,`toolName`:`Bash`}");
        CHECK_OUT(o, "{`allowed`:true,`hooks`:[]}");
    }
}

static void test_layer_errors_name_the_file(void) {
    char *home = newdir("home"), *cwd = newdir("proj");
    char *u = put(home, ".oh/config.yaml", "hooks:\n  preToolUse:\n    - command: exit 0\n      timeout: 0\n");
    check_cfg_err(__LINE__, NEW_ERROR(opts_layers(home, cwd, NULL)), u, 3, 4, "hooks.preToolUse[0].timeout", NULL);
    put(home, ".oh/config.yaml", "hooks: null\n");
    char *p = put(cwd, ".oh/config.yaml", "hooks:\n  preToolUse:\n    - command: exit 0\n      matcher: x\n");
    check_cfg_err(__LINE__, NEW_ERROR(opts_layers(home, cwd, NULL)), p, 3, 4,
                  "hooks.preToolUse[0].matcher|hooks.preToolUse[0]", "match");
    put(cwd, ".oh/config.yaml", "hooks: null\n");
    char *l = put(cwd, ".oh/config.local.yaml", "hooks:\n  PreToolUse: []\n");
    check_cfg_err(__LINE__, NEW_ERROR(opts_layers(home, cwd, NULL)), l, 2, 2, "hooks.PreToolUse|hooks", "preToolUse");
    /* the same bad local file, not read */
    CHECK(ENG_OPTS(opts_layers(home, cwd, "`layers`:[`user`,`project`]")) != NULL, "unread layers are not validated");
}

static void test_disable_all_hooks(void) {
    char *mark = xfmt("%s/disabled-ran", g_dir);
    char *c = xfmt("{\"disableAllHooks\":true,\"hooks\":{\"preToolUse\":[%s,%s],\"postToolUse\":[%s],"
                   "\"permissionRequest\":[{\"prompt\":\"ok?\"}]}}",
                   hk(xfmt("touch %s", mark)), hk("exit 1"), hk(xfmt("touch %s", mark)));
    OhHooks *h = ENG(c, "`waitNonBlocking`:true");
    if (!h) return;
    CHECK_OUT(FIREJ(h, "{`event`:`preToolUse`,`toolName`:`Bash`}"), "{`allowed`:true,`hooks`:[]}");
    CHECK_OUT(FIREJ(h, "{`event`:`postToolUse`,`toolName`:`Bash`}"), "{`allowed`:true,`hooks`:[]}");
    CHECK_OUT(FIREJ(h, "{`event`:`permissionRequest`,`toolName`:`Bash`}"), "{`allowed`:true,`hooks`:[]}");
    CHECK(!file_exists(mark), "no hook runs when disableAllHooks is true");
    /* bad input is still reported */
    jval *o = FIRE(h, "{nope");
    CHECK_FIRE_ERROR(o, "invalid_envelope");
    /* disableAllHooks: false is normal */
    h = ENG(J("{`disableAllHooks`:false,`hooks`:{`preToolUse`:[{`command`:`exit 1`}]}}"), NULL);
    if (h) CHECK_JBOOL(FIREJ(h, "{`event`:`preToolUse`}"), "allowed", 0);
}

/* §3.7: the trust store decides when `trusted` is absent. */
static void test_trust(void) {
    char *home = newdir("trust-home"), *cwd = newdir("trust-proj");
    char *mark = xfmt("%s/trust-ran", cwd);
    const char *c = cfg("preToolUse", hk(xfmt("touch %s; exit 1", mark)), NULL);
    const char *c2 = xfmt("{\"hooks\":{\"preToolUse\":[%s],\"userPromptSubmit\":[%s],\"permissionRequest\":[%s],"
                          "\"postToolUse\":[%s]}}",
                          hk(xfmt("touch %s; exit 1", mark)), hkj(xfmt("touch %s; exit 1", mark)),
                          hk(xfmt("touch %s; exit 1", mark)), hk(xfmt("touch %s", mark)));
    char *base = xfmt("\"home\":%s,\"cwd\":%s", q(home), q(cwd));
    char real[4096];
    CHECK(realpath(cwd, real) != NULL, "realpath");

    /* Version 1.1: the inline config is an own layer: trusted:false does not touch it, on any event. */
    OhHooks *h = ENG_OPTS(xfmt("{%s,\"trusted\":false,\"waitNonBlocking\":true,\"config\":%s}", base, c2));
    if (h) {
        const char *evs[] = {"preToolUse", "userPromptSubmit", "permissionRequest"};
        for (int i = 0; i < 3; i++) {
            unlink(mark);
            jval *o = FIRE(h, xfmt("{\"event\":\"%s\",\"toolName\":\"Bash\"}", evs[i]));
            CHECK_JBOOL(o, "allowed", 0);
            CHECK_LEN(o, "hooks", 1);
            CHECK_JSTR(o, "hooks.0.result", "deny");
            CHECK(file_exists(mark), "an own hook did not run in an untrusted directory (%s)", evs[i]);
        }
    }
    unlink(mark);

    /* The project file: read only when trusted; otherwise not opened, and the outcome says so. */
    mkdirs(xfmt("%s/.oh", cwd));
    write_file(xfmt("%s/.oh/config.yaml", cwd), c); /* JSON is YAML */
    h = ENG_OPTS(xfmt("{%s,\"layers\":[\"project\"]}", base));
    if (h) CHECK_JSTR(FIREJ(h, "{`event`:`preToolUse`}"), "hooks.0.result", "deny");
    CHECK(file_exists(mark), "with no trusted-dirs.json the project hook runs");
    unlink(mark);

    char *store = xfmt("%s/.oh/trusted-dirs.json", home);
    mkdirs(xfmt("%s/.oh", home));
    struct { const char *content; int trusted; } cases[] = {
        {xfmt("{\"trusted\":[%s]}", q(real)), 1},
        {xfmt("{\"trusted\":[\"/nonexistent\",%s]}", q(real)), 1},
        {"{\"trusted\":[]}", 0},
        {xfmt("{\"trusted\":[%s]}", q(oht_root)), 0}, /* a parent does not cover its children */
        {xfmt("{\"trusted\":[%s]}", q(xfmt("%s/sub", real))), 0},
        {"{not json", 0},
        {"{\"trusted\":\"everything\"}", 0},
        {"[]", 0},
        {"", 0},
        {"SYMLINK", 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        unlink(mark);
        if (streq(cases[i].content, "SYMLINK")) {
            /* cwd reached through a symlink: its resolved path is the listed one */
            char *link = xfmt("%s/trust-link", oht_root);
            CHECK(symlink(real, link) == 0, "symlink");
            write_file(store, xfmt("{\"trusted\":[%s]}", q(real)));
            h = ENG_OPTS(xfmt("{\"home\":%s,\"cwd\":%s,\"layers\":[\"project\"]}", q(home), q(link)));
        } else {
            write_file(store, cases[i].content);
            h = ENG_OPTS(xfmt("{%s,\"layers\":[\"project\"]}", base));
        }
        if (!h) continue;
        jval *o = FIREJ(h, "{`event`:`preToolUse`,`toolName`:`Bash`}");
        if (cases[i].trusted) {
            CHECK_JSTR(o, "hooks.0.result", "deny");
        } else {
            CHECK_JBOOL(o, "allowed", 1);
            CHECK_LEN(o, "hooks", 0);
            const char *w = json_str(json_path(o, "warnings.0"));
            CHECK(w && strstr(w, "exists and was not loaded: untrusted"), "store %s: warning %s", cases[i].content,
                  show(w));
        }
        CHECK(file_exists(mark) == cases[i].trusted, "store %s: the project hook %s", cases[i].content,
              cases[i].trusted ? "did not run" : "ran");
        /* trusted:true lifts the gate */
        h = ENG_OPTS(xfmt("{%s,\"trusted\":true,\"layers\":[\"project\"]}", base));
        if (h) CHECK_JSTR(FIREJ(h, "{`event`:`preToolUse`}"), "hooks.0.result", "deny");
    }
}

/* Sets a file's mtime into the future so a change is seen even on coarse clocks. */
static void bump(const char *path, int secs) {
    struct timeval tv[2];
    gettimeofday(&tv[0], NULL);
    tv[0].tv_sec += secs;
    tv[1] = tv[0];
    utimes(path, tv);
}
/* Fires until the reason is `want` or 3 s pass. */
static jval *fire_until_reason(OhHooks *h, const char *want) {
    jval *o = NULL;
    double end = now_ms() + 3000 + slack();
    do {
        o = FIREJ(h, "{`event`:`preToolUse`,`toolName`:`Bash`}");
        if (streq(json_str(json_get(o, "reason")), want)) break;
        sleep_ms(100);
    } while (now_ms() < end);
    return o;
}

static void test_reload_on_change(void) {
    char *d = newdir("reload");
    char *mark = xfmt("%s/config-change-ran", d);
    char *p = put(d, "config.yaml", layer("v1"));
    OhHooks *h = ENG_OPTS(opts_path(p));
    if (!h) return;
    CHECK_REASON(h, "v1");
    /* a new version with a configChange hook */
    write_file(p, xfmt("hooks:\n  preToolUse:\n    - command: \"printf '{\\\"reason\\\":\\\"v2\\\"}'\"\n      jsonIO: true\n"
                       "  configChange:\n    - command: touch %s\n",
                       mark));
    bump(p, 2);
    jval *o = fire_until_reason(h, "v2");
    CHECK_JSTR(o, "reason", "v2");
    CHECK(wait_for_file(mark, 3000), "the configChange hooks of the new config run after a reload");
    CHECK_ABSENT(o, "warnings");
    /* a broken change keeps the old config and is reported in warnings */
    write_file(p, "hooks:\n  preToolUse: [\n");
    bump(p, 4);
    double end = now_ms() + 3000 + slack();
    do {
        o = FIREJ(h, "{`event`:`preToolUse`,`toolName`:`Bash`}");
        if (json_get(o, "warnings")) break;
        sleep_ms(100);
    } while (now_ms() < end);
    CHECK(json_get(o, "warnings") && json_get(o, "warnings")->t == J_ARR && json_get(o, "warnings")->len >= 1 &&
              json_str(json_path(o, "warnings.0")),
          "a broken config file shows in warnings: %s", gc_str(json_dump(o)));
    CHECK_JSTR(o, "reason", "v2");
    o = FIREJ(h, "{`event`:`preToolUse`,`toolName`:`Bash`}");
    CHECK(json_get(o, "warnings") != NULL, "the warning stays until the file is fixed: %s", gc_str(json_dump(o)));
    /* fixed */
    write_file(p, layer("v3"));
    bump(p, 6);
    o = fire_until_reason(h, "v3");
    CHECK_JSTR(o, "reason", "v3");
    CHECK_ABSENT(o, "warnings");

    /* a layer file created after start is noticed */
    char *home = newdir("reload-home"), *cwd = newdir("reload-proj");
    h = ENG_OPTS(opts_layers(home, cwd, NULL));
    if (!h) return;
    CHECK_REASON(h, "(none)");
    put(cwd, ".oh/config.yaml", layer("created"));
    o = fire_until_reason(h, "created");
    CHECK_JSTR(o, "reason", "created");
}

/* oh_hooks_reload (in the header beside the five contract functions): re-read now. */
static void test_reload_now(void) {
    char *err = (char *)"sentinel";
    CHECK(oh_hooks_reload(NULL, &err) != 0, "reload(NULL) fails");
    jval *e = err && err != (char *)"sentinel" ? parse_owned(err, "reload error") : NULL;
    CHECK_JSTR(e, "code", "null_argument");
    CHECK(oh_hooks_reload(NULL, NULL) != 0, "reload(NULL, NULL) fails quietly");

    OhHooks *h = ENG(J("{}"), NULL);
    if (h) {
        err = (char *)"sentinel";
        CHECK(oh_hooks_reload(h, &err) == 0 && err == NULL, "an inline config reloads as a no-op, *error_out = NULL");
    }
    char *d = newdir("reload-now");
    char *p = put(d, "config.yaml", layer("one"));
    h = ENG_OPTS(opts_path(p));
    if (!h) return;
    CHECK_REASON(h, "one");
    write_file(p, layer("two"));
    bump(p, 2);
    err = (char *)"sentinel";
    CHECK(oh_hooks_reload(h, &err) == 0 && err == NULL, "reload of a good file succeeds");
    CHECK_REASON(h, "two");
    write_file(p, "hooks:\n  preToolUse:\n    - command: x\n      timeout: 0\n");
    bump(p, 4);
    err = NULL;
    CHECK(oh_hooks_reload(h, &err) != 0, "reload of a bad file fails");
    e = err ? parse_owned(err, "reload error") : NULL;
    CHECK_JSTR(e, "code", "invalid_config");
    CHECK_JSTR(e, "file", p);
    CHECK_JSTR(e, "path", "hooks.preToolUse[0].timeout");
    jval *o = FIREJ(h, "{`event`:`preToolUse`,`toolName`:`Bash`}");
    CHECK_JSTR(o, "reason", "two");
    CHECK(json_get(o, "warnings") != NULL, "the failed reload shows in warnings: %s", gc_str(json_dump(o)));
    CHECK(oh_hooks_reload(h, NULL) != 0, "still bad, error_out NULL");
}

int main(void) {
    setup("test_config");
    setenv("HOME", g_dir, 1);
    if (chdir(g_dir)) return 2;
    RUN(test_validation_errors);
    RUN(test_valid_files);
    RUN(test_inline_config_errors);
    RUN(test_json_config_path);
    RUN(test_layers);
    RUN(test_layers_add_up);
    RUN(test_layer_errors_name_the_file);
    RUN(test_disable_all_hooks);
    RUN(test_trust);
    RUN(test_reload_on_change);
    RUN(test_reload_now);
    return DONE();
}
