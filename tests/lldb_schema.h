/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The intel-pt trace bundle schema that `lldb-19 -b -o "trace schema
 * intel-pt"` prints (LLDB 19.1.7), as a Python checker shared by the tests
 * of trace.json: lldb_schema_write() writes schema_py then check_py to a
 * file; run `python3 FILE trace.json [lldb-schema-output]`. It fails on
 * a missing required field, a field of the wrong type or an unknown
 * field, and, given lldb's own output, on a field lldb no longer lists;
 * it prints the modules' systemPath values as a JSON list.
 */
#ifndef PTBPF_TESTS_LLDB_SCHEMA_H
#define PTBPF_TESTS_LLDB_SCHEMA_H

#include <stdio.h>
#include <stdlib.h>

/*
 * The schema, as a Python literal: name -> (kind, required, children).
 * Kinds: int, str, intstr (integer | decimal or hex string), obj, arr.
 */
static const char schema_py[] =
	"S = {'type': ('str', 1, None),\n"
	" 'cpuInfo': ('obj', 1, {'vendor': ('str', 1, None),\n"
	"   'family': ('int', 1, None), 'model': ('int', 1, None),\n"
	"   'stepping': ('int', 1, None)}),\n"
	" 'processes': ('arr', 0, {'pid': ('int', 1, None),\n"
	"   'triple': ('str', 0, None),\n"
	"   'threads': ('arr', 1, {'tid': ('int', 1, None),\n"
	"      'iptTrace': ('str', 0, None)}),\n"
	"   'modules': ('arr', 1, {'systemPath': ('str', 1, None),\n"
	"      'file': ('str', 0, None), 'loadAddress': ('intstr', 1, None),\n"
	"      'uuid': ('str', 0, None)})}),\n"
	" 'cpus': ('arr', 0, {'id': ('int', 1, None),\n"
	"   'iptTrace': ('str', 1, None),\n"
	"   'contextSwitchTrace': ('str', 1, None)}),\n"
	" 'tscPerfZeroConversion': ('obj', 0, {'timeMult': ('int', 1, None),\n"
	"   'timeShift': ('int', 1, None), 'timeZero': ('intstr', 1, None)}),\n"
	" 'kernel': ('obj', 0, {'loadAddress': ('intstr', 0, None),\n"
	"   'file': ('str', 1, None)})}\n";

static const char check_py[] = "import json, re, sys\n"
			       "def kind_ok(k, v):\n"
			       "    if k == 'int': return type(v) is int\n"
			       "    if k == 'str': return type(v) is str\n"
			       "    if k == 'obj': return type(v) is dict\n"
			       "    if k == 'arr': return type(v) is list\n"
			       "    return type(v) is int or (type(v) is str and\n"
			       "        re.fullmatch(r'[0-9]+|0x[0-9a-fA-F]+', v) is not None)\n"
			       "def check(o, spec, where):\n"
			       "    assert type(o) is dict, where\n"
			       "    for k in o: assert k in spec, 'unknown field ' + where + k\n"
			       "    for k, (kind, req, sub) in spec.items():\n"
			       "        if k not in o:\n"
			       "            assert not req, 'missing ' + where + k\n"
			       "            continue\n"
			       "        assert kind_ok(kind, o[k]), 'bad type ' + where + k\n"
			       "        if kind == 'obj': check(o[k], sub, where + k + '.')\n"
			       "        if kind == 'arr':\n"
			       "            for i, e in enumerate(o[k]):\n"
			       "                check(e, sub, '%s%s[%d].' % (where, k, i))\n"
			       "d = json.load(open(sys.argv[1], 'rb'))\n"
			       "check(d, S, '')\n"
			       "assert d['type'] == 'intel-pt'\n"
			       "assert d['cpuInfo']['vendor'] in ('GenuineIntel', 'unknown')\n"
			       "assert ('cpus' in d) <= ('tscPerfZeroConversion' in d)\n"
			       "if len(sys.argv) > 2:\n"
			       "    names = set(re.findall(r'\"([A-Za-z]+)\\??\"\\??:',\n"
			       "                           open(sys.argv[2]).read()))\n"
			       "    def walk(spec):\n"
			       "        for k, (kind, req, sub) in spec.items():\n"
			       "            assert k in names, 'lldb no longer lists ' + k\n"
			       "            if sub: walk(sub)\n"
			       "    walk(S)\n"
			       "print(json.dumps([m['systemPath'] for p in d['processes']\n"
			       "                  for m in p['modules']]))\n";

/*
 * Writes schema_py then check_py to @dir/check.py, its path into @py
 * (@pylen bytes), and what lldb-19 prints as the schema to
 * @dir/schema.txt, its path into @lldb (@lldblen bytes); @lldb is "" when
 * lldb-19 is not installed: the hard-coded list alone is checked. Returns
 * 0, or -1 when check.py can't be written.
 */
static inline int lldb_schema_write(const char *dir, char *py, size_t pylen, char *lldb,
				    size_t lldblen)
{
	char cmd[512];
	FILE *f;

	snprintf(py, pylen, "%s/check.py", dir);
	f = fopen(py, "w");
	if (!f)
		return -1;
	fputs(schema_py, f);
	fputs(check_py, f);
	fclose(f);
	snprintf(lldb, lldblen, "%s/schema.txt", dir);
	snprintf(cmd, sizeof(cmd), "lldb-19 -b -o 'trace schema intel-pt' >%s 2>/dev/null", lldb);
	if (system(cmd) != 0)
		lldb[0] = '\0';
	return 0;
}

#endif /* PTBPF_TESTS_LLDB_SCHEMA_H */
