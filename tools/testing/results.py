#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Count the results of one make check stage from its machine-readable
output, never from free text:

  results.py ktap KSRC FILE    KTAP (a VM run's results.ktap, the series
                               check, the KUnit module's output), read by
                               the kernel's KTAP parser (kunit_parser.py,
                               what kunit.py parse runs)
  results.py junit FILE|DIR    JUnit XML: GoogleTest's --gtest_output=xml
                               (every *.xml of DIR) or ctest --output-junit

Prints one line, "pass N fail N skip N", then per failed test a line
"not ok: NAME" and the last lines of what it logged (its KTAP diagnostic
lines, or its JUnit failure message).  Exits 0 when there are results and
none failed, 1 when one failed, 2 when there are none or the file cannot be
read.
"""

import io
import os
import sys
import xml.etree.ElementTree as ET

LOG_LINES = 20


def ktap(ksrc, path):
    """Leaf results of a KTAP file as (name, status, log) triples, from the
    kernel's own KTAP parser (what kunit.py parse runs): log is the test's
    diagnostic lines."""
    sys.path.insert(0, os.path.join(ksrc, 'tools/testing/kunit'))
    import kunit_parser  # pylint: disable=import-outside-toplevel
    import kunit_printer  # pylint: disable=import-outside-toplevel

    # Its running commentary is not wanted: only the parsed tree is.
    kunit_parser.stdout = kunit_printer.Printer(io.StringIO())
    with open(path, encoding='utf-8', errors='replace') as f:
        tree = kunit_parser.parse_run_tests(f.readlines())
    if tree.status == kunit_parser.TestStatus.FAILURE_TO_PARSE_TESTS:
        raise ValueError(f'no KTAP in {path}')
    status = {kunit_parser.TestStatus.SUCCESS: 'PASS',
              kunit_parser.TestStatus.SKIPPED: 'SKIP'}
    results = []

    def walk(test, prefix):
        for sub in test.subtests:
            if sub.subtests:
                walk(sub, prefix + (sub.name + ': ' if sub.name else ''))
            else:
                log = [line.strip().removeprefix('#').strip()
                       for line in sub.log]
                results.append((prefix + (sub.name or '(no result line)'),
                                status.get(sub.status, 'FAIL'), log))

    walk(tree, '')
    return results


def junit(path):
    """Results of a JUnit file, or of every *.xml in a directory, as (name,
    status, log) triples, log being a failure's message.  GoogleTest names
    a case by its suite (classname) and name, ctest by one name."""
    if os.path.isdir(path):
        files = sorted(os.path.join(path, f) for f in os.listdir(path)
                       if f.endswith('.xml'))
    else:
        files = [path]
    results = []
    for f in files:
        for case in ET.parse(f).getroot().iter('testcase'):
            failure = case.find('failure')
            if failure is None:
                failure = case.find('error')
            log = []
            if failure is not None:
                status = 'FAIL'
                log = (failure.get('message') or failure.text or '').splitlines()
            elif case.find('skipped') is not None or case.get('status') == 'notrun':
                status = 'SKIP'
            else:
                status = 'PASS'
            name = case.get('name', '?')
            if case.get('classname'):
                name = f"{case.get('classname')}.{name}"
            results.append((name, status, log))
    return results


def main(argv):
    try:
        if len(argv) == 4 and argv[1] == 'ktap':
            results = ktap(argv[2], argv[3])
        elif len(argv) == 3 and argv[1] == 'junit':
            results = junit(argv[2])
        else:
            sys.stderr.write(__doc__)
            return 2
    except (OSError, ValueError, ET.ParseError) as e:
        sys.stderr.write(f'results.py: {e}\n')
        return 2

    if not results:
        sys.stderr.write(f'results.py: no results in {argv[-1]}\n')
        return 2
    counts = {'PASS': 0, 'FAIL': 0, 'SKIP': 0}
    for _, status, _ in results:
        counts[status] += 1
    print(f"pass {counts['PASS']} fail {counts['FAIL']} skip {counts['SKIP']}")
    for name, status, log in results:
        if status == 'FAIL':
            print(f'not ok: {name}')
            for line in log[-LOG_LINES:]:
                print(f'    {line}')
    return 0 if not counts['FAIL'] else 1


if __name__ == '__main__':
    sys.exit(main(sys.argv))
