# ecnwatch - a single GNU Makefile.
#   make              build build/ecnwatch
#   make test         every test, also under AddressSanitizer + UndefinedBehaviorSanitizer (as root)
#   make check        the quick tests of the plain build, as any user (tests/run.sh says which)
#   make check T=NAME one suite of the plain build: cli, golden, ... (tests/NAME.sh), sweep,
#                     tshark, replay, unit, or unit:SUITE[/TEST] (build/run_tests -l lists them)
#   make golden       rewrite tests/golden/ from the current binary (review the diff, commit it)
#   make SAN=1        the sanitizer build, in build/asan/
#   make TSAN=1       the ThreadSanitizer build, in build/tsan/ (tests/threads.sh)
#   make install      PREFIX=/usr/local DESTDIR= (binary, man pages, report schema, bash completion)
#   make uninstall    the same PREFIX and DESTDIR: removes exactly those files
#   make bench        the benchmark against the floor and tshark (bench/README.md)
#   make V=1          print every command whole (quiet by default)
PREFIX ?= /usr/local
DESTDIR ?=
CC ?= cc
# quiet by default: one short line a step; make V=1 prints every command whole
V ?= 0
ifeq ($(V),1)
Q =
say = @:
else
Q = @
say = @printf '  %-4s %s\n'
endif

ifeq ($(TSAN),1)
BUILD ?= build/tsan
SANFLAGS = -fsanitize=thread -fno-omit-frame-pointer
OPT ?= -O1
else ifeq ($(SAN),1)
BUILD ?= build/asan
SANFLAGS = -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
# the sanitizer build also checks what the code takes for granted (EW_CHECKS)
CPPFLAGS += -DEW_CHECKS=1
OPT ?= -O1
else
BUILD ?= build
SANFLAGS =
OPT ?= -O2
endif

PKGS = libpcap ncursesw libmicrohttpd libcrypto zlib liblzma yaml-0.1 libxcrypt
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null) $(shell pkg-config --cflags jansson 2>/dev/null)
PKG_LIBS := $(shell pkg-config --libs $(PKGS) 2>/dev/null || echo -lpcap -lncursesw -lmicrohttpd -lcrypto -lz -llzma -lyaml -lcrypt)
# ecnwatch itself links only what every run uses: ncurses (the live view),
# libmicrohttpd (--metrics-listen), libcrypto (QUIC decryption, --web-config),
# libyaml and libcrypt (--web-config) are loaded when needed
# (src/base/dynlib.h), by the soname of the headers' version; the tools and
# tests link them all
EW_PKGS = libpcap zlib liblzma
EW_LIBS := $(shell pkg-config --libs $(EW_PKGS) 2>/dev/null || echo -lpcap -lz -llzma)
# the bottleneck comparison's correlation takes a square root
PKG_LIBS += -lm
EW_LIBS += -lm
CUNIT_LIBS := $(shell pkg-config --libs cunit 2>/dev/null || echo -lcunit)
# ecnwatch writes its JSON itself (src/base/jw.c); jansson only reads it back,
# in the unit tests and the fuzz harnesses
JANSSON_LIBS := $(shell pkg-config --libs jansson 2>/dev/null || echo -ljansson)

WARN = -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
       -Wformat=2 -Wcast-align -Wwrite-strings -Wundef -Wpointer-arith -Wvla
CPPFLAGS += -Isrc -I. -D_DEFAULT_SOURCE
CFLAGS ?= $(OPT) -g
CFLAGS += -std=c11 -pthread $(WARN) $(SANFLAGS) $(PKG_CFLAGS) -MMD -MP
LDFLAGS += -pthread $(SANFLAGS)
# the dissectors read hostile bytes: every narrowing conversion must be explicit
DISSECT_CFLAGS = -Wconversion -Wsign-conversion

DISSECT_SRC = $(wildcard dissectors/*.c)
# src/ holds one folder per stage of the pipeline (README.md, "Layout"; tests/layers).
# Every source but the programs' own is the library the tools and tests link.
CORE_SRC = $(filter-out $(MAIN_SRC),$(sort $(wildcard src/*/*.c)))
MAIN_SRC = src/cli/main.c src/cli/live.c src/ui/ui_curses.c src/ui/ui_curses_lib.c src/ui/ui_draw.c \
           src/output/exporter.c
TEST_SRC = $(wildcard tests/unit/*.c)

DISSECT_OBJ = $(DISSECT_SRC:%.c=$(BUILD)/%.o)
CORE_OBJ = $(CORE_SRC:%.c=$(BUILD)/%.o)
MAIN_OBJ = $(MAIN_SRC:%.c=$(BUILD)/%.o)
TEST_OBJ = $(TEST_SRC:%.c=$(BUILD)/%.o)
LIB_OBJ = $(DISSECT_OBJ) $(CORE_OBJ)

BIN = $(BUILD)/ecnwatch
TOOLS = $(BUILD)/run_tests $(BUILD)/ecngen $(BUILD)/sweep $(BUILD)/tcpgen $(BUILD)/quicgen \
        $(BUILD)/tungen
# sizes the packed state of TCP flows (bench/README.md)
TOOLS += $(BUILD)/statesize
# the fuzz harnesses without libFuzzer: replay saved inputs (tests/fuzz/README.md)
TOOLS += $(BUILD)/replay_dissect $(BUILD)/replay_pipeline $(BUILD)/replay_quic $(BUILD)/mkseeds \
         $(BUILD)/replay_pipeline_mem $(BUILD)/replay_pcapng $(BUILD)/replay_unzip $(BUILD)/replay_probe

.PHONY: all tools test test-build check golden deps clean install uninstall fuzz fuzz-smoke fuzz-build bench

# tcpgen too: the README's examples write captures with it
all: $(BIN) $(BUILD)/tcpgen

$(BIN): $(LIB_OBJ) $(MAIN_OBJ)
	$(say) LD $@
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(EW_LIBS)

$(BUILD)/run_tests: $(TEST_OBJ) $(LIB_OBJ)
	$(say) LD $@
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) $(JANSSON_LIBS) $(CUNIT_LIBS)

$(BUILD)/ecngen: $(BUILD)/tests/tools/ecngen.o
	$(say) LD $@
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS)

$(BUILD)/tcpgen: $(BUILD)/tests/tools/tcpgen.o
	$(say) LD $@
	$(Q)$(CC) $(LDFLAGS) -o $@ $^

$(BUILD)/tungen: $(BUILD)/tests/tools/tungen.o
	$(say) LD $@
	$(Q)$(CC) $(LDFLAGS) -o $@ $^

$(BUILD)/quicgen: $(BUILD)/tests/tools/quicgen.o $(LIB_OBJ)
	$(say) LD $@
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS)

$(BUILD)/sweep: $(BUILD)/tests/tools/sweep.o $(LIB_OBJ)
	$(say) LD $@
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS)

$(BUILD)/replay_%: $(BUILD)/tests/fuzz/fuzz_%.o $(BUILD)/tests/fuzz/replay.o $(LIB_OBJ)
	$(say) LD $@
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) $(JANSSON_LIBS)

$(BUILD)/mkseeds: $(BUILD)/tests/fuzz/mkseeds.o $(LIB_OBJ)
	$(say) LD $@
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS)

$(BUILD)/dissectors/%.o: dissectors/%.c
	@mkdir -p $(dir $@)
	$(say) CC $<
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(DISSECT_CFLAGS) -c -o $@ $<

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(say) CC $<
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

tools: $(BIN) $(TOOLS)

# libFuzzer harnesses, built with clang in build/fuzz/ (tests/fuzz/README.md):
#   make fuzz FUZZ_SECONDS=N   each harness for N seconds, one after the other
#   make fuzz-smoke            each for FUZZ_SMOKE_SECONDS (make test runs it)
FUZZ_CC ?= clang
FUZZ_BUILD = build/fuzz
FUZZ_SECONDS ?= 60
FUZZ_SMOKE_SECONDS ?= 20
FUZZ_NAMES = fuzz_dissect fuzz_pipeline fuzz_quic fuzz_pipeline_mem fuzz_pcapng fuzz_unzip fuzz_probe
FUZZ_SAN = -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_CFLAGS = -g -O1 -std=c11 $(filter-out -Werror,$(WARN)) $(FUZZ_SAN) $(PKG_CFLAGS) -MMD -MP
FUZZ_LIB_OBJ = $(DISSECT_SRC:%.c=$(FUZZ_BUILD)/%.o) $(CORE_SRC:%.c=$(FUZZ_BUILD)/%.o)
FUZZ_BIN = $(FUZZ_NAMES:%=$(FUZZ_BUILD)/%)
FUZZ_RELINK = rfc3168-ce-client accecn-ce-v6-server udp-ect-client
# the tunnelled captures tungen writes, a seed of each
FUZZ_TUNNELS = ipip gre gre-eth erspan vxlan vxlan-gpe geneve gtpu mpls macsec nested

$(FUZZ_BUILD)/dissectors/%.o: dissectors/%.c
	@mkdir -p $(dir $@)
	$(say) CC $<
	$(Q)$(FUZZ_CC) $(CPPFLAGS) $(FUZZ_CFLAGS) $(DISSECT_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

$(FUZZ_BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(say) CC $<
	$(Q)$(FUZZ_CC) $(CPPFLAGS) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

$(FUZZ_BUILD)/fuzz_%: $(FUZZ_BUILD)/tests/fuzz/fuzz_%.o $(FUZZ_LIB_OBJ)
	$(say) LD $@
	$(Q)$(FUZZ_CC) -fsanitize=fuzzer $(FUZZ_SAN) -o $@ $^ $(PKG_LIBS) $(JANSSON_LIBS)

# seed corpora cut from captures/ and their re-encapsulations (not committed)
$(FUZZ_BUILD)/seeds.stamp: $(BUILD)/mkseeds $(BUILD)/ecngen $(BUILD)/tungen $(wildcard captures/*.pcap)
	@rm -rf $(FUZZ_BUILD)/gen $(FUZZ_NAMES:%=$(FUZZ_BUILD)/seeds-%)
	@mkdir -p $(FUZZ_BUILD)/gen $(FUZZ_NAMES:%=$(FUZZ_BUILD)/seeds-%)
	@for l in vlan qinq sll sll2 raw null loop ppp chdlc ipoib nflog; do for c in $(FUZZ_RELINK); do \
	    $(BUILD)/ecngen relink $$l captures/$$c.pcap $(FUZZ_BUILD)/gen/$$c-$$l.pcap 2>/dev/null || exit 1; \
	done; done
	@for t in $(FUZZ_TUNNELS); do $(BUILD)/tungen $$t $(FUZZ_BUILD)/gen/tunnel-$$t.pcap || exit 1; done
	@$(BUILD)/mkseeds $(FUZZ_BUILD)/seeds-fuzz_dissect $(FUZZ_BUILD)/seeds-fuzz_pipeline \
	    captures/*.pcap $(FUZZ_BUILD)/gen/*.pcap
	@cp $(FUZZ_BUILD)/seeds-fuzz_pipeline/* $(FUZZ_BUILD)/seeds-fuzz_pipeline_mem/
	@$(BUILD)/mkseeds --readers $(FUZZ_BUILD)/seeds-fuzz_pcapng $(FUZZ_BUILD)/seeds-fuzz_unzip \
	    $(FUZZ_RELINK:%=captures/%.pcap) $(FUZZ_BUILD)/gen/*-sll.pcap $(FUZZ_BUILD)/gen/*-raw.pcap
	@touch $@

# keep the objects that only pattern rules build
.SECONDARY: $(FUZZ_LIB_OBJ) $(FUZZ_NAMES:%=$(FUZZ_BUILD)/tests/fuzz/%.o) \
            $(FUZZ_NAMES:%=$(BUILD)/tests/fuzz/%.o) $(BUILD)/tests/fuzz/replay.o

fuzz-build: $(FUZZ_BIN) $(FUZZ_BUILD)/seeds.stamp

fuzz: fuzz-build
	@bash tests/fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ_NAMES)

fuzz-smoke: fuzz-build
	@bash tests/fuzz/run.sh $(FUZZ_SMOKE_SECONDS) $(FUZZ_NAMES)

# install the Debian packages the build and the tests need (as root; no-op when present)
deps:
	@bash scripts/install-deps.sh

# the builds and the suites use every processor (tests/run.sh -j)
JOBS ?= $(shell nproc 2>/dev/null || echo 1)
T ?=

test: deps
	@$(MAKE) --no-print-directory -j$(JOBS) tools
	@$(MAKE) --no-print-directory -j$(JOBS) SAN=1 tools
	@bash tests/run.sh -j $(JOBS) $(BUILD) $(BUILD)/asan

check: deps
	@$(MAKE) --no-print-directory -j$(JOBS) tools
ifeq ($(T),)
	@bash tests/run.sh --check -j $(JOBS) $(BUILD)
else
	@bash tests/run.sh --only '$(T)' $(BUILD)
endif

golden: $(BIN) $(TOOLS)
	@bash tests/golden.sh $(BUILD) --update

# the benchmark: a generated capture timed against a bare libpcap loop and tshark
$(BUILD)/benchgen: $(BUILD)/bench/benchgen.o
	$(say) LD $@
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ -lm

$(BUILD)/floor: $(BUILD)/bench/floor.o
	$(say) LD $@
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS)

# the live benchmark's load generator (bench/live-rate.sh)
$(BUILD)/blast: $(BUILD)/bench/blast.o
	$(say) LD $@
	$(Q)$(CC) $(LDFLAGS) -o $@ $^

$(BUILD)/statesize: $(BUILD)/bench/statesize.o $(LIB_OBJ)
	$(say) LD $@
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS)

bench: $(BIN) $(BUILD)/benchgen $(BUILD)/floor $(BUILD)/statesize $(BUILD)/tcpgen $(BUILD)/blast
	@bash bench/run.sh $(BUILD)

clean:
	rm -rf build

install: $(BIN)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/man/man5 \
	           $(DESTDIR)$(PREFIX)/share/ecnwatch $(DESTDIR)$(PREFIX)/share/bash-completion/completions
	install -m 0755 $(BIN) $(DESTDIR)$(PREFIX)/bin/ecnwatch
	install -m 0644 man/ecnwatch.1 $(DESTDIR)$(PREFIX)/share/man/man1/ecnwatch.1
	install -m 0644 man/ecnwatch-report.5 $(DESTDIR)$(PREFIX)/share/man/man5/ecnwatch-report.5
	install -m 0644 man/ecnwatch-report.schema.json $(DESTDIR)$(PREFIX)/share/ecnwatch/ecnwatch-report.schema.json
	install -m 0644 completion/ecnwatch.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/ecnwatch

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/ecnwatch $(DESTDIR)$(PREFIX)/share/man/man1/ecnwatch.1 \
	      $(DESTDIR)$(PREFIX)/share/man/man5/ecnwatch-report.5 \
	      $(DESTDIR)$(PREFIX)/share/ecnwatch/ecnwatch-report.schema.json \
	      $(DESTDIR)$(PREFIX)/share/bash-completion/completions/ecnwatch
	rmdir $(DESTDIR)$(PREFIX)/share/ecnwatch 2>/dev/null || true

-include $(shell find $(sort build $(BUILD)) -name '*.d' 2>/dev/null)
