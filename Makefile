# oh-hooks: build, demo, test, install. `make help` lists the targets.
CARGO  ?= cargo
PREFIX ?= /usr/local
VERSION := $(shell sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
RELEASE := target/release

.PHONY: help lib demo test install uninstall bench clean

help:
	@echo "make demo       build, then show the example policy allowing and denying real envelopes"
	@echo "make test       every test suite: Rust, C (shared, static, valgrind, ASan+UBSan), Node, Go, Python"
	@echo "make install    header, libraries and oh_hooks.pc under PREFIX (default /usr/local)"
	@echo "make bench      the performance table (figures, not a test)"

lib:
	$(CARGO) build --release --locked

demo: lib
	./examples/demo.sh

test:
	./tests/run-all.sh

install: lib
	install -d $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/bin
	install -m 644 include/oh_hooks.h $(DESTDIR)$(PREFIX)/include/
	install -m 755 $(RELEASE)/liboh_hooks.so $(DESTDIR)$(PREFIX)/lib/
	install -m 644 $(RELEASE)/liboh_hooks.a $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(RELEASE)/oh-hooks $(DESTDIR)$(PREFIX)/bin/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' oh_hooks.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/oh_hooks.pc

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/include/oh_hooks.h $(DESTDIR)$(PREFIX)/lib/liboh_hooks.so \
	      $(DESTDIR)$(PREFIX)/lib/liboh_hooks.a $(DESTDIR)$(PREFIX)/bin/oh-hooks \
	      $(DESTDIR)$(PREFIX)/lib/pkgconfig/oh_hooks.pc

bench: lib
	./bench/run.sh

clean:
	$(CARGO) clean
