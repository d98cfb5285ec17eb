#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Checks a ptbpf-dump --timeline file the way Perfetto reads one.

On every track (pid, tid): B/E slices nest (each E closes the innermost
open B of the same name), time never goes back, nothing is left open, and
complete ("X") slices do not overlap unless one holds the other. Prints
"tracks N slices N maxdepth N" and, with --chain A,B,C, how many times a
slice named C was open inside B inside A. Exits 1 on the first fault."""
import json
import sys


def main():
    path = sys.argv[1]
    chain = sys.argv[3].split(",") if len(sys.argv) > 3 else []
    evs = json.load(open(path))["traceEvents"]
    stacks, last_ts, xs = {}, {}, {}
    slices = maxdepth = chained = 0
    for i, e in enumerate(evs):
        ph, key = e.get("ph"), (e.get("pid"), e.get("tid"))
        if ph not in ("B", "E", "X"):
            continue
        ts = e["ts"]
        if ph == "X":
            xs.setdefault(key, []).append((ts, ts + e.get("dur", 0)))
            continue
        if ts < last_ts.get(key, ts):
            sys.exit(f"event {i}: time goes back on track {key}")
        last_ts[key] = ts
        st = stacks.setdefault(key, [])
        if ph == "B":
            st.append(e["name"])
            slices += 1
            maxdepth = max(maxdepth, len(st))
            if chain and st[-len(chain):] == chain:
                chained += 1
        else:
            if not st:
                sys.exit(f"event {i}: E with nothing open on {key}")
            top = st.pop()
            if e.get("name") and e["name"] != top:
                sys.exit(f"event {i}: E {e['name']} closes {top} on {key}")
    for key, st in stacks.items():
        if st:
            sys.exit(f"track {key}: {len(st)} slices left open")
    for key, v in xs.items():
        v.sort(key=lambda r: (r[0], -r[1]))
        open_ends = []
        for a, b in v:
            while open_ends and open_ends[-1] <= a:
                open_ends.pop()
            if open_ends and b > open_ends[-1]:
                sys.exit(f"track {key}: X slices overlap at {a}")
            open_ends.append(b)
            slices += 1
    print(f"tracks {len(set(stacks) | set(xs))} slices {slices} "
          f"maxdepth {maxdepth} chained {chained}")


if __name__ == "__main__":
    main()
