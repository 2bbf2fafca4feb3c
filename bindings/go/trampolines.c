// C side of the host-callback trampolines (callbacks.go): the function pointers the engine
// calls. They only adapt signatures: user_data carries a runtime/cgo.Handle (a uintptr), and
// const char * becomes the char * that cgo's exported functions take.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "oh_hooks.h"
#include "_cgo_export.h"

/* What ohhooksGoCall returns besides an answer's length (callbacks.go has the same values). */
#define OHHOOKS_NO_DECISION (-1)
#define OHHOOKS_ANSWERED_ELSEWHERE (-2)

/* An Inline function's answer comes back in this thread's buffer and is given to the engine
 * here, so that a call crosses from C into Go once and never back (each crossing costs about
 * 100-200 ns). A callback that fires again from inside its function uses the buffer in between,
 * before the outer answer is written to it. */
#define OHHOOKS_ANSWER_CAP 4096
static _Thread_local char answer_buf[OHHOOKS_ANSWER_CAP + 1];

/* The call travels through Go as a uintptr_t: it is an opaque value, not memory, and Go must
 * never see it as a pointer (a small value in a pointer-typed variable crashes its stack copier). */
static void call_trampoline(void *user_data, const char *request_json, OhHooksCall *call) {
    long long n = ohhooksGoCall((uintptr_t)user_data, (char *)request_json, strlen(request_json), (uintptr_t)call,
                                answer_buf, OHHOOKS_ANSWER_CAP);
    if (n == OHHOOKS_NO_DECISION) {
        oh_hooks_respond(call, NULL);
    } else if (n >= 0 && n <= OHHOOKS_ANSWER_CAP) {
        answer_buf[n] = '\0';
        oh_hooks_respond(call, answer_buf);
    }
}

/* Answers call with the len bytes at response (NULL: no decision), copied with a NUL after them. */
void ohhooks_respond(uintptr_t call, const char *response, size_t len) {
    static const char nomem[] = "{\"decision\":\"deny\",\"reason\":\"callback answer lost: out of memory\"}";
    char small[512];
    char *text;

    if (response == NULL) {
        oh_hooks_respond((OhHooksCall *)call, NULL);
        return;
    }
    text = len < sizeof small ? small : malloc(len + 1);
    if (text == NULL) {
        oh_hooks_respond((OhHooksCall *)call, nomem);
        return;
    }
    memcpy(text, response, len);
    text[len] = '\0';
    oh_hooks_respond((OhHooksCall *)call, text);
    if (text != small) free(text);
}

static void release_trampoline(void *user_data) { ohhooksGoRelease((uintptr_t)user_data); }

static void observer_trampoline(void *user_data, const char *record_json) {
    ohhooksGoRecord((uintptr_t)user_data, (char *)record_json);
}

int ohhooks_register(const OhHooks *hooks, const char *name, uintptr_t handle, char **error_out) {
    if (handle == 0) return oh_hooks_register(hooks, name, NULL, NULL, NULL, error_out);
    return oh_hooks_register(hooks, name, call_trampoline, (void *)handle, release_trampoline, error_out);
}

int ohhooks_observe(const OhHooks *hooks, uintptr_t handle, char **error_out) {
    if (handle == 0) return oh_hooks_observe(hooks, NULL, NULL, NULL, error_out);
    return oh_hooks_observe(hooks, observer_trampoline, (void *)handle, release_trampoline, error_out);
}
