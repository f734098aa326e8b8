# ecnwatch - a single GNU Makefile.
#   make              build build/ecnwatch
#   make test         every test, also under AddressSanitizer + UndefinedBehaviorSanitizer
#   make SAN=1        the sanitizer build, in build/asan/
#   make install      PREFIX=/usr/local DESTDIR=
PREFIX ?= /usr/local
DESTDIR ?=
CC ?= cc

ifeq ($(SAN),1)
BUILD ?= build/asan
SANFLAGS = -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
OPT ?= -O1
else
BUILD ?= build
SANFLAGS =
OPT ?= -O2
endif

PKGS = libpcap jansson
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS := $(shell pkg-config --libs $(PKGS) 2>/dev/null || echo -lpcap -ljansson)
CUNIT_LIBS := $(shell pkg-config --libs cunit 2>/dev/null || echo -lcunit)

WARN = -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
       -Wformat=2 -Wcast-align -Wwrite-strings -Wundef -Wpointer-arith -Wvla
CPPFLAGS += -Iinclude -D_DEFAULT_SOURCE
CFLAGS ?= $(OPT) -g
CFLAGS += -std=c11 $(WARN) $(SANFLAGS) $(PKG_CFLAGS) -MMD -MP
LDFLAGS += $(SANFLAGS)
# the dissectors read hostile bytes: every narrowing conversion must be explicit
DISSECT_CFLAGS = -Wconversion -Wsign-conversion

DISSECT_SRC = $(wildcard dissectors/*.c)
CORE_SRC = src/flowtab.c src/analyze.c src/capture.c src/report.c
MAIN_SRC = src/main.c
TEST_SRC = $(wildcard tests/unit/*.c)

DISSECT_OBJ = $(DISSECT_SRC:%.c=$(BUILD)/%.o)
CORE_OBJ = $(CORE_SRC:%.c=$(BUILD)/%.o)
MAIN_OBJ = $(MAIN_SRC:%.c=$(BUILD)/%.o)
TEST_OBJ = $(TEST_SRC:%.c=$(BUILD)/%.o)
LIB_OBJ = $(DISSECT_OBJ) $(CORE_OBJ)

BIN = $(BUILD)/ecnwatch
TOOLS = $(BUILD)/run_tests $(BUILD)/ecngen $(BUILD)/sweep

.PHONY: all tools test test-build check deps clean install uninstall

all: $(BIN)

$(BIN): $(LIB_OBJ) $(MAIN_OBJ)
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS)

$(BUILD)/run_tests: $(TEST_OBJ) $(LIB_OBJ)
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) $(CUNIT_LIBS)

$(BUILD)/ecngen: $(BUILD)/tests/tools/ecngen.o
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS)

$(BUILD)/sweep: $(BUILD)/tests/tools/sweep.o $(LIB_OBJ)
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS)

$(BUILD)/dissectors/%.o: dissectors/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(DISSECT_CFLAGS) -c -o $@ $<

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

tools: $(BIN) $(TOOLS)

# install the Debian packages the build and the tests need (as root; no-op when present)
deps:
	@bash scripts/install-deps.sh

test: deps
	@$(MAKE) --no-print-directory tools
	@$(MAKE) --no-print-directory SAN=1 tools
	@bash tests/run.sh $(BUILD) $(BUILD)/asan

check: test

clean:
	rm -rf build

install: $(BIN)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/man/man5
	install -m 0755 $(BIN) $(DESTDIR)$(PREFIX)/bin/ecnwatch
	install -m 0644 man/ecnwatch.1 $(DESTDIR)$(PREFIX)/share/man/man1/ecnwatch.1
	if [ -f man/ecnwatch-report.5 ]; then install -m 0644 man/ecnwatch-report.5 $(DESTDIR)$(PREFIX)/share/man/man5/; fi

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/ecnwatch $(DESTDIR)$(PREFIX)/share/man/man1/ecnwatch.1 \
	      $(DESTDIR)$(PREFIX)/share/man/man5/ecnwatch-report.5

-include $(shell find build -name '*.d' 2>/dev/null)
