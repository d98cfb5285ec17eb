/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The JSON keys of a snapshot that ptbpf writes and ptbpf-dump reads back:
 * ptbpf.json's (user/output/ptbpfjson.c, user/output/snapjson.c;
 * tools/dump/snap.c) and those of LLDB's trace.json schema the reader
 * follows (user/output/bundle.c). Each is spelled here only, so the two
 * programs can't drift apart on a rename. Keys only one side uses (for
 * people, or for LLDB alone) stay where they are written. Macros: the reader's messages join them ("time_conv." "valid").
 */
#ifndef PTBPF_SNAPKEYS_H
#define PTBPF_SNAPKEYS_H

/* ptbpf.json, top level */
#define SNAPKEY_SNAPSHOT "snapshot" /* the id; also events.jsonl's */
#define SNAPKEY_BACKEND "backend"
#define SNAPKEY_PID "pid" /* the run's target */
#define SNAPKEY_FULL "full"
#define SNAPKEY_RUN_START_NS "run_start_ns"

/*
 * What asked for the snapshot, its cause (snapcause.h): ptbpf.json and
 * events.jsonl alike. The keys say "trigger", as they did before the
 * cause had its own word; readers depend on them.
 */
#define SNAPKEY_CAUSE "trigger"
#define SNAPKEY_SIGNAL "signal"
#define SNAPKEY_CAUSE_TS "trigger_ts"
#define SNAPKEY_CAUSE_PID "trigger_pid"
#define SNAPKEY_CAUSE_TID "trigger_tid"
#define SNAPKEY_STOP_KIND "stop_kind"
#define SNAPKEY_SI_CODE "si_code"
#define SNAPKEY_IP "ip"
#define SNAPKEY_ADDR "addr"
#define SNAPKEY_FOLDED_STOPS "folded_stops"
#define SNAPKEY_FOLDED_HITS "folded_hits"

/* "clock": CLOCK_REALTIME and CLOCK_MONOTONIC read together */
#define SNAPKEY_CLOCK "clock"
#define SNAPKEY_CLOCK_REALTIME_NS "realtime_ns"
#define SNAPKEY_CLOCK_MONOTONIC_NS "monotonic_ns"

/* "crash": the crash record of a fatal snapshot */
#define SNAPKEY_CRASH "crash"
#define SNAPKEY_CRASH_AT "at"
#define SNAPKEY_CRASH_CAPTURE_NS "capture_ns"
#define SNAPKEY_CRASH_STACK_ASKED "stack_asked"

/* "time_conv": the perf mmap page's TSC conversion */
#define SNAPKEY_TIME_CONV "time_conv"
#define SNAPKEY_TC_VALID "valid"
#define SNAPKEY_TC_TIME_SHIFT "time_shift"
#define SNAPKEY_TC_TIME_MULT "time_mult"
#define SNAPKEY_TC_TIME_ZERO "time_zero"

/* "cpu": what a PT decoder needs of the CPU */
#define SNAPKEY_CPU "cpu"
#define SNAPKEY_CPU_VENDOR "vendor"
#define SNAPKEY_CPU_FAMILY "family"
#define SNAPKEY_CPU_MODEL "model"
#define SNAPKEY_CPU_STEPPING "stepping"

/* "attr": the data event's perf_event_attr */
#define SNAPKEY_ATTR "attr"
#define SNAPKEY_ATTR_CONFIG "config"

/* "ptxed" (intel-pt): ptxed's options, and their values */
#define SNAPKEY_PTXED "ptxed"
#define SNAPKEY_PTXED_MTC_FREQ "mtc_freq"
#define SNAPKEY_PTXED_TSC_CTC_RATIO_N "tsc_ctc_ratio_n"
#define SNAPKEY_PTXED_TSC_CTC_RATIO_D "tsc_ctc_ratio_d"
#define SNAPKEY_PTXED_MAX_NONTURBO_RATIO "max_nonturbo_ratio"

/* "cores": one object per core traced */
#define SNAPKEY_CORES "cores"
#define SNAPKEY_CORE_CPU "cpu"
#define SNAPKEY_CORE_BYTES "bytes"
#define SNAPKEY_CORE_SIDEBAND_BYTES "sideband_bytes"
#define SNAPKEY_CORE_WRAPPED "wrapped"
#define SNAPKEY_CORE_LOST_BYTES "lost_bytes"
#define SNAPKEY_CORE_SIDEBAND_WRAPPED "sideband_wrapped"
#define SNAPKEY_CORE_SIDEBAND_LOST_BYTES "sideband_lost_bytes"
/* a core's "aux" (intel-pt): what the kernel's AUX records said */
#define SNAPKEY_CORE_AUX "aux"
#define SNAPKEY_AUX_TRUNCATED "truncated"
#define SNAPKEY_AUX_COLLISION "collision"
#define SNAPKEY_AUX_PARTIAL "partial"
#define SNAPKEY_AUX_RECORDS_LOST "records_lost"

/* "vdso": the vDSO image saved as SNAPFMT_VDSO; absent when none was */
#define SNAPKEY_VDSO "vdso"
#define SNAPKEY_VDSO_FILE "file"
#define SNAPKEY_VDSO_BYTES "bytes"

/* "process" (the target) and "followed" (--follow): process objects */
#define SNAPKEY_PROCESS "process"
#define SNAPKEY_FOLLOWED "followed"
#define SNAPKEY_PROC_PID "pid"
#define SNAPKEY_PROC_COMM "comm"
#define SNAPKEY_PROC_THREADS "threads"
/* what backs its [vdso]: SNAPFMT_VDSO, or why nothing does; absent: none */
#define SNAPKEY_PROC_VDSO "vdso"
#define SNAPKEY_THREAD_TID "tid"
#define SNAPKEY_THREAD_COMM "comm"

/* trace.json: the keys of LLDB's schema the reader reads back */
#define SNAPKEY_LLDB_PROCESSES "processes"
#define SNAPKEY_LLDB_MODULES "modules"
#define SNAPKEY_LLDB_SYSTEM_PATH "systemPath"
#define SNAPKEY_LLDB_FILE "file" /* a module's copy in the bundle */
#define SNAPKEY_LLDB_LOAD_ADDRESS "loadAddress"
#define SNAPKEY_LLDB_CPUS "cpus"
#define SNAPKEY_LLDB_CPU_ID "id"
#define SNAPKEY_LLDB_IPT_TRACE "iptTrace"
#define SNAPKEY_LLDB_SWITCH_TRACE "contextSwitchTrace"

#endif /* PTBPF_SNAPKEYS_H */
