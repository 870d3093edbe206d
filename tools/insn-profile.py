#!/usr/bin/env python3
"""Per-function instruction counts of rwx_bench's contexts.

Reads what tools/qemu/insn-profile.c wrote for a guest running rwx_bench
under -icount (make bench's profile part) and the guest's /proc/kallsyms,
and prints, per shape, the instructions per operation (init, WR chain and
destroy of one context) each function took, for rdma_rwx, ib_core and
the floor side by side.  A region is what rwx_bench_region() encodes:
engine | list-length index << 2 | offset != 0 << 5 | READ << 6 | sig << 7.

usage: insn-profile.py PROFILE KALLSYMS --ops N [--shapes 1,16] [--min 0.5]
                      [--dir WRITE|READ] [--offset 0|512] [--blocks FUNCTION]
                      [--inlined MODULE.ko]
With --blocks, the function's translation blocks instead (offset from
the function's start, instructions per operation), to read beside
objdump -d of its module.  With --inlined, the instructions of the
module's functions by the source function they were compiled from
(objdump -dl --inlines: an inline helper's instructions under its own
name), the rdma_rwx column only.
"""
import re
import subprocess
import argparse
import bisect
import collections
import sys

ENGINES = ("rdma_rwx", "ib_core", "floor")
ENTRIES = (1, 2, 4, 16, 64, 256)


def load_symbols(path):
    """Sorted (address, name) of the guest's code symbols."""
    syms = []
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) < 3 or parts[1] not in "tTwW":
                continue
            addr = int(parts[0], 16)
            if addr:
                syms.append((addr, parts[2]))
    syms.sort()
    return syms


def load_profile(path, syms):
    """{region: {function: instructions}}, {region: windows},
    {region: {(function, offset): instructions}}."""
    addrs = [a for a, _ in syms]
    per_region = collections.defaultdict(collections.Counter)
    per_block = collections.defaultdict(collections.Counter)
    execs_of = collections.defaultdict(collections.Counter)
    windows = {}
    with open(path) as f:
        for line in f:
            parts = line.split()
            if parts[0] == "windows":
                windows[int(parts[1])] = int(parts[2])
                continue
            region, vaddr, insns = int(parts[0]), int(parts[1], 16), int(parts[2])
            execs = int(parts[3])
            i = bisect.bisect_right(addrs, vaddr) - 1
            fn = syms[i][1] if i >= 0 else "?"
            per_region[region][fn] += insns
            key = (fn, vaddr - syms[i][0] if i >= 0 else vaddr)
            per_block[region][key] += insns
            execs_of[region][key] += execs
    return per_region, windows, per_block, execs_of


def load_inlines(module):
    """{function: [(offset, source function)]} of MODULE.ko's code."""
    out = subprocess.run(["objdump", "-dl", "--inlines", "--no-show-raw-insn", module],
                         capture_output=True, text=True, check=True).stdout
    funcs, fn, base, src = {}, None, 0, "?"
    for line in out.splitlines():
        m = re.match(r"^([0-9a-f]+) <(.+)>:$", line)
        if m:
            base, fn, src = int(m.group(1), 16), m.group(2), m.group(2)
            funcs[fn] = []
            continue
        m = re.match(r"^(\S+)\(\):$", line)
        if m:
            src = m.group(1)
            continue
        m = re.match(r"^\s+([0-9a-f]+):\s+(.*)$", line)
        if m and fn:
            # The stack frame's own: saves, restores, the frame's size and
            # the stack protector's canary, under a name of their own.
            frame = re.match(r"(push|pop)\s|(sub|add)\s+\$0x[0-9a-f]+,%rsp$|"
                             r"mov\s+%rsp,%rbp$|leave|.*%gs:0x28", m.group(2))
            funcs[fn].append((int(m.group(1), 16) - base,
                              "(stack frame)" if frame else src))
    return funcs


def by_source(blocks, execs, funcs):
    """Instructions by (function, source function) from the blocks'."""
    out = collections.Counter()
    for (fn, off), insns in blocks.items():
        code = funcs.get(fn)
        n_exec = execs[(fn, off)]
        if not code or not n_exec:
            continue
        offs = [o for o, _ in code]
        if off not in offs:
            continue
        i = offs.index(off)
        for _, src in code[i:i + round(insns / n_exec)]:
            out[(fn, src)] += n_exec
    return out


def region(engine, index, offset, read, sig):
    return engine | index << 2 | offset << 5 | read << 6 | sig << 7


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("profile")
    ap.add_argument("kallsyms")
    ap.add_argument("--ops", type=int, required=True,
                    help="operations per round (rwx_bench's fixed_ops)")
    ap.add_argument("--shapes", default="1,16,256",
                    help="list lengths to print (default 1,16,256)")
    ap.add_argument("--min", type=float, default=0.5,
                    help="leave out functions under this many instructions per op")
    ap.add_argument("--dir", choices=("WRITE", "READ"),
                    help="only this direction (default both)")
    ap.add_argument("--offset", type=int, choices=(0, 512),
                    help="only this offset (default both)")
    ap.add_argument("--inlined", metavar="MODULE.ko",
                    help="the module's functions by source function")
    ap.add_argument("--blocks", metavar="FUNCTION",
                    help="per translation block of FUNCTION instead")
    args = ap.parse_args()

    syms = load_symbols(args.kallsyms)
    per_region, windows, per_block, execs_of = load_profile(args.profile, syms)
    funcs = load_inlines(args.inlined) if args.inlined else None
    shapes = [int(x) for x in args.shapes.split(",")]
    printed = 0
    reads = (0, 1) if not args.dir else ((1,) if args.dir == "READ" else (0,))
    offsets = (0, 1) if args.offset is None else ((1,) if args.offset else (0,))
    for sig in (0, 1):
        for read in reads:
            for offset in offsets:
                for entries in shapes:
                    idx = ENTRIES.index(entries)
                    ids = [region(e, idx, offset, read, sig) for e in range(3)]
                    if not all(windows.get(r) for r in ids):
                        continue
                    source = per_region
                    if funcs is not None:
                        source = {r: {"%s: %s" % key: n for key, n in
                                      by_source(per_block[r], execs_of[r], funcs).items()}
                                  for r in ids}
                    elif args.blocks:
                        source = {r: {"%s+0x%x" % key: n
                                      for key, n in per_block[r].items()
                                      if key[0] == args.blocks} for r in ids}
                    per_op = [{fn: n / (windows[r] * args.ops)
                               for fn, n in source[r].items()} for r in ids]
                    fns = set().union(*per_op)
                    if args.blocks:
                        rows = sorted(fns, key=lambda fn: int(fn.split("+")[1], 16))
                    else:
                        rows = sorted(fns, key=lambda fn: -max(p.get(fn, 0) for p in per_op))
                    title = "%s %s %d x 4 KiB +%d" % (
                        "sig" if sig else "plain", "READ" if read else "WRITE",
                        entries, 512 if offset else 0)
                    print("## %s (instructions per operation)" % title)
                    print("%-44s %10s %10s %10s" % ("function", *ENGINES))
                    for fn in rows:
                        vals = [p.get(fn, 0) for p in per_op]
                        if max(vals) < args.min:
                            continue
                        print("%-44s %10.1f %10.1f %10.1f" % (fn[:44], *vals))
                    print("%-44s %10.1f %10.1f %10.1f" % (
                        "total", *[sum(p.values()) for p in per_op]))
                    print()
                    printed += 1
    if not printed:
        print("insn-profile: no complete shape in %s" % args.profile, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
