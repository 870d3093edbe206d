#!/usr/bin/env python3
"""bench-summary.py [--cost PATH ICOUNT1 [ICOUNT2 [CLOCK]]]... [--data LOG]...

The tables of make bench, from the guests' console logs.

--cost: rwx_bench's "rwx_bench: cost DIR N x 1 page +OFF rdma_rwx X ns W WRs
ib_core Y ns W WRs ... floor Z ns" lines of a run under -icount, optionally a second
one and one under the normal clock, for one path (sge or mr).  Prints per shape both engines'
cost and the ratio rdma_rwx/ib_core under each clock (below 1: the engine
is cheaper), the floor (the DMA mapping, pool MRs and ib_map_mr_sg() calls
both engines make) and each engine's own cost above it, whether the two icount runs agree, and the median and worst
icount ratio.

--data: the "bench: data PATH WORKLOAD SIDE ROUND IOPS MIB/S" lines of
the NVMe-oF data path; prints per path and workload the median IOPS and
MiB/s of the engine-built target and of the distro's, and their ratio
(above 1: the engine moved more).

Exits 1 when a log lacks a shape, a workload or a side: a run that did
not produce its figures is a failed run."""
import argparse
import collections
import re
import statistics
import sys

COST = re.compile(r'rwx_bench: cost (WRITE|READ)\s+(\d+) x 1 page \+(\d+)\s+'
                  r'rdma_rwx\s+(\d+) ns\s+(\d+) WRs ib_core\s+(\d+) ns\s+(\d+) WRs'
                  r'.* floor\s+(\d+) ns')
DATA = re.compile(r'bench: data (\w+) (\S+) (engine|ib_core) (\d+) ([\d.]+) ([\d.]+)$')
ENTRIES = (1, 2, 4, 16, 64, 256)
OFFSETS = (0, 512)


def read_cost(log):
    """{(dir, entries, offset): (rwx_ns, rwx_wrs, core_ns, core_wrs, floor_ns)}"""
    out = {}
    with open(log, errors='replace') as f:
        for line in f:
            m = COST.search(line)
            if m:
                d, n, off, *figures = m.groups()
                out[d, int(n), int(off)] = tuple(int(x) for x in figures)
    return out


def cost_table(path, icount1, icount2=None, clock=None):
    runs = {}
    for name, log in (('icount1', icount1), ('icount2', icount2), ('clock', clock)):
        if log:
            runs[name] = read_cost(log)
    shapes = [(d, n, off) for d in ('WRITE', 'READ') for n in ENTRIES for off in OFFSETS]
    missing = [s for s in shapes if any(s not in r for r in runs.values())]
    if missing:
        print('bench: cost %s: no figures for %s' % (path, ', '.join(
            '%s %d +%d' % s for s in missing)))
        return 1
    print('bench: cost of one RW context (init, WR chain, destroy), %s path' % path)
    clock_head = (' | %9s %9s %6s' % ('rdma_rwx', 'ib_core', 'ratio'),
                  ' | %9s %9s %6s' % ('ns', 'ns', 'clock')) if clock else ('', '')
    print('bench: %-5s %7s %6s %5s | %10s %10s %6s | %8s %8s %8s%s' %
          ('dir', 'entries', 'offset', 'WRs', 'rdma_rwx', 'ib_core', 'ratio',
           'floor', 'rwx own', 'ib own', clock_head[0]))
    print('bench: %-5s %7s %6s %5s | %10s %10s %6s | %8s %8s %8s%s' %
          ('', '', '', '', 'insns', 'insns', 'icount', 'insns', 'insns',
           'insns', clock_head[1]))
    ratios = []
    for s in shapes:
        rn, rw, cn, cw, fl = runs['icount1'][s]
        ratios.append(rn / cn)
        wrs = '%d' % rw if rw == cw else '%d/%d' % (rw, cw)
        line = 'bench: %-5s %7d %6d %5s | %10d %10d %6.2f | %8d %8d %8d' % (
            s + (wrs, rn, cn, rn / cn, fl, rn - fl, cn - fl))
        if clock:
            crn, _, ccn, _, _ = runs['clock'][s]
            line += ' | %9d %9d %6.2f' % (crn, ccn, crn / ccn)
        print(line)
    if icount2:
        # Figures of the same build under -icount repeat to within a few
        # instructions; the shapes that allocate still move by about one
        # instruction per operation (cause not yet pinned down).
        same = sum(runs['icount1'][s] == runs['icount2'][s] for s in shapes)
        worst = max(abs(a - b) / b for s in shapes
                    for a, b in ((runs['icount1'][s][0], runs['icount2'][s][0]),
                                 (runs['icount1'][s][2], runs['icount2'][s][2])))
        print('bench: cost %s: the two icount runs: %d of %d shapes identical, '
              'largest difference %.3f%%' % (path, same, len(shapes), 100 * worst))
    print('bench: cost %s: icount ratio rdma_rwx/ib_core median %.2f, worst %.2f' %
          (path, statistics.median(ratios), max(ratios)))
    return 0


def data_table(logs):
    runs = collections.defaultdict(list)
    order = []
    for log in logs:
        with open(log, errors='replace') as f:
            for line in f:
                m = DATA.search(line.rstrip())
                if not m:
                    continue
                path, work, side, _, iops, mibs = m.groups()
                if (path, work) not in order:
                    order.append((path, work))
                runs[path, work, side].append((float(iops), float(mibs)))
    if not order:
        print('bench: no data-path results')
        return 1
    print('bench: NVMe-oF data path, fio queue depth 32, medians of %d rounds'
          % min(len(v) for v in runs.values()))
    print('bench: %-4s %-14s %10s %10s %7s   %9s %9s %7s' %
          ('path', 'workload', 'engine', 'ib_core', 'ratio',
           'engine', 'ib_core', 'ratio'))
    print('bench: %-4s %-14s %10s %10s %7s   %9s %9s %7s' %
          ('', '', 'IOPS', 'IOPS', '', 'MiB/s', 'MiB/s', ''))
    status = 0
    for path, work in order:
        eng = runs[path, work, 'engine']
        ref = runs[path, work, 'ib_core']
        if not eng or not ref:
            print('bench: %-4s %-14s incomplete' % (path, work))
            status = 1
            continue
        ei = statistics.median(r[0] for r in eng)
        ri = statistics.median(r[0] for r in ref)
        eb = statistics.median(r[1] for r in eng)
        rb = statistics.median(r[1] for r in ref)
        print('bench: %-4s %-14s %10.0f %10.0f %7.2f   %9.2f %9.2f %7.2f' %
              (path, work, ei, ri, ei / ri if ri else 0, eb, rb,
               eb / rb if rb else 0))
    return status


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--cost', nargs='+', action='append', default=[],
                    metavar='PATH ICOUNT1 [ICOUNT2 [CLOCK]]')
    ap.add_argument('--data', action='append', default=[], metavar='LOG')
    args = ap.parse_args()
    status = 0
    for cost in args.cost:
        if not 2 <= len(cost) <= 4:
            ap.error('--cost PATH ICOUNT1 [ICOUNT2 [CLOCK]]')
        status |= cost_table(*cost)
        print()
    if args.data:
        status |= data_table(args.data)
    return status


if __name__ == '__main__':
    sys.exit(main())
