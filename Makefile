# SPDX-License-Identifier: GPL-2.0
#
# ptbpf build. Three trees, each compiled with its own include path, so a
# file can include only its own tree and the shared format:
#
#   bpf/          the BPF program and the header it shares with user space
#   user/         the tracer, ptbpf (root: BPF, perf events)
#   tools/dump/   the reader, ptbpf-dump (no privileges, no libbpf)
#   tools/format/ what both agree on: the snapshot format (no libbpf,
#                 no libipt, no threads)
#
# Everything generated lands in $(OUTPUT). Quiet lines by default, `make V=1`
# for full ones. SANITIZE=address builds everything with ASan and UBSan,
# SANITIZE=fuzzer the libFuzzer variant; both in their own OUTPUT.

OUTPUT ?= .output
BINDIR ?= .
CLANG ?= clang
LLVM_STRIP ?= llvm-strip
BPFTOOL ?= bpftool
CC ?= cc
PREFIX ?= /usr/local
DESTDIR ?=
# systemd searches $(PREFIX)/lib/systemd/system for /usr and /usr/local
SYSTEMD_UNIT_DIR ?= $(PREFIX)/lib/systemd/system
VERSION := 0.1.0

ARCH ?= $(shell uname -m | sed 's/x86_64/x86/' | sed 's/aarch64/arm64/')
VMLINUX := vmlinux/$(ARCH)/vmlinux.h

# snprintf truncation is how bounded messages and paths are made on purpose
WARN := -Wall -Wextra -Wno-unused-parameter -Wno-format-truncation
ifneq ($(findstring clang,$(CC)),)
WARN += -Wno-unknown-warning-option
endif
ifeq ($(CI),true)
WARN += -Werror
endif
CFLAGS ?= -g -O2
SAN_FLAGS :=
ifeq ($(SANITIZE),address)
SAN_FLAGS := -O1 -fno-omit-frame-pointer -fsanitize=address,undefined \
	-fno-sanitize-recover=undefined
else ifeq ($(SANITIZE),fuzzer)
SAN_FLAGS := -O1 -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined \
	-fno-sanitize-recover=undefined
CPPFLAGS += -DPTBPF_FUZZ
else ifneq ($(SANITIZE),)
$(error SANITIZE=$(SANITIZE): expected address or fuzzer)
endif
CFLAGS += $(SAN_FLAGS)
# -MMD -MP: each object lists the headers it included, for the next make
CFLAGS += $(WARN) -std=gnu11 -D_GNU_SOURCE -DPTBPF_VERSION='"$(VERSION)"' -MMD -MP

# The tracer's frames: none past 64 KiB. `ulimit -s 128` gives ptbpf's main
# thread and each of its threads 128 KiB of stack; a frame past half of it
# leaves too little for what it calls, and ptbpf's SIGSEGV (139) would read
# as the command's. Big objects go static or on the heap. Not under the
# sanitizers, whose redzones make every frame bigger.
STACK_WARN := $(if $(SANITIZE),,-Wstack-usage=65536)
FORMAT_INC := -Itools/format
TRACER_INC := -I$(OUTPUT) -Ibpf -Iuser $(FORMAT_INC)
DUMP_INC := -Itools/dump $(FORMAT_INC)
TEST_INC := $(TRACER_INC) -Itools/dump -Itests -Itests/sim

FORMAT_LDLIBS := -lelf -lz
TRACER_LDLIBS := -lbpf -ldw $(FORMAT_LDLIBS) -lpthread
DUMP_LDLIBS := -lipt -lcapstone -ljson-c -ldw $(FORMAT_LDLIBS)
TEST_LDLIBS := $(TRACER_LDLIBS) -lipt -lcapstone -ljson-c -ldw -lcmocka

ifeq ($(V),1)
Q =
msg =
else
Q = @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
MAKEFLAGS += --no-print-directory
endif

FORMAT_OBJS := $(patsubst tools/format/%.c,$(OUTPUT)/format/%.o,$(wildcard tools/format/*.c))
# user/ is grouped by subsystem, one folder each (user/README.md)
TRACER_SRCS := $(filter-out user/main.c,$(wildcard user/*.c user/*/*.c))
TRACER_OBJS := $(patsubst user/%.c,$(OUTPUT)/user/%.o,$(TRACER_SRCS))
DUMP_SRCS := $(filter-out tools/dump/main.c,$(wildcard tools/dump/*.c))
DUMP_OBJS := $(patsubst tools/dump/%.c,$(OUTPUT)/dump/%.o,$(DUMP_SRCS))
# only what includes the skeleton waits for clang and bpftool
SKEL_USERS := $(patsubst user/%.c,$(OUTPUT)/user/%.o,$(shell grep -l 'ptbpf\.skel\.h' user/*.c user/*/*.c))

LIBFORMAT := $(OUTPUT)/libptbpf-format.a
LIBTRACER := $(OUTPUT)/libptbpf.a
LIBDUMP := $(OUTPUT)/libptbpf-dump.a

SIM_OBJS := $(patsubst tests/sim/%.c,$(OUTPUT)/tests/sim/%.o,$(wildcard tests/sim/*.c))
# Tests by what they need: unit (in memory, no root, no external tool),
# pipeline (over the simulated PMU, read back by perf and lldb), integration
# (root, against the real kernel).
TEST_DIRS := unit pipeline integration
test_bins = $(patsubst tests/$(1)/%.c,$(OUTPUT)/tests/$(1)/%,$(wildcard tests/$(1)/test_*.c))
UNIT_BINS := $(call test_bins,unit)
PIPELINE_BINS := $(call test_bins,pipeline)
INTEG_BINS := $(call test_bins,integration)
# the stack walker's corpus (tests/progs/uw/uwstack.c), below
UWSTACK_BINS := $(addprefix $(OUTPUT)/tests/progs/,uwstack-O0 uwstack-O2 uwstack-ibt libuwlib.so)
HELPER_SRCS := $(wildcard tests/progs/*.c)
HELPER_BINS := $(patsubst tests/progs/%.c,$(OUTPUT)/tests/progs/%,$(HELPER_SRCS)) \
	$(OUTPUT)/tests/progs/callstack-nofp $(OUTPUT)/tests/progs/crashpath-O0 \
	$(OUTPUT)/tests/progs/crashpath-O2 $(OUTPUT)/tests/progs/libcrashlib.so \
	$(UWSTACK_BINS)
FUZZ_BINS := $(patsubst tests/fuzz/%.c,$(OUTPUT)/fuzz/%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_SECONDS ?= 30

.DELETE_ON_ERROR:
.SECONDARY:
.PHONY: all deps progs fuzz fuzz-bins check check-fresh unit pipeline integration sanitize demo bench \
	install clean fmt vmlinux layout

all: $(BINDIR)/ptbpf $(BINDIR)/ptbpf-dump

deps:
	$(Q)tools/deps.sh

$(OUTPUT) $(OUTPUT)/user $(OUTPUT)/dump $(OUTPUT)/format $(OUTPUT)/tests/sim \
$(OUTPUT)/tests/progs $(OUTPUT)/fuzz $(patsubst %,$(OUTPUT)/tests/%,$(TEST_DIRS)):
	$(Q)mkdir -p $@

# The BPF object: CO-RE, so one object runs on kernels other than this one.
$(OUTPUT)/ptbpf.bpf.o: bpf/ptbpf.bpf.c bpf/ptbpf.h $(VMLINUX) | $(OUTPUT)
	$(if $(wildcard $(VMLINUX)),,$(error $(ARCH): no $(VMLINUX); this architecture is not supported yet (make vmlinux on it makes one)))
	$(call msg,BPF,$@)
	$(Q)$(CLANG) -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_$(ARCH) \
		-Wall -Ivmlinux/$(ARCH) -Ibpf -c $< -o $@
	$(Q)$(LLVM_STRIP) -g $@

$(OUTPUT)/ptbpf.skel.h: $(OUTPUT)/ptbpf.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< > $@

$(SKEL_USERS): $(OUTPUT)/ptbpf.skel.h

$(OUTPUT)/format/%.o: tools/format/%.c | $(OUTPUT)/format
	$(call msg,CC,$@)
	$(Q)$(CC) $(CPPFLAGS) $(FORMAT_INC) $(CFLAGS) -c $< -o $@

$(OUTPUT)/user/%.o: user/%.c | $(OUTPUT)/user
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CPPFLAGS) $(TRACER_INC) $(CFLAGS) $(STACK_WARN) -c $< -o $@

$(OUTPUT)/dump/%.o: tools/dump/%.c | $(OUTPUT)/dump
	$(call msg,CC,$@)
	$(Q)$(CC) $(CPPFLAGS) $(DUMP_INC) $(CFLAGS) -c $< -o $@

$(LIBFORMAT): $(FORMAT_OBJS)
$(LIBTRACER): $(TRACER_OBJS)
$(LIBDUMP): $(DUMP_OBJS)
$(LIBFORMAT) $(LIBTRACER) $(LIBDUMP):
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(BINDIR)/ptbpf: $(OUTPUT)/user/main.o $(LIBTRACER) $(LIBFORMAT)
	$(call msg,BINARY,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $^ $(TRACER_LDLIBS) -o $@

# ptbpf-dump: the unprivileged reader. It links no tracer code and no libbpf.
$(BINDIR)/ptbpf-dump: $(OUTPUT)/dump/main.o $(LIBDUMP) $(LIBFORMAT)
	$(call msg,BINARY,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $^ $(DUMP_LDLIBS) -o $@

$(OUTPUT)/tests/sim/%.o: tests/sim/%.c | $(OUTPUT)/tests/sim
	$(call msg,CC,$@)
	$(Q)$(CC) $(CPPFLAGS) $(TEST_INC) $(CFLAGS) -c $< -o $@
$(SIM_OBJS): $(OUTPUT)/ptbpf.skel.h

# A test links what it uses of the three libraries; the linker takes only
# the objects it needs. The object rule keeps -MMD's dependency file.
$(OUTPUT)/tests/%.o: tests/%.c $(OUTPUT)/ptbpf.skel.h
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CPPFLAGS) $(TEST_INC) $(CFLAGS) -c $< -o $@

# the integration tests share their helpers (tests/integ.c), compiled once
$(INTEG_BINS): TEST_OBJS := $(OUTPUT)/tests/integ.o
$(INTEG_BINS): $(OUTPUT)/tests/integ.o
# the intel-pt pipeline tests share their fixture (tests/ptfix.c)
PTFIX_BINS := $(addprefix $(OUTPUT)/tests/pipeline/,test_pt_pipeline test_pt_windows)
$(PTFIX_BINS): TEST_OBJS := $(OUTPUT)/tests/ptfix.o
$(PTFIX_BINS): $(OUTPUT)/tests/ptfix.o

$(OUTPUT)/tests/%: $(OUTPUT)/tests/%.o $(SIM_OBJS) $(LIBTRACER) $(LIBDUMP) $(LIBFORMAT)
	$(call msg,TEST,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $< $(TEST_OBJS) $(SIM_OBJS) $(LIBTRACER) $(LIBDUMP) \
		$(LIBFORMAT) $(TEST_LDLIBS) -o $@

$(OUTPUT)/tests/progs/%: tests/progs/%.c | $(OUTPUT)/tests/progs
	$(call msg,PROG,$@)
	$(Q)$(CC) -g -O1 -fno-omit-frame-pointer -fno-inline -Wall -D_GNU_SOURCE $< -lpthread -o $@

# The same call path without frame pointers, as Debian builds its binaries:
# only --call-graph dwarf unwinds it.
$(OUTPUT)/tests/progs/callstack-nofp: tests/progs/callstack.c | $(OUTPUT)/tests/progs
	$(call msg,PROG,$@)
	$(Q)$(CC) -g -O1 -fomit-frame-pointer -fno-inline -Wall -D_GNU_SOURCE $< -o $@

# The crash programs share their call path (tests/progs/crashchain.h).
$(addprefix $(OUTPUT)/tests/progs/,crashpath crashpath-O0 crashpath-O2 crashlib crashdl): \
	tests/progs/crashchain.h

# The crash paths of test_crash.c at -O0 with frame pointers and at -O2
# without them (crashpath itself: the default rule's -O1 with them).
$(OUTPUT)/tests/progs/crashpath-O0: tests/progs/crashpath.c | $(OUTPUT)/tests/progs
	$(call msg,PROG,$@)
	$(Q)$(CC) -g -O0 -fno-omit-frame-pointer -Wall -D_GNU_SOURCE $< -lpthread -o $@
$(OUTPUT)/tests/progs/crashpath-O2: tests/progs/crashpath.c | $(OUTPUT)/tests/progs
	$(call msg,PROG,$@)
	$(Q)$(CC) -g -O2 -fomit-frame-pointer -Wall -D_GNU_SOURCE $< -lpthread -o $@

# A crash inside a shared library of our own without frame pointers: the
# program finds it next to itself ($$ORIGIN), under gdb as under ptbpf.
$(OUTPUT)/tests/progs/libcrashlib.so: tests/progs/lib/crashlib.c | $(OUTPUT)/tests/progs
	$(call msg,PROG,$@)
	$(Q)$(CC) -g -O2 -fomit-frame-pointer -fPIC -shared -Wall $< -o $@
$(OUTPUT)/tests/progs/crashlib: tests/progs/crashlib.c $(OUTPUT)/tests/progs/libcrashlib.so | $(OUTPUT)/tests/progs
	$(call msg,PROG,$@)
	$(Q)$(CC) -g -O1 -fno-omit-frame-pointer -fno-inline -Wall -D_GNU_SOURCE $< \
		-L$(OUTPUT)/tests/progs -lcrashlib -Wl,-rpath,'$$ORIGIN' -o $@

# The stack walker's corpus (tests/integration/test_uwalk.c walks it under
# gdb, tests/unit/test_cfitab.c checks its tables): at -O0 with frame
# pointers, at -O2 without (as Debian builds), and -O2 with IBT's PLT
# (-fcf-protection: .plt.sec, and a lazy .plt whose expression differs),
# each calling libcrashlib.so through its PLT; libuwlib.so, dlopen()ed,
# without frame pointers and with its CFI in .debug_frame alone.
UWSTACK_LIBS := -L$(OUTPUT)/tests/progs -lcrashlib -Wl,-rpath,'$$ORIGIN' -lpthread
$(OUTPUT)/tests/progs/uwstack-O0: tests/progs/uw/uwstack.c $(OUTPUT)/tests/progs/libcrashlib.so
	$(call msg,PROG,$@)
	$(Q)$(CC) -g -O0 -fno-omit-frame-pointer -Wall -D_GNU_SOURCE $< $(UWSTACK_LIBS) -o $@
$(OUTPUT)/tests/progs/uwstack-O2: tests/progs/uw/uwstack.c $(OUTPUT)/tests/progs/libcrashlib.so
	$(call msg,PROG,$@)
	$(Q)$(CC) -g -O2 -fomit-frame-pointer -Wall -D_GNU_SOURCE $< $(UWSTACK_LIBS) -o $@
$(OUTPUT)/tests/progs/uwstack-ibt: tests/progs/uw/uwstack.c $(OUTPUT)/tests/progs/libcrashlib.so
	$(call msg,PROG,$@)
	$(Q)$(CC) -g -O2 -fomit-frame-pointer -fcf-protection -Wall -D_GNU_SOURCE $< \
		$(UWSTACK_LIBS) -Wl,-z,ibtplt -o $@
$(OUTPUT)/tests/progs/libuwlib.so: tests/progs/lib/uwlib.c | $(OUTPUT)/tests/progs
	$(call msg,PROG,$@)
	$(Q)$(CC) -g -O2 -fomit-frame-pointer -fno-asynchronous-unwind-tables -fPIC -shared \
		-Wall $< -o $@
# the tables' unit test reads the corpus
$(OUTPUT)/tests/unit/test_cfitab: | $(UWSTACK_BINS)

# Two local functions named twin, one in each file: a name --trigger-on
# finds twice.
$(OUTPUT)/tests/progs/trigger: tests/progs/trigger.c tests/progs/twin/twin.c | $(OUTPUT)/tests/progs
	$(call msg,PROG,$@)
	$(Q)$(CC) -g -O1 -fno-omit-frame-pointer -fno-inline -Wall -D_GNU_SOURCE $^ -lpthread -o $@

# libFuzzer harnesses over the reader's parsers: `make fuzz` builds them in
# their own tree with SANITIZE=fuzzer and runs each for FUZZ_SECONDS.
$(OUTPUT)/fuzz/%: $(OUTPUT)/fuzz/%.o $(LIBDUMP) $(LIBFORMAT)
	$(call msg,FUZZ,$@)
	$(Q)$(CC) $(CFLAGS) -fsanitize=fuzzer $< $(LIBDUMP) $(LIBFORMAT) $(DUMP_LDLIBS) -o $@
$(OUTPUT)/fuzz/%.o: tests/fuzz/%.c | $(OUTPUT)/fuzz
	$(call msg,CC,$@)
	$(Q)$(CC) $(CPPFLAGS) $(DUMP_INC) $(CFLAGS) -c $< -o $@

ifeq ($(SANITIZE),fuzzer)
fuzz-bins: $(FUZZ_BINS)
fuzz: $(FUZZ_BINS)
	$(Q)for f in $(FUZZ_BINS); do \
		mkdir -p $(OUTPUT)/fuzz/corpus-$$(basename $$f); \
		echo "  FUZZ     $$f ($(FUZZ_SECONDS) s)"; \
		$$f -max_total_time=$(FUZZ_SECONDS) -print_final_stats=0 -timeout=10 -artifact_prefix=$(OUTPUT)/fuzz/ \
			$(OUTPUT)/fuzz/corpus-$$(basename $$f) tests/fuzz/seeds 2>$(OUTPUT)/fuzz/$$(basename $$f).log \
			|| { tail -n 30 $(OUTPUT)/fuzz/$$(basename $$f).log; exit 1; }; \
	done
else
fuzz fuzz-bins:
	$(Q)$(MAKE) SANITIZE=fuzzer CC=$(CLANG) OUTPUT=$(OUTPUT)/fuzz-build $@
endif

# The reader and its tests under ASan and UBSan, in their own tree.
ifeq ($(SANITIZE),address)
sanitize: $(BINDIR)/ptbpf-dump $(foreach b,$(UNIT_BINS) $(PIPELINE_BINS),\
	$(if $(filter test_dump% test_json%,$(notdir $(b))),$(b)))
else
sanitize:
	$(Q)$(MAKE) SANITIZE=address OUTPUT=$(OUTPUT)/sanitize BINDIR=$(OUTPUT)/sanitize sanitize
endif

progs: $(HELPER_BINS)
unit: $(UNIT_BINS)
pipeline: $(PIPELINE_BINS)
integration: all $(INTEG_BINS) $(HELPER_BINS)

# The summary line `N passed, N failed, N skipped` comes from tests/run.sh,
# after one subtotal per folder; the layout check, the fuzz runs (30 s a
# target) and the sanitizer builds count as one test each.
check: deps
	$(Q)$(MAKE) all unit pipeline integration
	@# the fuzz and sanitizer trees are built here, untimed: on a busy machine their
	@# builds alone can outlast a test's deadline in tests/run.sh
	$(Q)$(MAKE) fuzz-bins sanitize
	$(Q)tests/run.sh unit: $(UNIT_BINS) tests/layout.sh \
		pipeline: $(PIPELINE_BINS) \
		integration: $(INTEG_BINS) tests/man.sh tests/systemd.sh tests/readme.sh \
		builds: tests/fuzz/fuzz-all.sh tests/sanitize.sh

# The README's two commands in a fresh Debian 12 minbase chroot (slow: it
# installs everything there; the chroot's base is cached). Not part of check.
check-fresh:
	$(Q)tests/fresh.sh $(REF)

demo: deps
	$(Q)$(MAKE) all progs
	$(Q)tools/demo.sh

bench: deps
	$(Q)$(MAKE) all progs
	$(Q)tests/bench/run.sh $(B)

install: all
	$(call msg,INSTALL,$(DESTDIR)$(PREFIX)/bin/ptbpf ptbpf-dump)
	$(Q)install -D -m 0755 ptbpf $(DESTDIR)$(PREFIX)/bin/ptbpf
	$(Q)install -D -m 0755 ptbpf-dump $(DESTDIR)$(PREFIX)/bin/ptbpf-dump
	$(call msg,INSTALL,$(DESTDIR)$(PREFIX)/share/man/man1/ptbpf.1 ptbpf-dump.1)
	$(Q)install -D -m 0644 tools/man/ptbpf.1 $(DESTDIR)$(PREFIX)/share/man/man1/ptbpf.1
	$(Q)install -D -m 0644 tools/man/ptbpf-dump.1 $(DESTDIR)$(PREFIX)/share/man/man1/ptbpf-dump.1
	$(call msg,INSTALL,$(DESTDIR)$(SYSTEMD_UNIT_DIR)/ptbpf@.service)
	$(Q)mkdir -p $(DESTDIR)$(SYSTEMD_UNIT_DIR)
	$(Q)sed 's|/usr/local/bin/ptbpf|$(PREFIX)/bin/ptbpf|' tools/systemd/ptbpf@.service \
		> $(DESTDIR)$(SYSTEMD_UNIT_DIR)/ptbpf@.service
	$(Q)chmod 0644 $(DESTDIR)$(SYSTEMD_UNIT_DIR)/ptbpf@.service

# the layout alone: the trees' includes, user/'s folders in order, the map
layout:
	$(Q)tests/layout.sh

vmlinux:
	$(Q)vmlinux/gen.sh

fmt:
	$(Q)git ls-files '*.c' '*.h' | grep -v '^vmlinux/' | xargs clang-format -i

clean:
	$(call msg,CLEAN)
	$(Q)rm -rf $(OUTPUT) ptbpf ptbpf-dump

-include $(wildcard $(OUTPUT)/*/*.d $(OUTPUT)/user/*/*.d $(OUTPUT)/tests/*/*.d)
