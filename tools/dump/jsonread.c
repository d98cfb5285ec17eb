// SPDX-License-Identifier: GPL-2.0
/* A small JSON reader: see jsonread.h. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "jsonread.h"

struct parser {
	const char *p, *end, *start;
	int depth;
	int err; /* 0, -EBADMSG or -ENOMEM */
	struct jread_err *where;
};

static struct jval *fail(struct parser *ps, const char *at, const char *why)
{
	if (!ps->err) {
		ps->err = -EBADMSG;
		if (ps->where) {
			ps->where->off = (size_t)(at - ps->start);
			ps->where->why = why;
		}
	}
	return NULL;
}

static struct jval *nomem(struct parser *ps)
{
	if (!ps->err)
		ps->err = -ENOMEM;
	return NULL;
}

static void skip_ws(struct parser *ps)
{
	while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' ||
				   *ps->p == '\n' || *ps->p == '\r'))
		ps->p++;
}

static struct jval *node(struct parser *ps, enum jtype t)
{
	struct jval *v = calloc(1, sizeof(*v));

	if (!v)
		return nomem(ps);
	v->type = t;
	return v;
}

static bool literal(struct parser *ps, const char *word)
{
	size_t n = strlen(word);

	if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, word, n))
		return false;
	ps->p += n;
	return true;
}

static int hex4(const char *p)
{
	int v = 0, i, c;

	for (i = 0; i < 4; i++) {
		c = p[i];
		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= c - '0';
		else if (c >= 'a' && c <= 'f')
			v |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			v |= c - 'A' + 10;
		else
			return -1;
	}
	return v;
}

static size_t put_utf8(char *o, unsigned int cp)
{
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (char)(0xc0 | cp >> 6);
		o[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (char)(0xe0 | cp >> 12);
		o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | cp >> 18);
	o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	o[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* A \uXXXX escape at ps->p (after the backslash-u), surrogate pairs joined. */
static bool unicode_escape(struct parser *ps, unsigned int *cp)
{
	int hi, lo;

	if (ps->end - ps->p < 4 || (hi = hex4(ps->p)) < 0)
		return false;
	ps->p += 4;
	*cp = (unsigned int)hi;
	if (hi < 0xd800 || hi > 0xdfff)
		return true;
	/* a lone or reversed surrogate is not a character */
	if (hi > 0xdbff || ps->end - ps->p < 6 || ps->p[0] != '\\' ||
	    ps->p[1] != 'u' || (lo = hex4(ps->p + 2)) < 0xdc00 || lo > 0xdfff)
		return false;
	ps->p += 6;
	*cp = 0x10000 + (((unsigned int)hi - 0xd800) << 10) +
	      ((unsigned int)lo - 0xdc00);
	return true;
}

static bool escape(struct parser *ps, char *o, size_t *n)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char *e;
	unsigned int cp;

	if (ps->p >= ps->end)
		return false;
	e = *ps->p ? strchr(from, *ps->p) : NULL;
	ps->p++;
	if (e) {
		o[(*n)++] = to[e - from];
		return true;
	}
	if (ps->p[-1] != 'u' || !unicode_escape(ps, &cp))
		return false;
	*n += put_utf8(o + *n, cp);
	return true;
}

/* A string at ps->p (the opening quote); the result is NUL-terminated. */
static char *string(struct parser *ps, size_t *len)
{
	const char *q = ps->p++;
	char *o;
	size_t n = 0;

	/* the decoded text is never longer than the escaped one */
	o = malloc((size_t)(ps->end - ps->p) + 1);
	if (!o)
		return (char *)nomem(ps);
	while (ps->p < ps->end && *ps->p != '"') {
		const char *at = ps->p;

		if ((unsigned char)*ps->p < 0x20) {
			free(o);
			return (char *)fail(ps, at,
					    "control character in string");
		}
		if (*ps->p != '\\') {
			o[n++] = *ps->p++;
			continue;
		}
		ps->p++;
		if (!escape(ps, o, &n)) {
			free(o);
			return (char *)fail(ps, at, "bad escape in string");
		}
	}
	if (ps->p >= ps->end) {
		free(o);
		return (char *)fail(ps, q, "unterminated string");
	}
	ps->p++;
	o[n] = '\0';
	*len = n;
	return o;
}

static const char *digits(const char *p, const char *end)
{
	while (p < end && *p >= '0' && *p <= '9')
		p++;
	return p;
}

/* The exact integer value of the digits [@p, @end), if it fits a u64. */
static bool exact_u64(const char *p, const char *end, uint64_t *u)
{
	uint64_t v = 0;

	for (; p < end; p++) {
		if (v > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
			return false;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	*u = v;
	return true;
}

static struct jval *number(struct parser *ps)
{
	const char *s = ps->p, *p = s, *int_start, *int_end;
	char tmp[64];
	struct jval *v;
	bool frac = false;

	if (p < ps->end && *p == '-')
		p++;
	int_start = p;
	int_end = digits(p, ps->end);
	if (int_end == int_start ||
	    (*int_start == '0' && int_end - int_start > 1))
		return fail(ps, s, "bad number");
	p = int_end;
	if (p < ps->end && *p == '.') {
		frac = true;
		if ((p = digits(p + 1, ps->end)) == int_end + 1)
			return fail(ps, s, "bad number");
	}
	if (p < ps->end && (*p == 'e' || *p == 'E')) {
		const char *e = ++p;

		frac = true;
		if (p < ps->end && (*p == '+' || *p == '-'))
			e = ++p;
		if ((p = digits(p, ps->end)) == e)
			return fail(ps, s, "bad number");
	}
	if (!(v = node(ps, JT_NUM)))
		return NULL;
	v->is_neg = *s == '-';
	v->is_int = !frac && exact_u64(int_start, int_end, &v->u) &&
		    (!v->is_neg || v->u <= (uint64_t)INT64_MAX + 1);
	/* strtod needs a terminated copy: the buffer may end right here */
	if ((size_t)(p - s) < sizeof(tmp)) {
		memcpy(tmp, s, (size_t)(p - s));
		tmp[p - s] = '\0';
		v->d = strtod(tmp, NULL);
	} else {
		v->d = v->is_neg ? -HUGE_VAL : HUGE_VAL;
	}
	ps->p = p;
	return v;
}

static struct jval *value(struct parser *ps);

/* Appends @item (and @key for objects) to @v; false when out of memory. */
static bool append(struct parser *ps, struct jval *v, char *key,
		   struct jval *item)
{
	struct jval **items;
	char **keys;

	/* grow at powers of two so appending n members costs O(n) */
	if (!(v->n & (v->n - 1))) {
		size_t cap = v->n ? v->n * 2 : 1;

		items = realloc(v->items, cap * sizeof(*items));
		if (!items)
			return nomem(ps), false;
		v->items = items;
		if (v->type == JT_OBJ) {
			keys = realloc(v->keys, cap * sizeof(*keys));
			if (!keys)
				return nomem(ps), false;
			v->keys = keys;
		}
	}
	v->items[v->n] = item;
	if (v->type == JT_OBJ)
		v->keys[v->n] = key;
	v->n++;
	return true;
}

/* One member of an object: "key": value. */
static bool member(struct parser *ps, struct jval *v)
{
	struct jval *item;
	size_t klen;
	char *key;

	skip_ws(ps);
	if (ps->p >= ps->end || *ps->p != '"')
		return fail(ps, ps->p, "expected a member name"), false;
	if (!(key = string(ps, &klen)))
		return false;
	skip_ws(ps);
	if (ps->p >= ps->end || *ps->p != ':') {
		free(key);
		return fail(ps, ps->p, "expected ':'"), false;
	}
	ps->p++;
	item = value(ps);
	if (!item || !append(ps, v, key, item)) {
		free(key);
		jval_free(item);
		return false;
	}
	return true;
}

static struct jval *container(struct parser *ps, enum jtype t)
{
	char close = t == JT_OBJ ? '}' : ']';
	struct jval *v, *item;

	if (++ps->depth > JREAD_MAX_DEPTH)
		return fail(ps, ps->p, "nested too deeply");
	ps->p++;
	if (!(v = node(ps, t)))
		return NULL;
	skip_ws(ps);
	if (ps->p < ps->end && *ps->p == close) {
		ps->p++;
		ps->depth--;
		return v;
	}
	for (;;) {
		if (t == JT_OBJ) {
			if (!member(ps, v))
				break;
		} else {
			item = value(ps);
			if (!item || !append(ps, v, NULL, item)) {
				jval_free(item);
				break;
			}
		}
		skip_ws(ps);
		if (ps->p < ps->end && *ps->p == ',') {
			ps->p++;
			continue;
		}
		if (ps->p < ps->end && *ps->p == close) {
			ps->p++;
			ps->depth--;
			return v;
		}
		fail(ps, ps->p,
		     ps->p < ps->end ? "expected ',' or a close" :
				       "unexpected end of input");
		break;
	}
	jval_free(v);
	return NULL;
}

static struct jval *value(struct parser *ps)
{
	struct jval *v;
	bool truth;

	skip_ws(ps);
	if (ps->p >= ps->end)
		return fail(ps, ps->p, "unexpected end of input");
	switch (*ps->p) {
	case '{':
		return container(ps, JT_OBJ);
	case '[':
		return container(ps, JT_ARR);
	case '"':
		if (!(v = node(ps, JT_STR)))
			return NULL;
		if (!(v->s = string(ps, &v->slen))) {
			free(v);
			return NULL;
		}
		return v;
	case 't':
	case 'f':
		truth = literal(ps, "true");
		if (!truth && !literal(ps, "false"))
			return fail(ps, ps->p, "unknown literal");
		if ((v = node(ps, JT_BOOL)))
			v->b = truth;
		return v;
	case 'n':
		if (!literal(ps, "null"))
			return fail(ps, ps->p, "unknown literal");
		return node(ps, JT_NULL);
	}
	if (*ps->p == '-' || (*ps->p >= '0' && *ps->p <= '9'))
		return number(ps);
	return fail(ps, ps->p, "unexpected character");
}

int jread_parse(const char *buf, size_t len, struct jval **out,
		struct jread_err *err)
{
	struct parser ps = { buf, buf + len, buf, 0, 0, err };
	struct jval *v;

	if ((!buf && len) || !out)
		return -EINVAL;
	*out = NULL;
	v = value(&ps);
	if (v) {
		skip_ws(&ps);
		if (ps.p < ps.end) {
			fail(&ps, ps.p, "text after the value");
			jval_free(v);
			v = NULL;
		}
	}
	if (!v)
		return ps.err ? ps.err : -EBADMSG;
	*out = v;
	return 0;
}

void jval_free(struct jval *v)
{
	size_t i;

	if (!v)
		return;
	for (i = 0; i < v->n; i++) {
		jval_free(v->items[i]);
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->items);
	free(v->keys);
	free(v->s);
	free(v);
}

const struct jval *jval_get(const struct jval *obj, const char *key)
{
	size_t i;

	if (!obj || obj->type != JT_OBJ || !key)
		return NULL;
	/* the last one wins, as in most readers */
	for (i = obj->n; i-- > 0;)
		if (!strcmp(obj->keys[i], key))
			return obj->items[i];
	return NULL;
}

const struct jval *jval_at(const struct jval *arr, size_t i)
{
	if (!arr || arr->type != JT_ARR || i >= arr->n)
		return NULL;
	return arr->items[i];
}

const char *jval_type_name(enum jtype t)
{
	static const char *const names[] = { "null",   "bool",	"number",
					     "string", "array", "object" };

	return (unsigned int)t < 6 ? names[t] : "unknown";
}

static int typed(const struct jval *obj, const char *key, enum jtype t,
		 const struct jval **v)
{
	*v = jval_get(obj, key);
	if (!*v)
		return -ENOENT;
	return (*v)->type == t ? 0 : -EINVAL;
}

int jval_get_u64(const struct jval *obj, const char *key, uint64_t *out)
{
	const struct jval *v;
	int ret = typed(obj, key, JT_NUM, &v);

	if (ret)
		return ret;
	if (!v->is_int || (v->is_neg && v->u))
		return -EINVAL;
	*out = v->u;
	return 0;
}

int jval_get_i64(const struct jval *obj, const char *key, int64_t *out)
{
	const struct jval *v;
	int ret = typed(obj, key, JT_NUM, &v);

	if (ret)
		return ret;
	if (!v->is_int || (!v->is_neg && v->u > INT64_MAX))
		return -EINVAL;
	*out = v->is_neg ? (int64_t)(0 - v->u) : (int64_t)v->u;
	return 0;
}

int jval_get_bool(const struct jval *obj, const char *key, bool *out)
{
	const struct jval *v;
	int ret = typed(obj, key, JT_BOOL, &v);

	if (!ret)
		*out = v->b;
	return ret;
}

int jval_get_str(const struct jval *obj, const char *key, const char **out)
{
	const struct jval *v;
	int ret = typed(obj, key, JT_STR, &v);

	if (!ret)
		*out = v->s;
	return ret;
}

int jval_get_hex(const struct jval *obj, const char *key, uint64_t *out)
{
	const struct jval *v = jval_get(obj, key);
	uint64_t x = 0;
	const char *p;
	int d;

	if (!v)
		return -ENOENT;
	if (v->type == JT_NUM)
		return jval_get_u64(obj, key, out);
	if (v->type != JT_STR || strncmp(v->s, "0x", 2) || !v->s[2] ||
	    strlen(v->s) > 18)
		return -EINVAL;
	for (p = v->s + 2; *p; p++) {
		d = *p >= '0' && *p <= '9' ? *p - '0' :
		    *p >= 'a' && *p <= 'f' ? *p - 'a' + 10 :
		    *p >= 'A' && *p <= 'F' ? *p - 'A' + 10 :
					     -1;
		if (d < 0)
			return -EINVAL;
		x = x << 4 | (uint64_t)d;
	}
	*out = x;
	return 0;
}
