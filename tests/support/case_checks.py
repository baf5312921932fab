# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""What the standalone end-to-end scripts (tests/serve, tests/spin, tests/nn_ext) share: one ctest test per
case, exit 0 passed, 1 failed, SKIP (ctest's SKIP_RETURN_CODE) skipped with the reason."""

SKIP = 77


class Failure(AssertionError):
    """A check failed: the case fails with this message."""


class Skipped(Exception):
    """Something the case needs is not here: the case is skipped with this reason."""


def check(cond, message):
    if not cond:
        raise Failure(message)


def run_cases(cases, names, ctx):
    """Runs the named cases on ctx, a PASS, SKIP or FAIL line each. The exit status: 1 if one
    failed, SKIP if the only case asked for skipped, else 0."""
    import traceback

    status = 0
    for name in names:
        try:
            cases[name](ctx)
            print(f"PASS {name}", flush=True)
        except Skipped as e:
            print(f"SKIP {name}: {e}", flush=True)
            status = status or (SKIP if len(names) == 1 else 0)
        except Failure as e:
            print(f"FAIL {name}: {e}", flush=True)
            status = 1
        except Exception:  # noqa: BLE001 - a client error (refused, reset, timeout) fails the case
            print(f"FAIL {name}:\n{traceback.format_exc()}", flush=True)
            status = 1
    return status


def case_main(doc, cases, make_ctx, required=(), optional=(), choices=None, extra=None):
    """The main() of a serve test: --case (one of `choices`, else of `cases`), --wasinn, --guests,
    --fixtures (WASINN_FIXTURES wins), each of `required` ("--llama-server") and `optional`
    ("--backend-dir"); `extra(parser)` adds its own. Runs the case on make_ctx(args): its exit status."""
    import argparse
    import os

    p = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--case", required=True, choices=sorted(choices or cases))
    for name in ("--wasinn", "--guests", "--fixtures") + tuple(required):
        p.add_argument(name, required=True)
    for name in optional:
        p.add_argument(name)
    if extra:
        extra(p)
    args = p.parse_args()
    if os.environ.get("WASINN_FIXTURES"):
        args.fixtures = os.environ["WASINN_FIXTURES"]
    try:
        ctx = make_ctx(args)
    except Skipped as e:
        print(f"SKIP {args.case}: {e}")
        return SKIP
    return run_cases(cases, [args.case], ctx)
