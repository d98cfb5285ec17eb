/* SPDX-License-Identifier: GPL-2.0 */
/* Whether this process may load BPF programs and open per-CPU perf events. */
#ifndef PTBPF_PRIVS_H
#define PTBPF_PRIVS_H

#include <stddef.h>

/*
 * Returns 0 when the effective set holds CAP_BPF and CAP_PERFMON (or
 * CAP_SYS_ADMIN, which implies both on kernels before 5.8); else -EPERM
 * with one line in @err that says what to do.
 */
int privs_check(char *err, size_t errlen);

#endif /* PTBPF_PRIVS_H */
