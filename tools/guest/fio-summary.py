#!/usr/bin/env python3
"""fio-summary.py JSON [LABEL]: one line per fio job of fio's JSON output -
what moved, how fast, whether the verification saw an error - and with a
LABEL one "nvmeof: result LABEL ..." line of totals for tools that compare
runs.  Exit 1 when a job had errors."""
import json
import sys


def main(path, label=None):
    with open(path) as f:
        text = f.read()
    # fio may print notes before the JSON object.
    data = json.loads(text[text.index('{'):])
    ok = True
    for job in data['jobs']:
        rd, wr = job['read'], job['write']
        err = job.get('error', 0)
        # A verify job reads back at least what it wrote (a verify_only
        # job reads what an earlier one wrote, and writes nothing).
        verified = rd['io_bytes'] > 0 and rd['io_bytes'] >= wr['io_bytes']
        ok = ok and err == 0 and verified
        print('nvmeof: fio %-16s write %7.1f MiB %8.0f IOPS %7.1f MiB/s | '
              'read+verify %7.1f MiB %8.0f IOPS %7.1f MiB/s | error %d' %
              (job['jobname'], wr['io_bytes'] / 2**20, wr['iops'],
               wr['bw_bytes'] / 2**20, rd['io_bytes'] / 2**20, rd['iops'],
               rd['bw_bytes'] / 2**20, err))
    total = sum(j['read']['io_bytes'] for j in data['jobs'])
    print('nvmeof: fio verified %.1f MiB (crc32c per block)%s' %
          (total / 2**20, '' if ok else ': NOT every job wrote and read back'))
    if label:
        sums = {}
        for d in ('write', 'read'):
            sums[d + '_iops'] = sum(j[d]['iops'] for j in data['jobs'])
            sums[d + '_mibs'] = sum(j[d]['bw_bytes'] for j in data['jobs']) / 2**20
        print('nvmeof: result %s write_iops %.0f write_mibs %.2f '
              'read_iops %.0f read_mibs %.2f verified_mib %.1f' %
              (label, sums['write_iops'], sums['write_mibs'],
               sums['read_iops'], sums['read_mibs'], total / 2**20))
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main(*sys.argv[1:3]))
