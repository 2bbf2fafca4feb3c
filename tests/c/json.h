/* json.h — a small JSON reader/writer for the C tests (test code only, not part of the library).
 *
 * Parses into a tree that keeps object key order, deep-compares (object key order ignored,
 * numbers compared as doubles), reads fields by dotted path ("hooks.0.result"), removes keys and
 * serializes compactly (keys in their original order). Strings may contain NUL (\u0000): every
 * string carries its length. */
#ifndef OHT_JSON_H
#define OHT_JSON_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ } jtype;

typedef struct jval {
    jtype t;
    int b;              /* J_BOOL */
    double n;           /* J_NUM */
    char *num;          /* J_NUM: the number's original text */
    char *s;            /* J_STR (NUL-terminated, may hold NULs: see slen) */
    size_t slen;
    struct jval **items; /* J_ARR, J_OBJ values */
    char **keys;         /* J_OBJ keys (NUL-terminated) */
    size_t *klens;
    size_t len, cap;
} jval;

/* ---------- growable string buffer ---------- */
typedef struct { char *p; size_t len, cap; } sbuf;

static inline void sb_reserve(sbuf *b, size_t extra) {
    if (b->len + extra + 1 > b->cap) {
        size_t c = b->cap ? b->cap : 64;
        while (c < b->len + extra + 1) c *= 2;
        char *np = realloc(b->p, c);
        if (!np) { fprintf(stderr, "out of memory\n"); abort(); }
        b->p = np;
        b->cap = c;
    }
}
static inline void sb_putn(sbuf *b, const char *s, size_t n) {
    sb_reserve(b, n);
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = 0;
}
static inline void sb_puts(sbuf *b, const char *s) { sb_putn(b, s, strlen(s)); }
static inline void sb_putc(sbuf *b, char c) { sb_putn(b, &c, 1); }
static inline void sb_printf(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static inline void sb_printf(sbuf *b, const char *fmt, ...) {
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) n = 0;
    sb_reserve(b, (size_t)n);
    vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap2);
    va_end(ap2);
    b->len += (size_t)n;
}
/* Returns the buffer's string (never NULL), owned by the caller. */
static inline char *sb_take(sbuf *b) {
    if (!b->p) sb_reserve(b, 0), b->p[0] = 0;
    char *p = b->p;
    b->p = NULL;
    b->len = b->cap = 0;
    return p;
}

/* ---------- tree ---------- */
static inline jval *j_new(jtype t) {
    jval *v = calloc(1, sizeof *v);
    if (!v) abort();
    v->t = t;
    return v;
}

static inline void json_free(jval *v) {
    if (!v) return;
    free(v->num);
    free(v->s);
    for (size_t i = 0; i < v->len; i++) {
        json_free(v->items[i]);
        if (v->keys) free(v->keys[i]);
    }
    free(v->items);
    free(v->keys);
    free(v->klens);
    free(v);
}

static inline void j_push(jval *c, char *key, size_t klen, jval *item) {
    if (c->len == c->cap) {
        c->cap = c->cap ? c->cap * 2 : 4;
        c->items = realloc(c->items, c->cap * sizeof *c->items);
        if (c->t == J_OBJ) {
            c->keys = realloc(c->keys, c->cap * sizeof *c->keys);
            c->klens = realloc(c->klens, c->cap * sizeof *c->klens);
        }
        if (!c->items || (c->t == J_OBJ && (!c->keys || !c->klens))) abort();
    }
    if (c->t == J_OBJ) {
        c->keys[c->len] = key;
        c->klens[c->len] = klen;
    }
    c->items[c->len++] = item;
}

/* ---------- parser ---------- */
typedef struct { const char *p, *end; char err[200]; int depth; } jparser;

static inline void jp_ws(jparser *ps) {
    while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r')) ps->p++;
}
static inline jval *jp_fail(jparser *ps, const char *msg) {
    if (!ps->err[0]) snprintf(ps->err, sizeof ps->err, "%s at byte %ld", msg, (long)(ps->end - ps->p));
    return NULL;
}
static inline int jp_hex4(jparser *ps, unsigned *out) {
    if (ps->end - ps->p < 4) return 0;
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        char c = ps->p[i];
        v <<= 4;
        if (c >= '0' && c <= '9') v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f') v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') v |= (unsigned)(c - 'A' + 10);
        else return 0;
    }
    ps->p += 4;
    *out = v;
    return 1;
}
static inline void jp_utf8(sbuf *b, unsigned cp) {
    char o[4];
    if (cp < 0x80) { o[0] = (char)cp; sb_putn(b, o, 1); }
    else if (cp < 0x800) { o[0] = (char)(0xC0 | (cp >> 6)); o[1] = (char)(0x80 | (cp & 0x3F)); sb_putn(b, o, 2); }
    else if (cp < 0x10000) {
        o[0] = (char)(0xE0 | (cp >> 12)); o[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        o[2] = (char)(0x80 | (cp & 0x3F)); sb_putn(b, o, 3);
    } else {
        o[0] = (char)(0xF0 | (cp >> 18)); o[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
        o[2] = (char)(0x80 | ((cp >> 6) & 0x3F)); o[3] = (char)(0x80 | (cp & 0x3F)); sb_putn(b, o, 4);
    }
}
/* Parses a string at ps->p (which points at '"'); returns malloc'd bytes and length. */
static inline char *jp_string(jparser *ps, size_t *len) {
    sbuf b = {0};
    ps->p++;
    while (ps->p < ps->end && *ps->p != '"') {
        unsigned char c = (unsigned char)*ps->p;
        if (c < 0x20) { free(b.p); jp_fail(ps, "control character in string"); return NULL; }
        if (c != '\\') { sb_putc(&b, (char)c); ps->p++; continue; }
        ps->p++;
        if (ps->p >= ps->end) break;
        char e = *ps->p++;
        switch (e) {
        case '"': sb_putc(&b, '"'); break;
        case '\\': sb_putc(&b, '\\'); break;
        case '/': sb_putc(&b, '/'); break;
        case 'b': sb_putc(&b, '\b'); break;
        case 'f': sb_putc(&b, '\f'); break;
        case 'n': sb_putc(&b, '\n'); break;
        case 'r': sb_putc(&b, '\r'); break;
        case 't': sb_putc(&b, '\t'); break;
        case 'u': {
            unsigned cp;
            if (!jp_hex4(ps, &cp)) { free(b.p); jp_fail(ps, "bad \\u escape"); return NULL; }
            if (cp >= 0xD800 && cp < 0xDC00 && ps->end - ps->p >= 6 && ps->p[0] == '\\' && ps->p[1] == 'u') {
                const char *save = ps->p;
                unsigned lo;
                ps->p += 2;
                if (jp_hex4(ps, &lo) && lo >= 0xDC00 && lo < 0xE000) cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                else ps->p = save;
            }
            jp_utf8(&b, cp);
            break;
        }
        default: free(b.p); jp_fail(ps, "bad escape"); return NULL;
        }
    }
    if (ps->p >= ps->end) { free(b.p); jp_fail(ps, "unterminated string"); return NULL; }
    ps->p++;
    *len = b.len;
    return sb_take(&b);
}

static inline jval *jp_value(jparser *ps) {
    jp_ws(ps);
    if (ps->p >= ps->end) return jp_fail(ps, "unexpected end");
    if (++ps->depth > 1000) return jp_fail(ps, "nested too deep");
    jval *v = NULL;
    char c = *ps->p;
    if (c == '{' || c == '[') {
        v = j_new(c == '{' ? J_OBJ : J_ARR);
        char close = c == '{' ? '}' : ']';
        ps->p++;
        jp_ws(ps);
        if (ps->p < ps->end && *ps->p == close) { ps->p++; ps->depth--; return v; }
        for (;;) {
            char *key = NULL;
            size_t klen = 0;
            if (v->t == J_OBJ) {
                jp_ws(ps);
                if (ps->p >= ps->end || *ps->p != '"') { json_free(v); return jp_fail(ps, "expected key"); }
                key = jp_string(ps, &klen);
                if (!key) { json_free(v); return NULL; }
                jp_ws(ps);
                if (ps->p >= ps->end || *ps->p != ':') { free(key); json_free(v); return jp_fail(ps, "expected ':'"); }
                ps->p++;
            }
            jval *item = jp_value(ps);
            if (!item) { free(key); json_free(v); return NULL; }
            j_push(v, key, klen, item);
            jp_ws(ps);
            if (ps->p < ps->end && *ps->p == ',') { ps->p++; continue; }
            if (ps->p < ps->end && *ps->p == close) { ps->p++; break; }
            json_free(v);
            return jp_fail(ps, "expected ',' or close");
        }
    } else if (c == '"') {
        size_t n;
        char *s = jp_string(ps, &n);
        if (!s) return NULL;
        v = j_new(J_STR);
        v->s = s;
        v->slen = n;
    } else if (c == 't' && ps->end - ps->p >= 4 && !memcmp(ps->p, "true", 4)) {
        v = j_new(J_BOOL); v->b = 1; ps->p += 4;
    } else if (c == 'f' && ps->end - ps->p >= 5 && !memcmp(ps->p, "false", 5)) {
        v = j_new(J_BOOL); v->b = 0; ps->p += 5;
    } else if (c == 'n' && ps->end - ps->p >= 4 && !memcmp(ps->p, "null", 4)) {
        v = j_new(J_NULL); ps->p += 4;
    } else if (c == '-' || (c >= '0' && c <= '9')) {
        const char *st = ps->p;
        if (*ps->p == '-') ps->p++;
        while (ps->p < ps->end && ((*ps->p >= '0' && *ps->p <= '9') || *ps->p == '.' || *ps->p == 'e' ||
                                   *ps->p == 'E' || *ps->p == '+' || *ps->p == '-'))
            ps->p++;
        size_t n = (size_t)(ps->p - st);
        v = j_new(J_NUM);
        v->num = malloc(n + 1);
        if (!v->num) abort();
        memcpy(v->num, st, n);
        v->num[n] = 0;
        char *endp;
        v->n = strtod(v->num, &endp);
        if (*endp || n == 0 || (n == 1 && st[0] == '-')) { json_free(v); return jp_fail(ps, "bad number"); }
    } else {
        return jp_fail(ps, "unexpected character");
    }
    ps->depth--;
    return v;
}

/* Parses len bytes at s. Returns NULL on error, with a message in err (may be NULL). */
static inline jval *json_parse_n(const char *s, size_t len, char *err, size_t errlen) {
    jparser ps = {.p = s, .end = s + len};
    ps.err[0] = 0;
    jval *v = jp_value(&ps);
    if (v) {
        jp_ws(&ps);
        if (ps.p != ps.end) { json_free(v); v = NULL; jp_fail(&ps, "trailing characters"); }
    }
    if (!v && err && errlen) snprintf(err, errlen, "%s", ps.err);
    return v;
}
static inline jval *json_parse(const char *s) {
    return s ? json_parse_n(s, strlen(s), NULL, 0) : NULL;
}

/* ---------- access ---------- */
static inline jval *json_get(const jval *o, const char *key) {
    if (!o || o->t != J_OBJ) return NULL;
    size_t kl = strlen(key);
    for (size_t i = 0; i < o->len; i++)
        if (o->klens[i] == kl && !memcmp(o->keys[i], key, kl)) return o->items[i];
    return NULL;
}
static inline jval *json_at(const jval *a, size_t i) {
    if (!a || (a->t != J_ARR && a->t != J_OBJ) || i >= a->len) return NULL;
    return a->items[i];
}
/* "a.b.0.c": numeric segments index arrays. */
static inline jval *json_path(const jval *v, const char *path) {
    char seg[256];
    const jval *cur = v;
    while (cur && *path) {
        size_t n = strcspn(path, ".");
        if (n >= sizeof seg) return NULL;
        memcpy(seg, path, n);
        seg[n] = 0;
        path += n;
        if (*path == '.') path++;
        if (cur->t == J_ARR) {
            char *e;
            long i = strtol(seg, &e, 10);
            if (*e || i < 0) return NULL;
            cur = json_at(cur, (size_t)i);
        } else {
            cur = json_get(cur, seg);
        }
    }
    return (jval *)cur;
}
static inline const char *json_str(const jval *v) { return v && v->t == J_STR ? v->s : NULL; }
static inline const char *json_typename(const jval *v) {
    if (!v) return "absent";
    switch (v->t) {
    case J_NULL: return "null";
    case J_BOOL: return "bool";
    case J_NUM: return "number";
    case J_STR: return "string";
    case J_ARR: return "array";
    default: return "object";
    }
}

static inline void json_remove(jval *o, const char *key) {
    if (!o || o->t != J_OBJ) return;
    size_t kl = strlen(key);
    for (size_t i = 0; i < o->len; i++) {
        if (o->klens[i] == kl && !memcmp(o->keys[i], key, kl)) {
            json_free(o->items[i]);
            free(o->keys[i]);
            memmove(o->items + i, o->items + i + 1, (o->len - i - 1) * sizeof *o->items);
            memmove(o->keys + i, o->keys + i + 1, (o->len - i - 1) * sizeof *o->keys);
            memmove(o->klens + i, o->klens + i + 1, (o->len - i - 1) * sizeof *o->klens);
            o->len--;
            return;
        }
    }
}

/* Deep equality; object key order ignored; numbers as doubles. */
static inline int json_equal(const jval *a, const jval *b) {
    if (!a || !b) return a == b;
    if (a->t != b->t) return 0;
    switch (a->t) {
    case J_NULL: return 1;
    case J_BOOL: return !a->b == !b->b;
    case J_NUM: return a->n == b->n;
    case J_STR: return a->slen == b->slen && !memcmp(a->s, b->s, a->slen);
    case J_ARR:
        if (a->len != b->len) return 0;
        for (size_t i = 0; i < a->len; i++)
            if (!json_equal(a->items[i], b->items[i])) return 0;
        return 1;
    default:
        if (a->len != b->len) return 0;
        for (size_t i = 0; i < a->len; i++) {
            const jval *other = NULL;
            for (size_t k = 0; k < b->len; k++)
                if (b->klens[k] == a->klens[i] && !memcmp(b->keys[k], a->keys[i], a->klens[i])) { other = b->items[k]; break; }
            if (!other || !json_equal(a->items[i], other)) return 0;
        }
        return 1;
    }
}

/* ---------- writer ---------- */
static inline void json_put_string(sbuf *b, const char *s, size_t n) {
    sb_putc(b, '"');
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        switch (c) {
        case '"': sb_puts(b, "\\\""); break;
        case '\\': sb_puts(b, "\\\\"); break;
        case '\n': sb_puts(b, "\\n"); break;
        case '\r': sb_puts(b, "\\r"); break;
        case '\t': sb_puts(b, "\\t"); break;
        case '\b': sb_puts(b, "\\b"); break;
        case '\f': sb_puts(b, "\\f"); break;
        default:
            if (c < 0x20) sb_printf(b, "\\u%04x", c);
            else sb_putc(b, (char)c);
        }
    }
    sb_putc(b, '"');
}
static inline void json_write(sbuf *b, const jval *v) {
    if (!v) { sb_puts(b, "null"); return; }
    switch (v->t) {
    case J_NULL: sb_puts(b, "null"); break;
    case J_BOOL: sb_puts(b, v->b ? "true" : "false"); break;
    case J_NUM:
        if (v->num) sb_puts(b, v->num);
        else sb_printf(b, "%.17g", v->n);
        break;
    case J_STR: json_put_string(b, v->s, v->slen); break;
    case J_ARR:
    case J_OBJ:
        sb_putc(b, v->t == J_ARR ? '[' : '{');
        for (size_t i = 0; i < v->len; i++) {
            if (i) sb_putc(b, ',');
            if (v->t == J_OBJ) {
                json_put_string(b, v->keys[i], v->klens[i]);
                sb_putc(b, ':');
            }
            json_write(b, v->items[i]);
        }
        sb_putc(b, v->t == J_ARR ? ']' : '}');
        break;
    }
}
/* Compact serialization, keys in their original order. Owned by the caller. */
static inline char *json_dump(const jval *v) {
    sbuf b = {0};
    json_write(&b, v);
    return sb_take(&b);
}
/* A C string quoted as a JSON string. Owned by the caller. */
static inline char *json_quote(const char *s) {
    sbuf b = {0};
    json_put_string(&b, s, strlen(s));
    return sb_take(&b);
}

#endif
