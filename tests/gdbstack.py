# SPDX-License-Identifier: GPL-2.0
#
# gdb -batch -x tests/gdbstack.py --args PROG ARGS: runs PROG under gdb and,
# at each stop GDBSTACK_STOPS asks for, writes what a stack walker needs
# and what gdb unwound there, one file a stop (GDBSTACK_OUT/stop-NNN.txt),
# for tests/integration/test_uwalk.c:
#
#   regs RIP RSP RBP        the stopped thread's registers (hex)
#   map LINE                each line of /proc/PID/maps (what `info proc
#                           mappings` shows), the mapped files by path
#   stack ADDR HEX          the live stack: from the red zone below rsp
#                           (128 bytes) to the end of its mapping (at most
#                           512 KiB above rsp)
#   frame PC KIND NAME      gdb's frames from the innermost: pc (a return
#                           address past the first), "sigtramp" for a
#                           signal trampoline's frame else "normal", name
#   last REASON             why gdb's unwinding stopped after the last frame
#
# gdb's inline and tail-call frames share a physical frame or have none:
# left out. GDBSTACK_STOPS, space-separated:
#   b:LOC       a temporary breakpoint at LOC (`*fn`: its first
#               instruction), set once LOC's library is loaded
#   s:LOC:N     the same, then up to N `stepi`s from it, each a stop,
#               until the function returns to its caller
#   plt:SYM     stops inside SYM's PLT stub: its first instruction, the
#               push, the jump to the PLT's header after the push, and
#               the header's two (binutils' lazy .plt)
import os

import gdb

OUT = os.environ["GDBSTACK_OUT"]
STOPS = os.environ.get("GDBSTACK_STOPS", "").split()
MAX_STACK = 512 * 1024
# below rsp, what a function may still use (the x86-64 ABI's red zone),
# and where an epilogue's CFI may still say a popped register is saved
RED_ZONE = 128

nstop = 0
hits = []


def on_stop(ev):
    if isinstance(ev, gdb.BreakpointEvent):
        # by number: a temporary breakpoint is gone once the stop is over
        hits.extend(b.number for b in ev.breakpoints)


def alive():
    inf = gdb.selected_inferior()
    return inf.pid != 0 and len(inf.threads()) > 0


def reg(name):
    return int(gdb.parse_and_eval("(unsigned long)$" + name))


def maps():
    with open("/proc/%d/maps" % gdb.selected_inferior().pid) as f:
        return f.read().splitlines()


def dump():
    global nstop
    rip, rsp, rbp = reg("rip"), reg("rsp"), reg("rbp")
    lines = maps()
    start = end = rsp
    for line in lines:
        lo, hi = (int(x, 16) for x in line.split()[0].split("-"))
        if lo <= rsp < hi:
            start = max(lo, rsp - RED_ZONE)
            end = min(hi, rsp + MAX_STACK)
    mem = gdb.selected_inferior().read_memory(start, end - start) if end > start else b""
    with open(os.path.join(OUT, "stop-%03d.txt" % nstop), "w") as out:
        out.write("regs %x %x %x\n" % (rip, rsp, rbp))
        for line in lines:
            out.write("map %s\n" % line)
        out.write("stack %x %s\n" % (start, bytes(mem).hex()))
        f = gdb.newest_frame()
        last = None
        while f is not None:
            if f.type() not in (gdb.INLINE_FRAME, gdb.TAILCALL_FRAME):
                kind = "sigtramp" if f.type() == gdb.SIGTRAMP_FRAME else "normal"
                out.write("frame %x %s %s\n" % (f.pc(), kind, f.name() or "??"))
            last = f
            try:
                f = f.older()
            except gdb.error:
                break
        if last is not None:
            out.write("last %s\n" % gdb.frame_stop_reason_string(last.unwind_stop_reason()))
    nstop += 1


def depth():
    n, f = 0, gdb.newest_frame()
    while f is not None:
        n += 1
        try:
            f = f.older()
        except gdb.error:
            break
    return n


def place(loc):
    """A temporary breakpoint at LOC, or None while LOC is not loaded yet.

    gdb keeps a linespec pending by itself, but not `*fn`: that is an
    address, resolved here once fn's library is mapped.
    """
    if not loc.startswith("*"):
        return gdb.Breakpoint(loc, temporary=True)
    try:
        addr = int(gdb.parse_and_eval("(unsigned long)&%s" % loc[1:]))
    except gdb.error:
        return None
    return gdb.Breakpoint("*0x%x" % addr, temporary=True)


def plt_stops(sym):
    """Breakpoints inside SYM's lazy PLT entry and the PLT's header."""
    stub = int(gdb.parse_and_eval("(unsigned long)&'%s@plt'" % sym))
    # the entry: jmp *GOT(%rip) (6 bytes), push $n (5), jmp .plt (5)
    code = bytes(gdb.selected_inferior().read_memory(stub, 16))
    if code[0:2] != b"\xff\x25" or code[6] != 0x68 or code[11] != 0xE9:
        raise gdb.GdbError("%s@plt is not binutils' lazy entry: %s" % (sym, code.hex()))
    header = stub + 16 + int.from_bytes(code[12:16], "little", signed=True)
    # the header: push GOT+8(%rip) (6 bytes), jmp *GOT+16(%rip)
    for addr in (stub, stub + 6, stub + 11, header, header + 6):
        gdb.Breakpoint("*0x%x" % addr, temporary=True)


def main():
    gdb.execute("set pagination off")
    gdb.execute("set confirm off")
    gdb.execute("set breakpoint pending on")
    gdb.execute("set backtrace past-main on")
    gdb.execute("set backtrace limit unlimited")
    gdb.execute("handle SIGUSR1 nostop noprint pass")
    # a library's load stops too: what it holds can have its breakpoints
    gdb.execute("set stop-on-solib-events 1")
    gdb.events.stop.connect(on_stop)
    # at the first instruction: the program's own PLT is mapped where it runs
    gdb.execute("starti", to_string=True)
    steps, pending = {}, []
    for spec in STOPS:
        kind, _, rest = spec.partition(":")
        if kind == "b":
            pending.append((rest, 0))
        elif kind == "s":
            loc, _, n = rest.rpartition(":")
            pending.append((loc, int(n)))
        elif kind == "plt":
            plt_stops(rest)
        else:
            raise gdb.GdbError("gdbstack: unknown stop %s" % spec)
    while alive():
        for loc, n in pending[:]:
            bp = place(loc)
            if bp is not None:
                steps[bp.number] = n
                pending.remove((loc, n))
        del hits[:]
        gdb.execute("continue", to_string=True)
        if not alive() or not hits:
            continue
        dump()
        n = max((steps.get(b, 0) for b in hits), default=0)
        if n:
            start = depth()
            for _ in range(n):
                gdb.execute("stepi", to_string=True)
                if not alive() or depth() < start:
                    break
                dump()
    if pending:
        raise gdb.GdbError("gdbstack: never loaded: %s" % " ".join(p[0] for p in pending))


try:
    main()
except Exception as e:  # the test sees no stops, and this line
    print("gdbstack: %s" % e)
    raise
finally:
    with open(os.path.join(OUT, "stops"), "w") as f:
        f.write("%d\n" % nstop)
    if alive():
        gdb.execute("kill")
