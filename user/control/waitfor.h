/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --wait-for: before there is a target, the BPF program's exec hook alone
 * (handle_waitfor) waits for the first process to exec a program and holds
 * it with SIGSTOP before its first instruction; the run then traces it as
 * with --pid and lets it go (SIGCONT) once collection runs.
 */
#ifndef PTBPF_WAITFOR_H
#define PTBPF_WAITFOR_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/*
 * Waits for a process to exec @name: a path (it has a '/') names the file,
 * whatever path the exec used (its device and inode); a bare name is
 * matched against the name the kernel gives the process, its first 15
 * characters (comm, as ps shows it). Says that it waits unless @verbosity
 * is below 0; libbpf's messages above 0. Returns the pid, held stopped, or
 * -errno with one line in @err: -ENOENT (@name a path that is no regular
 * file), -EINTR (a terminating signal ended the wait), or what loading the
 * program returned.
 */
pid_t waitfor_exec(const char *name, int verbosity, char *err, size_t errlen);

#endif /* PTBPF_WAITFOR_H */
