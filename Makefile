# oh-hooks: build, demo, test, install. `make help` lists the targets.
CARGO  ?= cargo
PREFIX ?= /usr/local
VERSION := $(shell sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
MAJOR   := $(firstword $(subst ., ,$(VERSION)))
RELEASE := target/release
# What `make install` copies: the C tree `make dist` builds (stripped, LTO, SONAME).
CDIST   := dist/c/oh-hooks-$(VERSION)-linux-$(shell uname -m)

.PHONY: help lib header header-check demo test dist install uninstall bench clean

help:
	@echo "make demo       build, then show the example policy allowing and denying real envelopes, and a C harness with host callbacks"
	@echo "make test       every test suite: Rust, C (shared, static, valgrind, ASan+UBSan), dist, install, Node, Go, Python"
	@echo "make dist       this platform's packages in dist/, built for glibc 2.17: C tarball, Python wheel + sdist, npm tarball, Go module"
	@echo "make install    what the C tarball holds (header, libraries, oh_hooks.pc, CLI) under PREFIX (default /usr/local)"
	@echo "make bench      the performance table (figures, not a test)"
	@echo "make header     copy the C header cbindgen generated from src/ffi/ (in OUT_DIR) to include/oh_hooks.h"
	@echo "make header-check  fail when include/oh_hooks.h differs from what src/ffi/ generates"

lib:
	$(CARGO) build --release --locked

# build.rs writes the generated header into its OUT_DIR only; cargo names that directory in its
# build-script message.
header:
	@out=$$($(CARGO) build --release --locked --message-format=json | \
	  sed -n 's|.*"reason":"build-script-executed","package_id":"[^"]*#oh-hooks@[^"]*".*"out_dir":"\([^"]*\)".*|\1|p' | tail -1); \
	  [ -f "$$out/oh_hooks.h" ] || { echo "error: cargo reported no OUT_DIR with oh_hooks.h for oh-hooks" >&2; exit 1; }; \
	  if cmp -s "$$out/oh_hooks.h" include/oh_hooks.h; then echo "include/oh_hooks.h is up to date"; \
	  else cp "$$out/oh_hooks.h" include/oh_hooks.h && echo "include/oh_hooks.h regenerated from src/ffi/: commit it"; fi

header-check:
	$(CARGO) test --release --locked --test it -- header::

demo: lib
	./examples/demo.sh

test:
	./tests/run-all.sh

dist:
	./packaging/dist.sh

install:
	./packaging/dist.sh c
	install -d $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/bin \
	           $(DESTDIR)$(PREFIX)/share/doc/oh-hooks
	install -m 644 $(CDIST)/include/oh_hooks.h $(DESTDIR)$(PREFIX)/include/
	install -m 755 $(CDIST)/lib/liboh_hooks.so.$(VERSION) $(DESTDIR)$(PREFIX)/lib/
	ln -sf liboh_hooks.so.$(VERSION) $(DESTDIR)$(PREFIX)/lib/liboh_hooks.so.$(MAJOR)
	ln -sf liboh_hooks.so.$(MAJOR) $(DESTDIR)$(PREFIX)/lib/liboh_hooks.so
	install -m 644 $(CDIST)/lib/liboh_hooks.a $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(CDIST)/bin/oh-hooks $(DESTDIR)$(PREFIX)/bin/
	install -m 644 $(CDIST)/LICENSE-MIT $(CDIST)/LICENSE-APACHE $(DESTDIR)$(PREFIX)/share/doc/oh-hooks/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' oh_hooks.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/oh_hooks.pc
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ] && command -v ldconfig >/dev/null; then ldconfig; fi

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/include/oh_hooks.h $(DESTDIR)$(PREFIX)/lib/liboh_hooks.so \
	      $(DESTDIR)$(PREFIX)/lib/liboh_hooks.so.$(MAJOR) $(DESTDIR)$(PREFIX)/lib/liboh_hooks.so.$(VERSION) \
	      $(DESTDIR)$(PREFIX)/lib/liboh_hooks.a $(DESTDIR)$(PREFIX)/bin/oh-hooks \
	      $(DESTDIR)$(PREFIX)/lib/pkgconfig/oh_hooks.pc
	rm -rf $(DESTDIR)$(PREFIX)/share/doc/oh-hooks

bench: lib
	./bench/run.sh

clean:
	$(CARGO) clean
	rm -rf dist
