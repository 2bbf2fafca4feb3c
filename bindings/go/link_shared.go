//go:build ohhooks_shared

package ohhooks

// With `-tags ohhooks_shared` the engine is linked dynamically against
// target/release/liboh_hooks.so, found at run time through an rpath pointing at that directory
// (or LD_LIBRARY_PATH when the library is moved).

/*
#cgo LDFLAGS: -L${SRCDIR}/../../target/release -loh_hooks -Wl,-rpath,${SRCDIR}/../../target/release
*/
import "C"
