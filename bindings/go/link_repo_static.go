//go:build !ohhooks_shared && !ohhooks_system

package ohhooks

// In the repository, by default, the engine is linked statically from the release build, so a
// program using this package has no run-time dependency on liboh_hooks.so. Build the engine first:
// `cargo build --release` in the repository root. (The published module, made by `make dist`,
// replaces the link_repo_*.go files with link_bundled.go, which links the static library it
// carries in lib/<goos>-<goarch>/.)

/*
#cgo CFLAGS: -I${SRCDIR}/../../include
#cgo LDFLAGS: ${SRCDIR}/../../target/release/liboh_hooks.a -lpthread -ldl -lm
*/
import "C"
