#!/usr/bin/env python3
"""bench-summary.py LOG...: the NVMe-oF data-path table of make bench.

Reads the guests' "bench: data PATH WORKLOAD SIDE ROUND IOPS MIB/S" lines
and prints, per path and workload, the median IOPS and MiB/s of the
engine-built target and of the distro's (ib_core), and their ratio
(above 1: the engine moved more)."""
import collections
import re
import statistics
import sys

LINE = re.compile(r'bench: data (\w+) (\S+) (engine|ib_core) (\d+) ([\d.]+) ([\d.]+)$')


def main(logs):
    runs = collections.defaultdict(list)
    order = []
    for log in logs:
        with open(log, errors='replace') as f:
            for line in f:
                m = LINE.search(line.rstrip())
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
    for path, work in order:
        eng = runs[path, work, 'engine']
        ref = runs[path, work, 'ib_core']
        if not eng or not ref:
            print('bench: %-4s %-14s incomplete' % (path, work))
            continue
        ei = statistics.median(r[0] for r in eng)
        ri = statistics.median(r[0] for r in ref)
        eb = statistics.median(r[1] for r in eng)
        rb = statistics.median(r[1] for r in ref)
        print('bench: %-4s %-14s %10.0f %10.0f %7.2f   %9.2f %9.2f %7.2f' %
              (path, work, ei, ri, ei / ri if ri else 0, eb, rb,
               eb / rb if rb else 0))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
