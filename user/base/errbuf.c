// SPDX-License-Identifier: GPL-2.0
/* One error line into the caller's buffer (errbuf.h). */
#include <stdarg.h>
#include <stdio.h>

#include "errbuf.h"

int errbuf_set(char *err, size_t errlen, int rc, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return rc;
}
