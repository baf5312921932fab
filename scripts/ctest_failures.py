#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Prints each failed ctest test of a stage log (stdin): the lines of its output that say what
failed (GoogleTest's, unittest's, a sanitizer's) and its last lines.

ctest --output-on-failure prints a failed test's output right after its status line, up to the
next status or Start line; with -j2 the blocks stay whole. Usage: ctest_failures.py STAGE < LOG
"""
import re
import sys

SAYS, TAIL = 40, 15
STATUS = re.compile(r"^\s*\d+/\d+ Test\s+#\d+: (\S+) \.+.*?(\*\*\*\S+|Passed|Not Run)")
BOUNDARY = re.compile(r"^(\d+% tests passed|\s*Start\s+\d+: )")
FAILURE = re.compile(r"Failure|Expected|Which is|Value of|Actual|FAIL|Error|Traceback|assert|"
                     r"Sanitizer|SUMMARY|check failed|\[  FAILED  \]", re.I)
NOISE = re.compile(r"\.\.\. (ok|skipped)|ResourceWarning")

stage = sys.argv[1] if len(sys.argv) > 1 else "?"
failed = []  # (name, status, output lines)
current = None
for line in sys.stdin.read().splitlines():
    m = STATUS.match(line)
    if m or BOUNDARY.match(line):
        current = None
        if m and m.group(2).startswith("***") and m.group(2) != "***Skipped":
            current = (m.group(1), m.group(2), [])
            failed.append(current)
        continue
    if current is not None:
        current[2].append(line)

for name, status, output in failed:
    says = [i for i, line in enumerate(output) if FAILURE.search(line) and not NOISE.search(line)][:SAYS]
    tail = range(max(0, len(output) - TAIL), len(output))
    print(f"\n--- {stage}: {name} {status}; what its output says failed, and its end:")
    last = -1
    for i in sorted(set(says) | set(tail)):
        if last >= 0 and i != last + 1:
            print("    ...")
        print(f"    {output[i]}")
        last = i
