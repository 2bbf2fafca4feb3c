//go:build ohhooks_system

package ohhooks

// With `-tags ohhooks_system` the engine is the one installed on the system (`make install`, the
// C tarball, a distribution package), found through pkg-config: `PKG_CONFIG_PATH` points at its
// oh_hooks.pc when it is not under a standard prefix. pkg-config's flags link the shared library;
// at run time the dynamic loader must find liboh_hooks.so.0 (ld.so.cache or LD_LIBRARY_PATH).

/*
#cgo pkg-config: oh_hooks
*/
import "C"
