//go:build ohhooks_shared && !ohhooks_system

package ohhooks

// With `-tags ohhooks_shared`, in the repository, the engine is linked dynamically against
// target/release/liboh_hooks.so, found at run time through an rpath pointing at that directory
// (or LD_LIBRARY_PATH when the library is moved).

/*
#cgo CFLAGS: -I${SRCDIR}/../../include
#cgo LDFLAGS: -L${SRCDIR}/../../target/release -loh_hooks -Wl,-rpath,${SRCDIR}/../../target/release
*/
import "C"
