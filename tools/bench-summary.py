#!/usr/bin/env python3
"""bench-summary.py [--cost PATH ICOUNT1 [ICOUNT2 [CLOCK]]]... [--trace PATH LOG]...
                 [--data LOG]... [--userspace LOG]

The tables of make bench, from the guests' console logs.

--cost: rwx_bench's "rwx_bench: cost DIR N x 1 page +OFF rdma_rwx X ns W WRs
ib_core Y ns W WRs ... floor Z ns" lines of a run under -icount, optionally a second
one and one under the normal clock, for one path (sge, mr or sig: signature
contexts, offset 0 only).  Prints per shape both engines'
cost and the ratio rdma_rwx/ib_core under each clock (below 1: the engine
is cheaper), the floor (the DMA mapping, pool MRs and ib_map_mr_sg() calls
both engines make) and each engine's own cost above it, whether the two icount runs agree, and the median and worst
icount ratio.

--trace: the cost of the engine's trace events, from a guest under -icount
that ran rwx_bench once a round with each variant of the engine (its
"bench: trace VARIANT ROUND rwx_bench: cost ..." lines): out (the events
compiled out, RWX_NOTRACE=1), off (compiled in, off: the normal module)
and on (every rwx:* event on, into the trace ring buffer).  Prints one
table for every --trace given: per path and list (WRITE, offset 0) the
engine's instructions per context with each variant (the cheapest round),
off - out and off/out (what the events cost while off), on - off; then per
path the range of off - out and off/out over every shape (READ and offset
512 too), whether ib_core's figures (the control: nothing of it changes)
and the rounds agree, and how many events the ring buffer took.

--data: the "bench: data PATH WORKLOAD SIDE ROUND IOPS MIB/S" lines of
the NVMe-oF data path; prints per path and workload the median IOPS and
MiB/s of the engine-built target and of the distro's, and their ratio
(above 1: the engine moved more).

--userspace: the guest log of the userspace part.  "bench: userspace perf
API OP SIZE TOOL ROUND ITERS LOOP_US CLIENT_US" lines: per posting API
(post: ibv_post_send; wr: ibv_wr_*), operation and size, each round's cost
of ITERS iterations is LOOP_US at 2 x ITERS less LOOP_US at ITERS; prints
the median messages/s and MiB/s of rwx_perf and perftest and their ratio
(above 1: rwx_perf moved more).  "bench: userspace post insns API OP SIDE
INSNS CALLS" and "... post time API OP ROUND LIB_NS INLINE_NS": per API and
operation one library call's user-space instructions (callgrind) and time
(median of the rounds) beside the inline helper's (always through
ibv_post_send, on the same QP), ratio library/inline (the targets: at most
1.05 through ibv_post_send, at most 0.9 through ibv_wr_*).

Exits 1 when a log lacks a shape, a workload, a side, a round or a call:
a run that did not produce its figures is a failed run."""
import argparse
import collections
import re
import statistics
import sys

COST = re.compile(r'rwx_bench: cost (WRITE|READ)\s+(\d+) x 1 page \+(\d+)\s+'
                  r'rdma_rwx\s+(\d+) ns\s+(\d+) WRs ib_core\s+(\d+) ns\s+(\d+) WRs'
                  r'.* floor\s+(\d+) ns')
DATA = re.compile(r'bench: data (\w+) (\S+) (engine|ib_core) (\d+) ([\d.]+) ([\d.]+)$')
PERF = re.compile(r'bench: userspace perf (post|wr) (\w+) (\d+) (rwx_perf|perftest) (\d+) (\d+) '
                  r'(\d+|FAILED) (\d+|FAILED)$')
POST_INSNS = re.compile(r'bench: userspace post insns (post|wr) (\w+) (lib|inline) (\d+|none) '
                        r'(\d+|none)$')
POST_TIME = re.compile(r'bench: userspace post time (post|wr) (\w+) (\d+) ([\d.]+) ([\d.]+)$')
TRACE = re.compile(r'bench: trace (out|off|on) (\d+) (rwx_bench: cost .*)')
TRACE_EVENTS = re.compile(r'bench: trace on (\d+) events (\d+) ')
TRACE_VARIANTS = ('out', 'off', 'on')
PERF_TOOLS = ('rwx_perf', 'perftest')
POST_OPS = ('write', 'send')
POST_APIS = ('post', 'wr')
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
    # The signature API takes no offset: its shapes all start at 0.
    offsets = (0,) if path == 'sig' else OFFSETS
    shapes = [(d, n, off) for d in ('WRITE', 'READ') for n in ENTRIES for off in offsets]
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


def read_trace(log):
    """({(variant, round): {shape: figures as read_cost()}}, {round: events})"""
    runs, events = collections.defaultdict(dict), {}
    with open(log, errors='replace') as f:
        for line in f:
            m = TRACE.search(line)
            if m:
                c = COST.search(m.group(3))
                if c:
                    d, n, off, *figures = c.groups()
                    runs[m.group(1), int(m.group(2))][d, int(n), int(off)] = \
                        tuple(int(x) for x in figures)
            m = TRACE_EVENTS.search(line)
            if m:
                events[int(m.group(1))] = int(m.group(2))
    return runs, events


def trace_table(traces):
    """traces: [(path, log)]: the cost of the trace events, one table."""
    status, rows, notes = 0, [], []
    for path, log in traces:
        runs, events = read_trace(log)
        offsets = (0,) if path == 'sig' else OFFSETS
        shapes = [(d, n, off) for d in ('WRITE', 'READ') for n in ENTRIES
                  for off in offsets]
        rounds = sorted({r for _, r in runs})
        missing = ['%s round %d' % (v, r) for r in rounds or [1]
                   for v in TRACE_VARIANTS
                   if any(s not in runs.get((v, r), {}) for s in shapes)]
        missing += ['events of on round %d' % r for r in rounds or [1]
                    if not events.get(r)]
        if missing:
            print('bench: trace %s: no figures for %s (see %s)' %
                  (path, ', '.join(missing), log))
            status = 1
            continue
        # The cheapest round of each variant, engine and ib_core.
        best = {v: {s: min(runs[v, r][s][0] for r in rounds) for s in shapes}
                for v in TRACE_VARIANTS}
        core = {v: {s: min(runs[v, r][s][2] for r in rounds) for s in shapes}
                for v in TRACE_VARIANTS}
        for n in ENTRIES:
            s = ('WRITE', n, 0)
            out, off, on = (best[v][s] for v in TRACE_VARIANTS)
            rows.append('bench: %-4s %7d | %8d %8d %8d | %7d %7.3f | %7d' % (
                path, n, out, off, on, off - out, off / out, on - off))
        delta = [best['off'][s] - best['out'][s] for s in shapes]
        ratio = [best['off'][s] / best['out'][s] for s in shapes]
        on = [best['on'][s] - best['off'][s] for s in shapes]
        core_same = sum(len({core[v][s] for v in TRACE_VARIANTS}) == 1
                        for s in shapes)
        core_diff = max(max(core[v][s] for v in TRACE_VARIANTS) -
                        min(core[v][s] for v in TRACE_VARIANTS) for s in shapes)
        notes.append('bench: trace %s: off - out %d to %d insns (off/out %.3f to '
                     '%.3f), on - off %d to %d, over all %d shapes' %
                     (path, min(delta), max(delta), min(ratio), max(ratio),
                      min(on), max(on), len(shapes)))
        line = ('bench: trace %s: ib_core (the control) alike across the variants '
                'in %d of %d shapes (largest difference %d insns); %d round%s'
                % (path, core_same, len(shapes), core_diff, len(rounds),
                   's' if len(rounds) > 1 else ''))
        if len(rounds) > 1:
            agree = sum(len({runs[v, r][s][0] for r in rounds}) == 1
                        for v in TRACE_VARIANTS for s in shapes)
            line += ', alike in %d of %d figures' % (agree, 3 * len(shapes))
        notes.append(line + '; the ring buffer took %s events a round' %
                     '/'.join(str(events[r]) for r in rounds))
    if not rows:
        return status or 1
    print('bench: cost of the trace events: rdma_rwx instructions per context '
          '(init, WR chain, destroy; -icount, cheapest round), WRITE, offset 0;')
    print('bench: out: compiled out (NOTRACE), off: compiled in and off (the '
          'module as shipped), on: rwx:* on, into the ring buffer')
    print('bench: %-4s %7s | %8s %8s %8s | %7s %7s | %7s' %
          ('path', 'entries', 'out', 'off', 'on', 'off-out', 'off/out', 'on-off'))
    for row in rows:
        print(row)
    for note in notes:
        print(note)
    return status


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


def perf_table(lines):
    """rwx_perf against perftest; returns (status, {api: [ratios]})."""
    loops = collections.defaultdict(dict)   # (api, op, size, tool, round) -> {iters: us}
    order = []
    for line in lines:
        m = PERF.search(line)
        if not m:
            continue
        api, op, size, tool, rnd, iters, loop_us, _ = m.groups()
        if (api, op, int(size)) not in order:
            order.append((api, op, int(size)))
        loops[api, op, int(size), tool, int(rnd)][int(iters)] = loop_us
    if not order:
        print('bench: no rwx_perf/perftest results')
        return 1, {}
    rounds = max(k[4] for k in loops)
    status, ratios, rows = 0, collections.defaultdict(list), []
    for api, op, size in order:
        rate = {}
        for tool in PERF_TOOLS:
            rate[tool] = []
            for rnd in range(1, rounds + 1):
                runs = loops.get((api, op, size, tool, rnd), {})
                iters = sorted(runs)
                if (len(iters) != 2 or iters[1] != 2 * iters[0] or
                        'FAILED' in runs.values()):
                    print('bench: userspace %s %s %d B %s round %d: no figures' %
                          (api, op, size, tool, rnd))
                    status = 1
                    continue
                cost_us = int(runs[iters[1]]) - int(runs[iters[0]])
                if cost_us <= 0:
                    print('bench: userspace %s %s %d B %s round %d: %d iterations '
                          'took no longer than %d' % (api, op, size, tool, rnd,
                                                      iters[1], iters[0]))
                    status = 1
                    continue
                rate[tool].append(iters[0] / (cost_us / 1e6))
        if not rate['rwx_perf'] or not rate['perftest']:
            continue
        r = statistics.median(rate['rwx_perf'])
        p = statistics.median(rate['perftest'])
        ratios[api].append(r / p)
        rows.append('bench: %-5s %-4s %8d %10.0f %10.0f %6.2f %10.2f %10.2f' %
                    (op, api, size, r, p, r / p, r * size / 2**20, p * size / 2**20))
    print('bench: rwx_perf against perftest, same settings, both through rdma_cm, '
          'posting through ibv_post_send (post) or ibv_wr_* (wr); '
          'the cost of N iterations = loop time at 2N - at N; medians of %d rounds'
          % rounds)
    print('bench: %-5s %-4s %8s %10s %10s %6s %10s %10s' %
          ('op', 'api', 'size', 'rwx_perf', 'perftest', 'ratio', 'rwx_perf', 'perftest'))
    print('bench: %-5s %-4s %8s %10s %10s %6s %10s %10s' %
          ('', '', 'bytes', 'msg/s', 'msg/s', '', 'MiB/s', 'MiB/s'))
    for row in rows:
        print(row)
    return status, ratios


def post_table(lines):
    """One post call, library against the inline helper; returns
    (status, {(api, op): instruction ratio})."""
    insns, times = {}, collections.defaultdict(list)
    for line in lines:
        m = POST_INSNS.search(line)
        if m:
            api, op, side, total, calls = m.groups()
            if total != 'none' and calls not in ('none', '0'):
                insns[api, op, side] = int(total) / int(calls)
        m = POST_TIME.search(line)
        if m:
            api, op, _, lib, inline = m.groups()
            times[api, op].append((float(lib), float(inline)))
    status, ratios = 0, {}
    print('bench: one rdma_post_* call on one QP: librdmarwx (through ibv_post_send: '
          'post, or the QP\'s ibv_wr_* builders: wr) against librdmacm\'s inline '
          'helper (ibv_post_send); user-space instructions (callgrind) and time per '
          'call (median of %d rounds)' % min([len(v) for v in times.values()] or [0]))
    print('bench: %-5s %-4s %9s %9s %6s | %9s %9s %6s' %
          ('op', 'api', 'library', 'inline', 'ratio', 'library', 'inline', 'ratio'))
    print('bench: %-5s %-4s %9s %9s %6s | %9s %9s %6s' %
          ('', '', 'insns', 'insns', '', 'ns', 'ns', ''))
    for api in POST_APIS:
        for op in POST_OPS:
            if ((api, op, 'lib') not in insns or (api, op, 'inline') not in insns or
                    not times[api, op]):
                print('bench: %-5s %-4s incomplete' % (op, api))
                status = 1
                continue
            lib, inl = insns[api, op, 'lib'], insns[api, op, 'inline']
            tl = statistics.median(t[0] for t in times[api, op])
            ti = statistics.median(t[1] for t in times[api, op])
            ratios[api, op] = lib / inl
            print('bench: %-5s %-4s %9.1f %9.1f %6.2f | %9.0f %9.0f %6.2f' %
                  (op, api, lib, inl, lib / inl, tl, ti, tl / ti if ti else 0))
    return status, ratios


def userspace_tables(log):
    with open(log, errors='replace') as f:
        lines = [line.rstrip() for line in f]
    status = 0
    if any('bench: userspace failed' in line for line in lines):
        print('bench: the userspace guest failed (see %s)' % log)
        status = 1
    perf_status, perf_ratios = perf_table(lines)
    print()
    post_status, post_ratios = post_table(lines)
    status |= perf_status | post_status
    if (all(perf_ratios.get(api) for api in POST_APIS) and
            len(post_ratios) == len(POST_OPS) * len(POST_APIS)):
        print('bench: userspace: rwx_perf/perftest ratio %s; library/inline '
              'instructions %s' %
              (', '.join('%s lowest %.2f, highest %.2f' %
                         (api, min(perf_ratios[api]), max(perf_ratios[api]))
                         for api in POST_APIS),
               ', '.join('%s %s %.2f' % (api, op, post_ratios[api, op])
                         for api in POST_APIS for op in POST_OPS)))
    return status


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--cost', nargs='+', action='append', default=[],
                    metavar='PATH ICOUNT1 [ICOUNT2 [CLOCK]]')
    ap.add_argument('--trace', nargs=2, action='append', default=[],
                    metavar=('PATH', 'LOG'))
    ap.add_argument('--data', action='append', default=[], metavar='LOG')
    ap.add_argument('--userspace', metavar='LOG')
    args = ap.parse_args()
    status = 0
    for cost in args.cost:
        if not 2 <= len(cost) <= 4:
            ap.error('--cost PATH ICOUNT1 [ICOUNT2 [CLOCK]]')
        status |= cost_table(*cost)
        print()
    if args.trace:
        status |= trace_table(args.trace)
        print()
    if args.data:
        status |= data_table(args.data)
        print()
    if args.userspace:
        status |= userspace_tables(args.userspace)
    return status


if __name__ == '__main__':
    sys.exit(main())
