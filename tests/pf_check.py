#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Checks a Perfetto ptbpf-dump --timeline file the way Perfetto reads one,
from the text `protoc --decode=perfetto.protos.Trace
tests/perfetto_trace.proto` makes of it:

  pf_check.py DECODED.txt [--same-as TIMELINE.json] [--json OUT.json]
              [--want-threads PID:TID,...]

Every sequence clears its incremental state before its events, defines
its own incremental clock (id 64, paired with CLOCK_MONOTONIC) and makes it
its packets' default; an event's time is the delta since the last on
that clock, or absolute where the packet names CLOCK_MONOTONIC; every
event's name was interned on its sequence before; every event's track was
described before it, a thread's under its process; per track the slices'
time never goes back, they nest (an end closes the innermost open slice), nothing
is left open. Prints "packets N tracks N slices N maxdepth N instants N
counters N clocks N". --json writes the events as Chrome trace events
(pid/tid from the descriptors); --same-as compares them, in order, with
those of the JSON timeline of the same snapshots (ends unnamed);
--want-threads names threads that must have a track, each under a track
of its process. Exits 1 on the first fault."""
import json
import re
import sys

TOKEN = re.compile(r'\s*(?:([A-Za-z_][A-Za-z0-9_]*)\s*(\{|:\s*("(?:[^"\\]|\\.)*"|[^\s]+))|(\}))')


def unescape(s):
    b = s[1:-1].encode("latin-1", "backslashreplace").decode("unicode_escape")
    return b.encode("latin-1").decode("utf-8", "replace")


def parse(text):
    """protoc's text format into nested dicts of lists."""
    root, stack, pos = {}, [], 0
    cur = root
    while True:
        m = TOKEN.match(text, pos)
        if not m:
            if text[pos:].strip():
                sys.exit(f"cannot parse protoc output at {pos}")
            break
        pos = m.end()
        if m.group(4):
            cur = stack.pop()
            continue
        key = m.group(1)
        if m.group(2) == "{":
            child = {}
            cur.setdefault(key, []).append(child)
            stack.append(cur)
            cur = child
        else:
            v = m.group(3)
            if v.startswith('"'):
                v = unescape(v)
            elif re.fullmatch(r"-?\d+", v):
                v = int(v)
            elif re.fullmatch(r"-?[\d.eE+-]+|inf|-inf|nan", v):
                v = float(v)
            cur.setdefault(key, []).append(v)
    if stack:
        sys.exit("unbalanced protoc output")
    return root


def one(d, key, default=None):
    v = d.get(key)
    return v[0] if v else default


def fail(msg):
    sys.exit("pf_check: " + msg)


def main():
    args = sys.argv[1:]
    path = args[0]
    opts = dict(zip(args[1::2], args[2::2]))
    packets = parse(open(path, encoding="utf-8").read()).get("packet", [])
    tracks, seqs, stacks, last_ts, inc = {}, {}, {}, {}, {}
    events = []
    slices = maxdepth = instants = counters = clocks = 0
    for i, p in enumerate(packets):
        seq = one(p, "trusted_packet_sequence_id")
        if seq is None:
            fail(f"packet {i}: no trusted_packet_sequence_id")
        flags = one(p, "sequence_flags", 0)
        cs = one(p, "clock_snapshot")
        if flags in (1, "SEQ_INCREMENTAL_STATE_CLEARED"):
            seqs[seq] = {}
            d = one(p, "trace_packet_defaults")
            if not d or one(d, "timestamp_clock_id") != 64:
                fail(f"packet {i}: sequence {seq} has not its own clock as default")
            clk = {one(c, "clock_id"): c for c in (cs or {}).get("clocks", [])}
            if 64 not in clk or one(clk[64], "is_incremental") != "true" or 3 not in clk or \
                    one(cs, "primary_trace_clock") != "BUILTIN_CLOCK_MONOTONIC":
                fail(f"packet {i}: sequence {seq} without its incremental clock next to MONOTONIC")
            # the clock's time, and where it is on CLOCK_MONOTONIC
            inc[seq] = [one(clk[64], "timestamp"), one(clk[3], "timestamp") - one(clk[64], "timestamp")]
        elif cs:
            ids = {one(c, "clock_id"): one(c, "timestamp") for c in cs.get("clocks", [])}
            if 1 not in ids or 3 not in ids or \
                    one(cs, "primary_trace_clock") != "BUILTIN_CLOCK_MONOTONIC":
                fail(f"packet {i}: clock snapshot without REALTIME and MONOTONIC")
            clocks += 1
        td = one(p, "track_descriptor")
        if td:
            uuid = one(td, "uuid")
            pid = tid = None
            name = one(td, "name", "")
            if "process" in td:
                pr = one(td, "process")
                pid = tid = one(pr, "pid")
                name = one(pr, "process_name", name)
            if "thread" in td:
                th = one(td, "thread")
                pid, tid = one(th, "pid"), one(th, "tid")
                name = one(th, "thread_name", name)
                par = tracks.get(one(td, "parent_uuid"))
                if not par or par["kind"] != "process" or par["pid"] != pid:
                    fail(f"packet {i}: thread {tid} not under its process {pid}")
            if "counter" in td:
                par = tracks.get(one(td, "parent_uuid"))
                pid = tid = par["pid"] if par else None
            kind = "thread" if "thread" in td else "process" if "process" in td \
                else "counter" if "counter" in td else "other"
            if kind == "other" and one(td, "parent_uuid") is not None:
                par = tracks.get(one(td, "parent_uuid"))
                if not par:
                    fail(f"packet {i}: track {name} under an unknown track")
                pid, tid = 0x7fffffff, int(name.split()[-1]) if name.split()[-1].isdigit() else 0
            tracks[uuid] = {"kind": kind, "pid": pid, "tid": tid, "name": name}
            events.append({"ph": "M", "kind": kind, "pid": pid, "tid": tid, "name": name})
            continue
        if seq in seqs:
            for en in one(p, "interned_data", {}).get("event_names", []):
                seqs[seq][one(en, "iid")] = one(en, "name")
        te = one(p, "track_event")
        if not te:
            continue
        if seq not in seqs:
            fail(f"packet {i}: event before its sequence {seq} was cleared")
        if flags not in (2, "SEQ_NEEDS_INCREMENTAL_STATE"):
            fail(f"packet {i}: event without SEQ_NEEDS_INCREMENTAL_STATE")
        uuid = one(te, "track_uuid")
        if uuid not in tracks:
            fail(f"packet {i}: event on track {uuid}, never described")
        tr = tracks[uuid]
        ts = one(p, "timestamp")
        if ts is None:
            fail(f"packet {i}: event without a timestamp")
        clock = one(p, "timestamp_clock_id", 64)
        if clock == 64:
            inc[seq][0] += ts
            ts = inc[seq][0] + inc[seq][1]
        elif clock != 3:
            fail(f"packet {i}: timestamp on clock {clock}")
        typ = one(te, "type")
        if typ in ("TYPE_SLICE_BEGIN", "TYPE_SLICE_END"):
            # slices in time order; instants go anywhere (Perfetto sorts)
            if ts < last_ts.get(uuid, ts):
                fail(f"packet {i}: time goes back on track {tr['name']}")
            last_ts[uuid] = ts
        name = None
        if "name_iid" in te:
            name = seqs[seq].get(one(te, "name_iid"))
            if name is None:
                fail(f"packet {i}: name iid {one(te, 'name_iid')} not interned on {seq}")
        args = {}
        for a in te.get("debug_annotations", []):
            k = one(a, "name")
            for f in ("string_value", "uint_value", "int_value", "double_value", "bool_value"):
                if f in a:
                    v = one(a, f)
                    args[k] = (v == "true") if f == "bool_value" else v
        st = stacks.setdefault(uuid, [])
        ev = {"pid": tr["pid"], "tid": tr["tid"], "ts": ts / 1000.0}
        if typ == "TYPE_SLICE_BEGIN":
            st.append(name)
            slices += 1
            maxdepth = max(maxdepth, len(st))
            ev.update(ph="B", name=name)
        elif typ == "TYPE_SLICE_END":
            if not st:
                fail(f"packet {i}: end with nothing open on {tr['name']}")
            st.pop()
            ev.update(ph="E", name="")
        elif typ == "TYPE_INSTANT":
            instants += 1
            ev.update(ph="i", name=name)
        elif typ == "TYPE_COUNTER":
            counters += 1
            ev.update(ph="C", name=tr["name"])
            args = {"bytes": one(te, "counter_value")}
        else:
            fail(f"packet {i}: event type {typ}")
        if args:
            ev["args"] = args
        events.append(ev)
    for uuid, st in stacks.items():
        if st:
            fail(f"track {tracks[uuid]['name']}: {len(st)} slices left open")
    have = {(t["pid"], t["tid"]) for t in tracks.values() if t["kind"] == "thread"}
    for want in filter(None, opts.get("--want-threads", "").split(",")):
        pid, tid = (int(x) for x in want.split(":"))
        if (pid, tid) not in have:
            fail(f"no track for thread {tid} of process {pid}")
    if "--json" in opts:
        json.dump({"traceEvents": events}, open(opts["--json"], "w"))
    if "--same-as" in opts:
        same_as([e for e in events if e["ph"] != "M"], opts["--same-as"])
    print(f"packets {len(packets)} tracks {len(tracks)} slices {slices} "
          f"maxdepth {maxdepth} instants {instants} counters {counters} clocks {clocks}")


def same_as(mine, path):
    """The JSON timeline's events, but for metadata and end names."""
    theirs = [e for e in json.load(open(path))["traceEvents"] if e["ph"] != "M"]
    if len(mine) != len(theirs):
        fail(f"{len(mine)} events here, {len(theirs)} in {path}")
    for i, (a, b) in enumerate(zip(mine, theirs)):
        b = {k: v for k, v in b.items() if k != "s"}
        if b["ph"] == "E":
            b["name"] = ""
        if b["ph"] == "C":
            a = dict(a, name=b["name"])
        if a != b:
            fail(f"event {i} differs: {a} here, {b} in {path}")


if __name__ == "__main__":
    main()
