# cx5prof: build, test, install. See README.md.
PREFIX    ?= /usr/local
DESTDIR   ?=
BUILDDIR  ?= build
BIN       ?= cx5prof
PKGS      := yaml-0.1 libnl-route-3.0 libcurl sqlite3 json-c
CC        ?= cc
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   = $(shell pkg-config --libs $(PKGS) 2>/dev/null)
CFLAGS    ?= -O2 -g
CFLAGS    += -std=gnu11 -Wall -Wextra -Werror -Wshadow -Wformat=2 -Wno-format-nonliteral \
             -Wmissing-prototypes -Wstrict-prototypes -fno-strict-aliasing -D_FILE_OFFSET_BITS=64
CPPFLAGS  += -Iengine $(PKG_CFLAGS)
LDLIBS    += $(PKG_LIBS) -lm -lpthread
FUZZ_SECONDS ?= 20

ENGINE_SRC := $(filter-out engine/main.c,$(wildcard engine/*.c))
ENGINE_OBJ := $(ENGINE_SRC:%.c=$(BUILDDIR)/%.o)
UNIT_SRC   := $(wildcard tests/unit/test_*.c)
UNIT_BIN   := $(UNIT_SRC:%.c=$(BUILDDIR)/%)
INTEG      := $(sort $(wildcard tests/integration/*.t))

.PHONY: all check units run-tests asan install uninstall demo clean deps bench format

all: $(BIN)

$(BUILDDIR)/%.o: %.c $(wildcard engine/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(BUILDDIR)/libcx5.a: $(ENGINE_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

$(BIN): $(BUILDDIR)/engine/main.o $(BUILDDIR)/libcx5.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILDDIR)/tests/unit/%: tests/unit/%.c $(BUILDDIR)/libcx5.a $(wildcard tests/unit/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Itests/unit $(CFLAGS) -Wno-missing-prototypes -o $@ $< $(BUILDDIR)/libcx5.a \
		$(LDLIBS) $(shell pkg-config --libs cmocka 2>/dev/null)

deps:
	@./contrib/install-deps.sh

# The README's test command: installs what it needs, builds, runs every test.
check: deps
	@$(MAKE) --no-print-directory all units
	@$(MAKE) --no-print-directory run-tests

units: $(UNIT_BIN)

run-tests:
	CX5PROF=$(abspath $(BIN)) CMOCKA_MESSAGE_OUTPUT=TAP \
		prove --merge --timer -e '' $(UNIT_BIN) :: 
	CX5PROF=$(abspath $(BIN)) prove --merge --timer $(INTEG)

# The whole suite under AddressSanitizer and UBSan, in its own build tree.
asan: deps
	@$(MAKE) --no-print-directory BUILDDIR=build/asan BIN=build/asan/cx5prof \
		CFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" \
		LDFLAGS="-fsanitize=address,undefined" all units run-tests

install: $(BIN)
	install -D -m 0755 $(BIN) $(DESTDIR)$(PREFIX)/sbin/cx5prof
	install -D -m 0644 contrib/man/cx5prof.8 $(DESTDIR)$(PREFIX)/share/man/man8/cx5prof.8
	install -d $(DESTDIR)$(PREFIX)/share/cx5prof/profiles $(DESTDIR)$(PREFIX)/share/cx5prof/schemas
	install -m 0644 profiles/*.yaml $(DESTDIR)$(PREFIX)/share/cx5prof/profiles/
	install -m 0644 schemas/*.json $(DESTDIR)$(PREFIX)/share/cx5prof/schemas/

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/sbin/cx5prof $(DESTDIR)$(PREFIX)/share/man/man8/cx5prof.8
	rm -rf $(DESTDIR)$(PREFIX)/share/cx5prof

# The main job, end to end, on the built-in lab (two namespaces, veth).
demo: deps all
	@./contrib/lab/demo.sh

format:
	clang-format -i engine/*.c engine/*.h tests/unit/*.c

clean:
	rm -rf build $(BIN)
