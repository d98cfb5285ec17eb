/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Text that a traced program controls (its comm, the paths it maps, the
 * symbol names of its files, a snapshot someone handed over), made safe
 * to print on a terminal: every byte a terminal would act on is shown as
 * an escape instead of sent. A comm of "\x1b]0;PWN\x07\x1b[2J\n" prints as
 * that text, on its one line, and neither retitles nor clears the screen.
 *
 * Escaped: the C0 controls and DEL (\n, \t, \r, else \xHH), the C1
 * controls in their UTF-8 form (U+0080..U+009F, which some terminals act
 * on as 8-bit CSI, OSC...), every byte that is not part of valid UTF-8
 * (a terminal in a single-byte locale takes 0x80..0x9f as C1), and the
 * backslash itself (\\), so that an escape and the text "\x1b" differ.
 * Valid UTF-8 from U+00A0 on passes as it is.
 */
#ifndef PTBPF_TEXTESC_H
#define PTBPF_TEXTESC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Worst case: every byte becomes "\xHH" */
#define TEXTESC_SIZE(n) (4 * (n) + 1)

/*
 * For a text made of lines that is escaped as a last net (a line already
 * escaped passes unchanged): '\n' and '\\' pass as they are.
 */
#define TEXTESC_LINES 1u

/*
 * Writes @n bytes of @src escaped into @dst of @len bytes, always
 * NUL-terminated; a text that does not fit is cut before an escape or a
 * character that would not fit whole. Returns @dst.
 */
char *textesc(char *dst, size_t len, const char *src, size_t n, unsigned int flags);

/* textesc() of the C string @s. */
char *textesc_str(char *dst, size_t len, const char *s);

/* Whether @n bytes of @src would change when escaped. */
bool textesc_needed(const char *src, size_t n, unsigned int flags);

/*
 * A copy of the C string @s, escaped (malloc'd; NULL when memory runs
 * out): for names kept to be shown many times.
 */
char *textesc_dup(const char *s);

/* Writes the C string @s escaped to @out. Returns 0 or EOF. */
int textesc_fputs(const char *s, FILE *out);

#endif /* PTBPF_TEXTESC_H */
