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
With --blocks, the function's translation blocks instead (offset from
the function's start, instructions per operation), to read beside
objdump -d of its module.
"""
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
    windows = {}
    with open(path) as f:
        for line in f:
            parts = line.split()
            if parts[0] == "windows":
                windows[int(parts[1])] = int(parts[2])
                continue
            region, vaddr, insns = int(parts[0]), int(parts[1], 16), int(parts[2])
            i = bisect.bisect_right(addrs, vaddr) - 1
            fn = syms[i][1] if i >= 0 else "?"
            per_region[region][fn] += insns
            per_block[region][(fn, vaddr - syms[i][0] if i >= 0 else vaddr)] += insns
    return per_region, windows, per_block


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
    ap.add_argument("--blocks", metavar="FUNCTION",
                    help="per translation block of FUNCTION instead")
    args = ap.parse_args()

    syms = load_symbols(args.kallsyms)
    per_region, windows, per_block = load_profile(args.profile, syms)
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
                    if args.blocks:
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
