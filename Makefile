# cx5prof: build, test, install. See README.md.
PREFIX    ?= /usr/local
DESTDIR   ?=
BUILDDIR  ?= build
BIN       ?= cx5prof
PKGS      := yaml-0.1 libnl-route-3.0 libnl-genl-3.0 libcurl sqlite3 json-c
CC        ?= cc
# A missing library stops the build here, with pkg-config's own message
# (`make deps` installs them). Goals that build nothing themselves (or
# install the libraries first and build in a sub-make) skip the check.
NO_PKG_GOALS := deps clean format format-check lint-tests check torture asan demo stress deb rpm
ifeq ($(filter-out $(NO_PKG_GOALS),$(or $(MAKECMDGOALS),all)),)
PKG_CFLAGS :=
PKG_LIBS   :=
else
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) || echo PKG-CONFIG-FAILED)
# libcurl is loaded with dlopen() when the mirror first needs it
# (engine/mirror/curl_dl.h): its headers are used, it is not linked.
PKG_LIBS   := $(shell pkg-config --libs $(filter-out libcurl,$(PKGS)) || echo PKG-CONFIG-FAILED)
ifneq ($(findstring PKG-CONFIG-FAILED,$(PKG_CFLAGS) $(PKG_LIBS)),)
$(error pkg-config cannot find every library of $(PKGS): run `make deps` (as root) or install them)
endif
endif
CFLAGS    ?= -O2 -g
CFLAGS    += -std=gnu11 -Wall -Wextra -Werror -Wshadow -Wformat=2 -Wno-format-nonliteral \
             -Wmissing-prototypes -Wstrict-prototypes -fno-strict-aliasing -D_FILE_OFFSET_BITS=64
CPPFLAGS  += -Iengine $(PKG_CFLAGS)
LDLIBS    += $(PKG_LIBS) -lm -lpthread
FUZZ_SECONDS ?= 20
# Where `make install` puts the boot-time unit, the udev rule, the
# completion (searched by systemd, udev and bash-completion under /usr/local
# too; PREFIX=/usr for a package) and the docs (README, CHANGELOG, docs/).
SYSTEMDUNITDIR ?= $(PREFIX)/lib/systemd/system
UDEVRULESDIR   ?= $(PREFIX)/lib/udev/rules.d
BASHCOMPDIR    ?= $(PREFIX)/share/bash-completion/completions
# firewalld reads /usr/lib/firewalld/services and /etc/firewalld/services
# only: under /usr/local the services are there to copy (docs/fleet.md).
FIREWALLDDIR   ?= $(PREFIX)/lib/firewalld/services
DOCDIR         ?= $(PREFIX)/share/doc/cx5prof

# engine/ and its layers (docs/ARCHITECTURE.md; `make layering` checks them).
ENGINE_DIRS := engine engine/base engine/os engine/store engine/keys engine/kinds engine/bench engine/campaign engine/tune engine/ledger engine/peer engine/mirror engine/cli
ENGINE_HDR := $(wildcard $(addsuffix /*.h,$(ENGINE_DIRS)))
ENGINE_SRC := $(filter-out engine/cli/main.c,$(wildcard $(addsuffix /*.c,$(ENGINE_DIRS))))
ENGINE_OBJ := $(ENGINE_SRC:%.c=$(BUILDDIR)/%.o)
UNIT_SRC   := $(wildcard tests/unit/test_*.c)
UNIT_BIN   := $(UNIT_SRC:%.c=$(BUILDDIR)/%)
# What the unit tests share (tests/unit/unit.h): linked into each.
UNIT_LIB   := $(BUILDDIR)/tests/unit/unit.o
INTEG_ALL  := $(sort $(wildcard tests/integration/*.t))
# run-tests runs TEST_JOBS integration tests at once (each test has its
# own namespaces, sysroot, database and ports; most of a test's time is
# a benchmark's or a server's, not CPU); the longest start first, so the
# last to finish is not one of them.
TEST_JOBS  ?= 3
INTEG_SLOW := $(filter $(INTEG_ALL),$(addprefix tests/integration/,85-kill-fault-loop.t \
	112-campaign-ablate.t 87-kill-fault-campaign-peer.t 71-serve-malformed.t 78-peer-never-untracked.t \
	111-campaign-aa.t 56-campaign.t 75-campaign-peer.t 81-ansible.t 151-fleet-ansible.t \
	110-campaign-auto.t 120-report-browser.t 73-peer-checks.t 181-campaign-ablate-auto.t 180-campaign-margin.t \
	192-deb-package.t 193-rpm-spec.t 220-tune-lab.t 221-tune-lab-reverse.t))
INTEG      := $(INTEG_SLOW) $(filter-out $(INTEG_SLOW),$(INTEG_ALL))

.PHONY: all check units run-tests asan install uninstall demo clean deps bench format format-check layering lint-tests torture stress
.PHONY: docs docs-check deb rpm
.PHONY: fuzz fuzz-build fuzz-short fuzz-replay

all: $(BIN)

# Header dependencies are written by the compiler (-MMD) next to each object.
$(BUILDDIR)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c -o $@ $<

$(BUILDDIR)/libcx5.a: $(ENGINE_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

$(BIN): $(BUILDDIR)/engine/cli/main.o $(BUILDDIR)/libcx5.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(UNIT_LIB): tests/unit/unit.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Itests/unit $(CFLAGS) -MMD -MP -c -o $@ $<

$(BUILDDIR)/tests/unit/%: tests/unit/%.c $(UNIT_LIB) $(BUILDDIR)/libcx5.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Itests/unit $(CFLAGS) -Wno-missing-prototypes -MMD -MP -o $@ $< $(UNIT_LIB) \
		$(BUILDDIR)/libcx5.a $(LDLIBS) $(shell pkg-config --libs cmocka 2>/dev/null)

deps:
	@./contrib/install-deps.sh

# The README's test command: installs what it needs, builds (one compiler
# per CPU), runs every test.
CHECK_JOBS ?= $(shell nproc 2>/dev/null || echo 2)
check: deps
	@$(MAKE) --no-print-directory format-check lint-tests
	@$(MAKE) --no-print-directory -j$(CHECK_JOBS) all units
	@$(MAKE) --no-print-directory layering
	@$(MAKE) --no-print-directory docs-check
	@$(MAKE) --no-print-directory run-tests
	@$(MAKE) --no-print-directory -j$(CHECK_JOBS) fuzz-build
	@$(MAKE) --no-print-directory fuzz-short
	@tests/skips.sh $(SKIP_LOG)

units: $(UNIT_BIN)

# Every skip of a run (tests/integration/lib.sh, tests/unit/unit.h) is a
# line of SKIP_LOG; run-tests and check end with their count. In CI
# (CX5PROF_REQUIRE_PRIVILEGED=1, .ci/run) a skip is a failure instead.
SKIP_LOG := $(abspath $(BUILDDIR))/skips.log

run-tests:
	@mkdir -p $(BUILDDIR) && : >$(SKIP_LOG)
	CX5PROF=$(abspath $(BIN)) CX5PROF_SKIP_LOG=$(SKIP_LOG) CMOCKA_MESSAGE_OUTPUT=TAP \
		prove --merge --timer -e "" $(UNIT_BIN) || { r=$$?; tests/skips.sh $(SKIP_LOG); exit $$r; }
	CX5PROF=$(abspath $(BIN)) CX5PROF_SKIP_LOG=$(SKIP_LOG) prove -j$(TEST_JOBS) --merge --timer $(INTEG); \
		r=$$?; tests/skips.sh $(SKIP_LOG); exit $$r

# The kill/fault loops at every system call of apply and rollback (make
# check runs them at every 7th): tests/integration/85-kill-fault-loop.t;
# and at every state-changing system call of a campaign, local and with
# the peer over ssh (make check: 2 points each):
# tests/integration/87-kill-fault-campaign-peer.t.
# The integration suite STRESS_RUNS times in a row under a CPU hog on
# every core (stress-ng): a suite that passes only on an idle machine
# fails here. tests/stress.sh.
STRESS_RUNS ?= 3
stress: deps
	@$(MAKE) --no-print-directory all units
	tests/stress.sh $(STRESS_RUNS)

# Verbose: each loop's line names its number of cases (docs/reliability.md).
torture: deps
	@$(MAKE) --no-print-directory all units
	CX5PROF=$(abspath $(BIN)) CX5PROF_TORTURE_STRIDE=1 prove -v --merge --timer \
		tests/integration/85-kill-fault-loop.t tests/integration/84-txn-commit-faults.t \
		tests/integration/87-kill-fault-campaign-peer.t

# The whole suite under AddressSanitizer and UBSan, in its own build tree.
asan: deps
	@$(MAKE) --no-print-directory BUILDDIR=build/asan BIN=build/asan/cx5prof \
		CFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" \
		LDFLAGS="-fsanitize=address,undefined" all units run-tests

# libFuzzer harnesses (tests/fuzz/fuzz_*.c, see tests/fuzz/README.md): the
# engine rebuilt with clang, coverage and ASan/UBSan in build/fuzz.
# `make fuzz FUZZ_SECONDS=N` fuzzes each harness N seconds (FUZZ_JOBS at a
# time); `check` runs fuzz-short: replay every seed and regression input,
# then FUZZ_SHORT_SECONDS per harness.
FUZZ_CC      ?= clang
FUZZ_JOBS    ?= 2
FUZZ_SHORT_SECONDS ?= 5
FUZZ_DIR     := build/fuzz
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_CFLAGS  := -O1 -g -fno-omit-frame-pointer $(FUZZ_SAN) $(filter -W% -std=% -D% -fno-strict-aliasing,$(CFLAGS)) \
                -Wno-gnu-variable-sized-type-not-at-end
FUZZ_SRC     := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BIN     := $(FUZZ_SRC:tests/fuzz/%.c=$(FUZZ_DIR)/%)
FUZZ_ENGINE_OBJ := $(ENGINE_SRC:%.c=$(FUZZ_DIR)/%.o)

$(FUZZ_DIR)/engine/%.o: engine/%.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(CPPFLAGS) $(FUZZ_CFLAGS) -MMD -MP -fsanitize=fuzzer-no-link -c -o $@ $<

$(FUZZ_DIR)/libcx5.a: $(FUZZ_ENGINE_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

$(FUZZ_DIR)/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_DIR)/libcx5.a
	$(FUZZ_CC) $(CPPFLAGS) $(FUZZ_CFLAGS) -MMD -MP -DFUZZ_PARENTS_DIR='"$(abspath tests/fuzz/parents)"' \
		-fsanitize=fuzzer -o $@ $< $(FUZZ_DIR)/libcx5.a $(LDLIBS)

fuzz-build: $(FUZZ_BIN)

fuzz-replay: fuzz-build
	FUZZ_BUILD=$(abspath $(FUZZ_DIR)) FUZZ_JOBS=$(FUZZ_JOBS) tests/fuzz/run.sh replay

fuzz: fuzz-replay
	FUZZ_BUILD=$(abspath $(FUZZ_DIR)) FUZZ_JOBS=$(FUZZ_JOBS) tests/fuzz/run.sh fuzz $(FUZZ_SECONDS)

fuzz-short: fuzz-replay
	FUZZ_BUILD=$(abspath $(FUZZ_DIR)) FUZZ_JOBS=$(FUZZ_JOBS) tests/fuzz/run.sh fuzz $(FUZZ_SHORT_SECONDS)

install: $(BIN)
	install -D -m 0755 $(BIN) $(DESTDIR)$(PREFIX)/sbin/cx5prof
	install -D -m 0644 contrib/man/cx5prof.8 $(DESTDIR)$(PREFIX)/share/man/man8/cx5prof.8
	install -d $(DESTDIR)$(PREFIX)/share/cx5prof/profiles $(DESTDIR)$(PREFIX)/share/cx5prof/schemas
	install -m 0644 profiles/*.yaml $(DESTDIR)$(PREFIX)/share/cx5prof/profiles/
	install -m 0644 schemas/*.json $(DESTDIR)$(PREFIX)/share/cx5prof/schemas/
	install -d $(DESTDIR)$(SYSTEMDUNITDIR) $(DESTDIR)$(UDEVRULESDIR) $(DESTDIR)$(BASHCOMPDIR)
	sed 's|/usr/local/sbin/cx5prof|$(PREFIX)/sbin/cx5prof|' contrib/systemd/cx5prof-apply@.service \
		>$(DESTDIR)$(SYSTEMDUNITDIR)/cx5prof-apply@.service
	install -m 0644 contrib/systemd/cx5prof-reapply.service $(DESTDIR)$(SYSTEMDUNITDIR)/
	install -m 0644 contrib/udev/90-cx5prof.rules $(DESTDIR)$(UDEVRULESDIR)/
	install -m 0644 contrib/completion/cx5prof.bash $(DESTDIR)$(BASHCOMPDIR)/cx5prof
	install -d $(DESTDIR)$(FIREWALLDDIR)
	install -m 0644 contrib/firewalld/cx5prof-serve.xml contrib/firewalld/cx5prof-netserver.xml $(DESTDIR)$(FIREWALLDDIR)/
	install -d $(DESTDIR)$(DOCDIR)/docs
	install -m 0644 README.md CHANGELOG.md $(DESTDIR)$(DOCDIR)/
	install -m 0644 docs/*.md docs/*.png $(DESTDIR)$(DOCDIR)/docs/

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/sbin/cx5prof $(DESTDIR)$(PREFIX)/share/man/man8/cx5prof.8
	rm -rf $(DESTDIR)$(PREFIX)/share/cx5prof $(DESTDIR)$(DOCDIR)
	rm -f $(DESTDIR)$(SYSTEMDUNITDIR)/cx5prof-apply@.service $(DESTDIR)$(SYSTEMDUNITDIR)/cx5prof-reapply.service \
		$(DESTDIR)$(UDEVRULESDIR)/90-cx5prof.rules $(DESTDIR)$(BASHCOMPDIR)/cx5prof \
		$(DESTDIR)$(FIREWALLDDIR)/cx5prof-serve.xml $(DESTDIR)$(FIREWALLDDIR)/cx5prof-netserver.xml

# Packages (docs/fleet.md, Packages). Both build from a copy of the tree
# under $(PKG_BUILDDIR), never in it; the top level keeps no debian/ or spec.
VERSION      := $(shell sed -n 's/^\#define CX5PROF_VERSION "\(.*\)"$$/\1/p' engine/base/version.h)
PKG_BUILDDIR ?= $(BUILDDIR)/pkg
PKG_JOBS     ?= 2
PKG_SOURCES  := Makefile README.md CHANGELOG.md engine contrib profiles schemas docs
DEB_TREE     := $(PKG_BUILDDIR)/deb/cx5prof-$(VERSION)
RPM_TOPDIR   ?= $(abspath $(PKG_BUILDDIR))/rpm

# `make deb`: contrib/debian/ becomes the copy's debian/ (with a changelog
# entry for VERSION), dpkg-buildpackage (debhelper) builds the binary
# package: $(PKG_BUILDDIR)/deb/cx5prof_VERSION_ARCH.deb.
deb:
	rm -rf $(PKG_BUILDDIR)/deb
	mkdir -p $(DEB_TREE)
	tar -cf - --exclude='*.o' $(PKG_SOURCES) | tar -xf - -C $(DEB_TREE)
	cp -R contrib/debian $(DEB_TREE)/debian
	printf 'cx5prof (%s) unstable; urgency=medium\n\n  * Built by make deb; the changes are in /usr/share/doc/cx5prof/CHANGELOG.md.\n\n -- cx5prof maintainers <cx5prof@localhost>  %s\n' \
		'$(VERSION)' "$$(date -R)" >$(DEB_TREE)/debian/changelog
	cd $(DEB_TREE) && dpkg-buildpackage -b -us -uc -j$(PKG_JOBS)
	@ls $(PKG_BUILDDIR)/deb/*.deb

# `make rpm`: the source tarball of contrib/rpm/cx5prof.spec and rpmbuild -bb
# into RPM_TOPDIR. On a host that is not EL (CI: Debian's rpm package) pass
# RPMBUILD_FLAGS=--nodeps: the BuildRequires name EL packages.
RPMBUILD_FLAGS ?=
rpm:
	rm -rf $(RPM_TOPDIR)
	mkdir -p $(RPM_TOPDIR)/SOURCES $(PKG_BUILDDIR)/rpm-src/cx5prof-$(VERSION)
	tar -cf - --exclude='*.o' $(PKG_SOURCES) | tar -xf - -C $(PKG_BUILDDIR)/rpm-src/cx5prof-$(VERSION)
	tar -czf $(RPM_TOPDIR)/SOURCES/cx5prof-$(VERSION).tar.gz -C $(PKG_BUILDDIR)/rpm-src cx5prof-$(VERSION)
	rm -rf $(PKG_BUILDDIR)/rpm-src
	rpmbuild -bb $(RPMBUILD_FLAGS) --define '_topdir $(RPM_TOPDIR)' --define 'cx5_version $(VERSION)' \
		--define '_smp_mflags -j$(PKG_JOBS)' contrib/rpm/cx5prof.spec
	@ls $(RPM_TOPDIR)/RPMS/*/*.rpm

# The main job, end to end, on the built-in lab (two namespaces, veth).
demo: deps
	@$(MAKE) --no-print-directory -j$(CHECK_JOBS) all
	@./contrib/lab/demo.sh

# Performance benchmarks: every tests/bench/*.sh and *.py, each printing its
# table (docs/performance.md quotes them). Each script skips itself when it cannot run.
bench: all units
	@for s in $(sort $(wildcard tests/bench/*.sh tests/bench/*.py)); do echo "== $$s"; CX5PROF=$(abspath $(BIN)) $$s || exit 1; done

# The key tables of the man page and of the profile's JSON Schema, the
# kinds plan.schema.json lists and the show keys of state.schema.json come
# from the change kinds' table, key rows and show schemas (engine/kinds/):
# `docs` writes them, `docs-check` (run by `check`) fails when the committed
# files differ.
$(BUILDDIR)/keydoc: contrib/keydoc.c $(BUILDDIR)/libcx5.a
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -o $@ $< $(BUILDDIR)/libcx5.a $(LDLIBS)

docs: $(BUILDDIR)/keydoc
	$(BUILDDIR)/keydoc >$(BUILDDIR)/keydoc.json
	contrib/gen-docs.py $(BUILDDIR)/keydoc.json

docs-check: $(BUILDDIR)/keydoc
	@$(BUILDDIR)/keydoc >$(BUILDDIR)/keydoc.json
	@contrib/gen-docs.py --check $(BUILDDIR)/keydoc.json && echo "docs: ok (generated key tables agree)"

# The committed .clang-format, over the engine and the C tests: `format`
# rewrites, `format-check` (run by `check`) fails on any difference.
FORMAT_SRC = $(ENGINE_SRC) engine/cli/main.c $(ENGINE_HDR) $(UNIT_SRC) tests/unit/unit.c $(wildcard tests/unit/*.h tests/fuzz/*.c tests/fuzz/*.h) \
	     contrib/keydoc.c

format:
	clang-format -i $(FORMAT_SRC)

format-check:
	@clang-format --dry-run --Werror $(FORMAT_SRC) && echo "format: ok ($(words $(FORMAT_SRC)) files)"

# The layering rules of engine/LAYERS (docs/ARCHITECTURE.md): includes
# from the sources, calls from the objects (nm), so the engine is built first.
layering: $(ENGINE_OBJ) $(BUILDDIR)/engine/cli/main.o
	@tests/check-layering.py --build $(BUILDDIR)

# The test suite's own rules: no `sleep N` as a synchronisation in
# tests/integration outside tests/integration/sleeps.allow (docs/HACKING.md).
lint-tests:
	@tests/check-sleeps.sh

clean:
	rm -rf build $(BIN)

-include $(shell find $(BUILDDIR) -path '$(BUILDDIR)/pkg' -prune -o -name '*.d' -type f -print 2>/dev/null)
