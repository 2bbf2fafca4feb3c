//go:build !ohhooks_shared

package ohhooks

// By default the engine is linked statically from the repository's release build, so a program
// using this package has no run-time dependency on liboh_hooks.so. Build the engine first:
// `cargo build --release` in the repository root.

/*
#cgo LDFLAGS: ${SRCDIR}/../../target/release/liboh_hooks.a -lpthread -ldl -lm
*/
import "C"
