#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Run rdma-core's pyverbs tests and list the ids of those that passed.

usage: pyverbs-run.py SUITE_DIR PASS_FILE --dev DEV [TEST_ID...]

Like SUITE_DIR/run_tests.py, but with a result class that records each
success, so that test output interleaved with unittest's own does not hide
results.  Exit status: 0 when every test run passed or was skipped.
"""
import os
import sys
import unittest
from importlib.machinery import SourceFileLoader


class RecordingResult(unittest.TextTestResult):
    passed = []

    def addSuccess(self, test):
        super().addSuccess(test)
        RecordingResult.passed.append(test.id())


def main():
    suite_dir, pass_file = sys.argv[1], sys.argv[2]
    sys.path.insert(0, suite_dir)
    from args_parser import parser  # rdma-core's; consumes --dev and -v

    sys.argv = [sys.argv[0]] + sys.argv[3:]
    parser.parse_args()
    names = [a for a in sys.argv[1:] if not a.startswith('-')]
    tests = SourceFileLoader('tests', os.path.join(suite_dir, '__init__.py')).load_module()
    loader = unittest.TestLoader()
    if names:
        suite = loader.loadTestsFromNames(
            [n.removeprefix('tests.') for n in names], tests)
    else:
        suite = loader.loadTestsFromModule(tests)
    runner = unittest.TextTestRunner(verbosity=2, resultclass=RecordingResult)
    result = runner.run(suite)
    with open(pass_file, 'w') as f:
        for test_id in sorted(RecordingResult.passed):
            f.write(test_id + '\n')
    return 0 if result.wasSuccessful() else 1


if __name__ == '__main__':
    sys.exit(main())
