// SPDX-License-Identifier: GPL-2.0
/* Capability check: see privs.h. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/capability.h>

#include "base/errbuf.h"
#include "privs.h"

/* Not in older uapi headers. */
#define CAP_PERFMON_ 38
#define CAP_BPF_ 39

static bool has_cap(const struct __user_cap_data_struct *d, int cap)
{
	return d[cap / 32].effective & (1U << (cap % 32));
}

int privs_check(char *err, size_t errlen)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
		.pid = 0,
	};
	struct __user_cap_data_struct data[2];

	memset(data, 0, sizeof(data));
	if (syscall(SYS_capget, &hdr, data))
		return errbuf_set(err, errlen, -EPERM, "can't read capabilities: %s",
				  strerror(errno));
	if (has_cap(data, CAP_SYS_ADMIN) ||
	    (has_cap(data, CAP_BPF_) && has_cap(data, CAP_PERFMON_)))
		return 0;
	return errbuf_set(
		err, errlen, -EPERM,
		"not enough privileges: ptbpf needs CAP_BPF and CAP_PERFMON (run it as root, e.g. with sudo)");
}
