# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""What the standalone end-to-end scripts (tests/serve, tests/nn_ext) share: one ctest test per
case, exit 0 passed, 1 failed, SKIP (ctest's SKIP_RETURN_CODE) skipped with the reason."""

SKIP = 77


class Failure(AssertionError):
    """A check failed: the case fails with this message."""


class Skipped(Exception):
    """Something the case needs is not here: the case is skipped with this reason."""


def check(cond, message):
    if not cond:
        raise Failure(message)
