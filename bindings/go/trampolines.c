// C side of the host-callback trampolines (callbacks.go): the function pointers the engine
// calls. They only adapt signatures: user_data carries a runtime/cgo.Handle (a uintptr), and
// const char * becomes the char * that cgo's exported functions take.
#include <stdint.h>
#include "oh_hooks.h"
#include "_cgo_export.h"

/* The call travels through Go as a uintptr_t: it is an opaque value, not memory, and Go must
 * never see it as a pointer (a small value in a pointer-typed variable crashes its stack copier). */
static void call_trampoline(void *user_data, const char *request_json, OhHooksCall *call) {
    ohhooksGoCall((uintptr_t)user_data, (char *)request_json, (uintptr_t)call);
}

void ohhooks_respond(uintptr_t call, const char *response_json) {
    oh_hooks_respond((OhHooksCall *)call, response_json);
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
