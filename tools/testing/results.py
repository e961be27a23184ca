#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Count the results of one make check stage from its machine-readable
output, never from free text:

  results.py ktap KSRC FILE    KTAP (a VM run's results.ktap, the series
                               check, the KUnit module's output), read by
                               the kernel's kunit.py parse --json
  results.py junit FILE|DIR    JUnit XML: GoogleTest's --gtest_output=xml
                               (every *.xml of DIR) or ctest --output-junit

Prints one line, "pass N fail N skip N", then one line per failed test,
"not ok: NAME"; exits 0 when there is at least one result and no failure,
1 otherwise (and 2 when the file cannot be read).
"""

import json
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET


def ktap(ksrc, path):
    """Leaf results of a KTAP file as (name, status) pairs."""
    kunit = os.path.join(ksrc, 'tools/testing/kunit/kunit.py')
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, 'results.json')
        proc = subprocess.run([sys.executable, kunit, 'parse', f'--json={out}',
                               os.path.abspath(path)],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True, timeout=120, check=False)
        if not os.path.exists(out):
            sys.stderr.write(proc.stdout[-2000:])
            raise ValueError(f'kunit.py could not parse {path}')
        with open(out, encoding='utf-8') as f:
            tree = json.load(f)

    results = []

    def walk(group, prefix):
        for case in group.get('test_cases', []):
            results.append((prefix + case['name'], case['status']))
        for sub in group.get('sub_groups', []):
            walk(sub, prefix + sub['name'] + ': ')

    walk(tree, '')
    return results


def junit(path):
    """Results of a JUnit file, or of every *.xml in a directory, as (name,
    status) pairs.  GoogleTest names a case by its suite (classname) and
    name, ctest by one name."""
    if os.path.isdir(path):
        files = sorted(os.path.join(path, f) for f in os.listdir(path)
                       if f.endswith('.xml'))
    else:
        files = [path]
    results = []
    for f in files:
        for case in ET.parse(f).getroot().iter('testcase'):
            if case.find('failure') is not None or case.find('error') is not None:
                status = 'FAIL'
            elif case.find('skipped') is not None or case.get('status') == 'notrun':
                status = 'SKIP'
            else:
                status = 'PASS'
            name = case.get('name', '?')
            if case.get('classname'):
                name = f"{case.get('classname')}.{name}"
            results.append((name, status))
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
    except (OSError, ValueError, ET.ParseError, subprocess.SubprocessError) as e:
        sys.stderr.write(f'results.py: {e}\n')
        return 2

    counts = {'PASS': 0, 'FAIL': 0, 'SKIP': 0}
    for _, status in results:
        counts['FAIL' if status not in counts else status] += 1
    print(f"pass {counts['PASS']} fail {counts['FAIL']} skip {counts['SKIP']}")
    for name, status in results:
        if status not in ('PASS', 'SKIP'):
            print(f'not ok: {name}')
    return 0 if results and not counts['FAIL'] else 1


if __name__ == '__main__':
    sys.exit(main(sys.argv))
