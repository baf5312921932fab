# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""A server's resident memory, as the hostile-client tests check it: after an attack, RSS back
within 10% of what it was before (issue 79). What a server freed may take a moment to be given back
to the kernel, so the check waits for it instead of reading once."""
import os
import re
import time


def unchecked_reason():
    """Why RSS says nothing in this build ("" when it does): ctest sets WASINN_RSS_UNCHECKED in the
    sanitizer trees, whose allocators hold freed memory back (ASan's quarantine: hundreds of MiB)."""
    return os.environ.get("WASINN_RSS_UNCHECKED", "")


def rss_bytes(pid):
    """VmRSS of `pid` (/proc/PID/status), in bytes."""
    with open(f"/proc/{pid}/status") as f:
        return int(re.search(r"^VmRSS:\s+(\d+) kB", f.read(), re.M).group(1)) * 1024


def settled_rss(pid, baseline, factor=1.1, within=10):
    """RSS of `pid` once it is at most `baseline` * `factor`, or after `within` seconds if it never
    gets there (the caller's assertion then fails with the value)."""
    deadline = time.time() + within
    now = rss_bytes(pid)
    while now > baseline * factor and time.time() < deadline:
        time.sleep(0.05)
        now = rss_bytes(pid)
    return now


def mib(n):
    return f"{n / 2**20:.1f} MiB"
