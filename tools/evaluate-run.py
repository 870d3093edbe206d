#!/usr/bin/env python3
"""Judge one QEMU guest run: exit status, kernel splats, KUnit results.

Prints one line per result, "pass|fail|skip<TAB>test<TAB>detail", for
tools/lib.sh to record, and exits 1 when anything failed.  KTAP is parsed
with the kernel's own tools/testing/kunit/kunit.py (parse --json).
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

# A line that starts a kernel splat: any of these in a guest log fails the
# run.  Each maps to the category named in the failure message.
SPLAT_PATTERNS = [
    (re.compile(r'BUG: KASAN: '), 'KASAN report'),
    (re.compile(r'BUG: kmemleak|kmemleak: \d+ new suspected memory leaks?|unreferenced object 0x'), 'kmemleak leak'),
    (re.compile(r'WARNING: (possible|inconsistent|suspicious|bad unlock|held lock|lock held|nested lock|circular)'), 'lockdep report'),
    (re.compile(r'DEBUG_LOCKS_WARN_ON|INFO: possible (recursive|circular|irq lock)|INFO: trying to register non-static key'), 'lockdep report'),
    (re.compile(r'DMA-API: \S+ \S+: device driver|DMA-API: .*(failed to check map error|frees DMA memory|tries to|leak)'), 'DMA-API debug report'),
    (re.compile(r'^WARNING: '), 'kernel WARNING'),
    (re.compile(r'kernel BUG at |BUG: (unable|kernel|scheduling|sleeping|spinlock|soft lockup|workqueue|Bad|using)'), 'kernel BUG'),
    (re.compile(r'UBSAN: '), 'UBSAN report'),
    (re.compile(r'Oops: |general protection fault|Kernel panic - not syncing'), 'kernel oops/panic'),
    (re.compile(r'INFO: task .* blocked for more than|'
                r'rcu: INFO: .*(detected stalls|self-detected stall|detected expedited stalls)'), 'hang report'),
    (re.compile(r'FAULT_INJECTION: forcing a failure'), None),   # expected under fault injection
]

TS_PREFIX = re.compile(r'^\[\s*\d+\.\d+\]\s?')
# tools/qemu/guest-init.sh's line: the CPUs online when the script starts.
CPUS_LINE = re.compile(r'rwx-guest: (\d+) of (\d+|\?) CPUs online')


def hung_in(lines):
    """' in: CHAIN' from the guest's hang report (guest-init.sh), or ''."""
    chains = [l.split('rwx-guest: hung in: ', 1)[1].strip() for l in lines
              if 'rwx-guest: hung in: ' in l]
    return ' in: ' + chains[-1] if chains else ''


def cpus_result(lines, name, asked):
    """One result: the guest brought up every one of the CPUs asked for."""
    if asked < 1:
        return ('fail', f'{name}: CPUs online', 'run-vm.sh did not say how many CPUs the guest was given')
    test = f'{name}: {asked} CPU{"s" if asked != 1 else ""} online'
    for line in lines:
        m = CPUS_LINE.search(line)
        if m:
            online = int(m.group(1))
            if online >= asked:
                return ('pass', test, '')
            return ('fail', test, f'{online} of {asked} CPUs came up: {line.strip()}')
    return ('fail', test, 'the guest did not say how many CPUs it has (no "rwx-guest: N of M CPUs online")')



def splat_category(text):
    """The category of the splat a console line (timestamp removed)
    starts, or None."""
    for pattern, category in SPLAT_PATTERNS:
        if pattern.search(text):
            return category
    return None


def splat_starts(lines):
    """Yield (index, category, text) for every splat start in a console log."""
    for i, line in enumerate(lines):
        text = TS_PREFIX.sub('', line.rstrip('\n'))
        category = splat_category(text)
        if category:
            yield i, category, text.strip()


# An RCU stall report's first NMI backtrace: which CPU, its task and where
# it was.  Its call trace is in the excerpt, which a CI log may cut; the
# stalled CPU's place then still shows in the failure's one line.
NMI_BACKTRACE = re.compile(r'NMI backtrace for cpu (\d+)( skipped: idling at (\S+))?')
BACKTRACE_CPU = re.compile(r'^CPU: (\d+) .*?PID: \d+ Comm: (\S+)')
BACKTRACE_RIP = re.compile(r'^RIP: \d+:(\S+)')
STALL_REPORT_LINES = 60


def stalled_cpu(lines, start):
    """' (cpu N: COMM at SYMBOL)', or ' (cpu N: idle at SYMBOL)', from the
    first NMI backtrace of the RCU stall report at lines[start]; '' when
    it has none (a stall of tasks alone, a log cut short).  The search
    stops at the next splat and at the next CPU's backtrace."""
    cpu = comm = None
    for line in lines[start + 1:start + STALL_REPORT_LINES]:
        text = TS_PREFIX.sub('', line.rstrip('\n')).strip()
        if splat_category(text):
            break
        m = NMI_BACKTRACE.search(text)
        if m:
            if cpu is not None:
                break
            cpu = m.group(1)
            if m.group(3):
                return f' (cpu {cpu}: idle at {m.group(3)})'
            continue
        if cpu is None:
            continue
        m = BACKTRACE_CPU.search(text)
        if m:
            if m.group(1) != cpu:
                break
            comm = m.group(2)
            continue
        m = BACKTRACE_RIP.search(text)
        if m and comm:
            return f' (cpu {cpu}: {comm} at {m.group(1)})'
    return ''


def find_splats(lines):
    """Return [(category, line)] for every splat start in a console log; an
    RCU stall's line says where the stalled CPU was."""
    return [(category, text + (stalled_cpu(lines, i) if 'detected stalls' in text else ''))
            for i, category, text in splat_starts(lines)]


EXCERPT_LINES = 40
# A failed KUnit assertion, or a guest script's "NAME: FAILED WHY" line.
FAILURE_LINE = re.compile(r'(EXPECTATION|ASSERTION) FAILED|^\w[\w-]*: FAILED ')


def excerpt(lines):
    """The console lines that tell why a run failed, for make check's
    summary: from the first splat (the report and its call trace), else
    from the first failed assertion or script step, else the log's end
    (where a script stopped)."""
    text = [TS_PREFIX.sub('', l.rstrip('\n')) for l in lines]
    first = next(splat_starts(lines), None)
    if first:
        return text[first[0]:first[0] + EXCERPT_LINES]
    for i, line in enumerate(text):
        if FAILURE_LINE.search(line):
            return text[i:i + EXCERPT_LINES]
    return text[-EXCERPT_LINES:]


def drop_headless_params(text):
    """6.1's debugfs results keep, of a parameterised case, only its last
    parameter's result line, without the "# Subtest:" header and plan that
    open its subtests; kunit.py then takes that line for a case of the suite,
    loses count and drops every suite after it.  Such headless parameter
    lines are dropped: the case's own result line stays ("not ok" when any
    parameter failed), so each such case is judged as one."""
    out, header = [], False
    for line in text.splitlines():
        if re.match(r'^        # Subtest: ', line):
            header = True
        elif re.match(r'^    (not )?ok \d+ ', line):
            header = False
        elif re.match(r'^        (not )?ok \d+ ', line) and not header:
            continue
        out.append(line)
    return '\n'.join(out) + '\n'


def renumber_ktap(text):
    """Merge the per-suite KTAP documents into one: one header, suites
    numbered 1..N, where N counts every suite that started (so a suite cut
    short by a crash is reported, not silently dropped)."""
    suites, body = 0, []
    for line in text.splitlines():
        if re.match(r'^(KTAP version \d+|TAP version \d+|1\.\.\d+)\s*$', line):
            continue
        if re.match(r'^    # Subtest: ', line):
            suites += 1
        m = re.match(r'^(ok|not ok) \d+ (.*)$', line)
        if m:
            line = f'{m.group(1)} {suites} {m.group(2)}'
        body.append(line)
    return '\n'.join(['KTAP version 1', f'1..{suites}'] + body) + '\n', suites


def leaf_cases(group, prefix=''):
    name = group.get('name', '')
    path = f'{prefix}.{name}' if prefix else name
    for index, case in enumerate(group.get('test_cases', []), 1):
        case_name = case['name'] or f'case {index} (no result line)'
        yield f'{path}.{case_name}' if path else case_name, case['status']
    for sub in group.get('sub_groups', []):
        yield from leaf_cases(sub, path)


def kunit_results(ktap_path, kunit_py, prefix=''):
    """Yield (result, test, detail) for every KUnit case in ktap_path."""
    with open(ktap_path, encoding='utf-8', errors='replace') as f:
        merged, nsuites = renumber_ktap(drop_headless_params(f.read()))
    if nsuites == 0:
        yield 'fail', 'kunit', 'no KUnit suite reported any result'
        return
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, 'kunit.ktap')
        js = os.path.join(tmp, 'kunit.json')
        with open(src, 'w') as f:
            f.write(merged)
        proc = subprocess.run([sys.executable, kunit_py, 'parse', '--json=' + js, src],
                              capture_output=True, text=True)
        if not os.path.exists(js):
            yield 'fail', 'kunit', 'kunit.py parse failed: ' + proc.stderr.strip()[-300:]
            return
        with open(js) as f:
            tree = json.load(f)
    saw_failure = False
    for suite in tree.get('sub_groups', []):
        for name, status in leaf_cases(suite):
            name = prefix + name
            if status == 'PASS':
                yield 'pass', name, ''
            elif status == 'SKIP':
                yield 'skip', name, 'skipped by the test itself'
            else:
                saw_failure = True
                yield 'fail', name, f'KUnit test case {status}' + (
                    ' (crashed or did not finish)' if status == 'ERROR' else ' (assertion failed)')
    if proc.returncode != 0 and not saw_failure:
        yield 'fail', 'kunit', 'kunit.py parse reported errors: ' + proc.stdout.strip()[-300:]


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument('--log', required=True, help='guest console log')
    ap.add_argument('--rc', type=int, required=True, help="run-vm.sh's exit status")
    ap.add_argument('--name', default='guest', help='name of this run in results')
    ap.add_argument('--ktap', help='KTAP collected in the guest')
    ap.add_argument('--kunit-py', help="path to the kernel's kunit.py")
    ap.add_argument('--case-prefix', default='',
                    help='put before every KUnit case name (tells runs apart)')
    ap.add_argument('--excerpt', help='where to write, if the run failed, the console lines that tell why')
    ap.add_argument('--cpus', type=int,
                    help='CPUs the guest was given (0: not known, which fails): fewer online fails the run')
    args = ap.parse_args()

    with open(args.log, encoding='utf-8', errors='replace') as f:
        lines = f.readlines()
    results = []
    if args.rc == 124:
        results.append(('fail', args.name, 'guest timed out (hung)' + hung_in(lines) + ': see ' + args.log))
    elif args.rc == 126:
        results.append(('fail', args.name, 'guest did not start its script, booted twice: see ' + args.log))
    elif args.rc == 125:
        results.append(('fail', args.name, 'guest died before its script finished (panic or crash): see ' + args.log))
    elif args.rc != 0:
        results.append(('fail', args.name, f'guest script exited with status {args.rc}'))
    else:
        results.append(('pass', args.name, ''))

    splats = find_splats(lines)
    if args.cpus is not None:
        results.append(cpus_result(lines, args.name, args.cpus))
    if splats:
        for category, line in splats[:10]:
            results.append(('fail', f'{args.name}: no kernel splat', f'{category}: {line}'))
    else:
        results.append(('pass', f'{args.name}: no kernel splat', ''))

    if args.ktap:
        if os.path.exists(args.ktap):
            results.extend(kunit_results(args.ktap, args.kunit_py, args.case_prefix))
        else:
            results.append(('fail', 'kunit', 'no KTAP was collected from the guest'))

    failed = any(r[0] == 'fail' for r in results)
    if args.excerpt and failed:
        with open(args.excerpt, 'w') as f:
            f.write('\n'.join(excerpt(lines)) + '\n')
    for result, test, detail in results:
        print(f'{result}\t{test}\t{detail}')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
