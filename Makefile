# SPDX-License-Identifier: GPL-2.0
#
# ptbpf build. Everything generated lands in .output/. Quiet lines by
# default, `make V=1` for full ones.

OUTPUT := .output
CLANG ?= clang
BPFTOOL ?= bpftool
CC ?= cc
PREFIX ?= /usr/local
DESTDIR ?=
VERSION := 0.1.0

ARCH := $(shell uname -m | sed 's/x86_64/x86/' | sed 's/aarch64/arm64/')
VMLINUX := vmlinux/$(ARCH)/vmlinux.h

# snprintf truncation is how bounded messages and paths are made on purpose
WARN := -Wall -Wextra -Wno-unused-parameter -Wno-format-truncation
ifeq ($(CI),true)
WARN += -Werror
endif
CFLAGS ?= -g -O2
CFLAGS += $(WARN) -std=gnu11 -D_GNU_SOURCE -DPTBPF_VERSION='"$(VERSION)"'
CPPFLAGS += -I$(OUTPUT) -Ibpf -Iuser
LDLIBS := -lbpf -lelf -lz -lpthread
TEST_LDLIBS := $(LDLIBS) -lcmocka -lipt

ifeq ($(V),1)
Q =
msg =
else
Q = @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
MAKEFLAGS += --no-print-directory
endif

LIB_SRCS := $(filter-out user/main.c,$(wildcard user/*.c))
LIB_OBJS := $(patsubst user/%.c,$(OUTPUT)/user/%.o,$(LIB_SRCS))
SIM_SRCS := $(wildcard tests/sim/*.c)
SIM_OBJS := $(patsubst tests/sim/%.c,$(OUTPUT)/tests/sim/%.o,$(SIM_SRCS))
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(patsubst tests/unit/%.c,$(OUTPUT)/tests/unit/%,$(UNIT_SRCS))
INTEG_SRCS := $(wildcard tests/integration/test_*.c)
INTEG_BINS := $(patsubst tests/integration/%.c,$(OUTPUT)/tests/integration/%,$(INTEG_SRCS))
HELPER_SRCS := $(wildcard tests/progs/*.c)
HELPER_BINS := $(patsubst tests/progs/%.c,$(OUTPUT)/tests/progs/%,$(HELPER_SRCS)) \
	$(OUTPUT)/tests/progs/callstack-nofp
DUMP_SRCS := $(wildcard tools/dump/*.c)
DUMP_OBJS := $(patsubst tools/dump/%.c,$(OUTPUT)/tools/dump/%.o,$(DUMP_SRCS))
FUZZ_SRCS := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BINS := $(patsubst tests/fuzz/%.c,$(OUTPUT)/fuzz/%,$(FUZZ_SRCS))
FUZZ_SECONDS ?= 30

.SECONDARY: $(SIM_OBJS)
.PHONY: all deps progs fuzz check unit integration demo bench install clean fmt vmlinux

all: ptbpf $(if $(DUMP_SRCS),ptbpf-dump)

deps:
	$(Q)tools/deps.sh

$(OUTPUT) $(OUTPUT)/user $(OUTPUT)/tests/sim $(OUTPUT)/tests/unit \
$(OUTPUT)/tests/integration $(OUTPUT)/tests/progs:
	$(Q)mkdir -p $@

# The BPF object: CO-RE, so one object runs on kernels other than this one.
$(OUTPUT)/ptbpf.bpf.o: bpf/ptbpf.bpf.c bpf/ptbpf.h $(VMLINUX) | $(OUTPUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_$(ARCH) \
		-Wall -Ivmlinux/$(ARCH) -Ibpf -c $< -o $@
	$(Q)llvm-strip -g $@ 2>/dev/null || true

$(OUTPUT)/ptbpf.skel.h: $(OUTPUT)/ptbpf.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< > $@

$(OUTPUT)/user/%.o: user/%.c $(wildcard user/*.h) bpf/ptbpf.h $(OUTPUT)/ptbpf.skel.h | $(OUTPUT)/user
	$(call msg,CC,$@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

$(OUTPUT)/libptbpf.a: $(LIB_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

ptbpf: $(OUTPUT)/user/main.o $(OUTPUT)/libptbpf.a
	$(call msg,BINARY,$@)
	$(Q)$(CC) $(CFLAGS) $^ $(LDLIBS) -o $@

# ptbpf-dump: the unprivileged reader. main() is tools/dump/main.c.
$(OUTPUT)/tools/dump/%.o: tools/dump/%.c $(wildcard tools/dump/*.h) $(wildcard user/*.h)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CPPFLAGS) -Itools/dump $(CFLAGS) -c $< -o $@

ptbpf-dump: $(DUMP_OBJS) $(OUTPUT)/libptbpf.a
	$(call msg,BINARY,$@)
	$(Q)$(CC) $(CFLAGS) $^ $(LDLIBS) -lipt -o $@

# libFuzzer harnesses: tests/fuzz/fuzz_*.c over the dump's parsers and the
# library, built with clang, ASan and UBSan.
FUZZ_CFLAGS := -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	-D_GNU_SOURCE -DPTBPF_VERSION='"$(VERSION)"' -DPTBPF_FUZZ
$(OUTPUT)/fuzz/%: tests/fuzz/%.c $(wildcard tools/dump/*.[ch]) $(wildcard user/*.[ch]) | $(OUTPUT)/ptbpf.skel.h
	$(call msg,FUZZ,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) $(CPPFLAGS) -Itools/dump $< \
		$(filter-out tools/dump/main.c,$(DUMP_SRCS)) $(LIB_SRCS) $(LDLIBS) -lipt -o $@

fuzz: $(FUZZ_BINS)
	$(Q)for f in $(FUZZ_BINS); do \
		mkdir -p $(OUTPUT)/fuzz/corpus-$$(basename $$f); \
		echo "  FUZZ     $$f ($(FUZZ_SECONDS) s)"; \
		$$f -max_total_time=$(FUZZ_SECONDS) -print_final_stats=0 -timeout=10 -artifact_prefix=$(OUTPUT)/fuzz/ \
			$(OUTPUT)/fuzz/corpus-$$(basename $$f) tests/fuzz/seeds 2>$(OUTPUT)/fuzz/$$(basename $$f).log \
			|| { tail -n 30 $(OUTPUT)/fuzz/$$(basename $$f).log; exit 1; }; \
	done

$(OUTPUT)/tests/sim/%.o: tests/sim/%.c $(wildcard tests/sim/*.h) $(wildcard user/*.h) | $(OUTPUT)/tests/sim
	$(call msg,CC,$@)
	$(Q)$(CC) $(CPPFLAGS) -Itests/sim $(CFLAGS) -c $< -o $@

$(OUTPUT)/tests/unit/%: tests/unit/%.c $(SIM_OBJS) $(OUTPUT)/libptbpf.a $(wildcard tests/*.h) | $(OUTPUT)/tests/unit
	$(call msg,TEST,$@)
	$(Q)$(CC) $(CPPFLAGS) -Itests -Itests/sim $(CFLAGS) $< $(SIM_OBJS) $(OUTPUT)/libptbpf.a $(TEST_LDLIBS) -o $@

$(OUTPUT)/tests/integration/%: tests/integration/%.c $(OUTPUT)/libptbpf.a $(wildcard tests/*.h) | $(OUTPUT)/tests/integration
	$(call msg,TEST,$@)
	$(Q)$(CC) $(CPPFLAGS) -Itests $(CFLAGS) $< $(OUTPUT)/libptbpf.a $(TEST_LDLIBS) -o $@

$(OUTPUT)/tests/progs/%: tests/progs/%.c | $(OUTPUT)/tests/progs
	$(call msg,PROG,$@)
	$(Q)$(CC) -g -O1 -fno-omit-frame-pointer -fno-inline -Wall -D_GNU_SOURCE $< -lpthread -o $@

# The same call path without frame pointers, as Debian builds its binaries:
# only --call-graph dwarf unwinds it.
$(OUTPUT)/tests/progs/callstack-nofp: tests/progs/callstack.c | $(OUTPUT)/tests/progs
	$(call msg,PROG,$@)
	$(Q)$(CC) -g -O1 -fomit-frame-pointer -fno-inline -Wall -D_GNU_SOURCE $< -o $@

# Two local functions named twin, one in each file: a name --trigger-on
# finds twice.
$(OUTPUT)/tests/progs/trigger: tests/progs/trigger.c tests/progs/twin/twin.c | $(OUTPUT)/tests/progs
	$(call msg,PROG,$@)
	$(Q)$(CC) -g -O1 -fno-omit-frame-pointer -fno-inline -Wall -D_GNU_SOURCE $^ -lpthread -o $@

progs: $(HELPER_BINS)
unit: $(UNIT_BINS)
integration: all $(INTEG_BINS) $(HELPER_BINS)

# The summary line `N passed, N failed, N skipped` comes from tests/run.sh;
# the fuzz runs (30 s a target) and the sanitizer builds count as one test each.
check: deps
	$(Q)$(MAKE) all unit integration
	$(Q)tests/run.sh $(UNIT_BINS) $(INTEG_BINS) $(if $(FUZZ_SRCS),tests/fuzz/fuzz-all.sh) \
		$(wildcard tests/sanitize.sh) tests/man.sh

demo: deps
	$(Q)$(MAKE) all progs
	$(Q)tools/demo.sh

bench: deps
	$(Q)$(MAKE) all progs
	$(Q)tests/bench/run.sh $(B)

install: ptbpf $(if $(DUMP_SRCS),ptbpf-dump)
	$(call msg,INSTALL,$(DESTDIR)$(PREFIX)/bin/ptbpf)
	$(Q)install -D -m 0755 ptbpf $(DESTDIR)$(PREFIX)/bin/ptbpf
	$(if $(DUMP_SRCS),$(call msg,INSTALL,$(DESTDIR)$(PREFIX)/bin/ptbpf-dump))
	$(if $(DUMP_SRCS),$(Q)install -D -m 0755 ptbpf-dump $(DESTDIR)$(PREFIX)/bin/ptbpf-dump)
	$(call msg,INSTALL,$(DESTDIR)$(PREFIX)/share/man/man1/ptbpf.1 ptbpf-dump.1)
	$(Q)install -D -m 0644 man/ptbpf.1 $(DESTDIR)$(PREFIX)/share/man/man1/ptbpf.1
	$(Q)install -D -m 0644 man/ptbpf-dump.1 $(DESTDIR)$(PREFIX)/share/man/man1/ptbpf-dump.1

vmlinux:
	$(Q)vmlinux/gen.sh

fmt:
	$(Q)git ls-files '*.c' '*.h' | grep -v '^vmlinux/' | xargs clang-format -i

clean:
	$(call msg,CLEAN)
	$(Q)rm -rf $(OUTPUT) ptbpf ptbpf-dump
