#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Generate wasinn's test models and data, reproducibly and without network.

    .deps/venv/bin/python scripts/make_fixtures.py [--out DIR] [--force] [--main-job]

Run with the venv scripts/fetch-deps.sh makes (Debian's torch, torchvision, onnx,
sklearn, plus the PyPI packages in scripts/deps/*.pip). The output directory is rebuilt only when the generator sources
change: DIR/STAMP holds their hash. A build goes into a sibling temp dir that
is renamed into place at the end, so an interrupted run leaves DIR as it was.
"""

import argparse
import fcntl
import hashlib
import json
import os
import shutil
import signal
import sys
import tempfile
import time
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parent
DEFAULT_OUT = Path("~/.cache/wasinn/fixtures").expanduser()
STAMP = "STAMP"
MANIFEST = "MANIFEST.json"


def source_hash() -> str:
    """Hash of every generator source: the stamp that decides a rebuild."""
    files = sorted((SCRIPTS / "fixtures").glob("*.py")) + [SCRIPTS / "make_fixtures.py"]
    h = hashlib.sha256()
    for f in files:
        rel = f.relative_to(SCRIPTS).as_posix().encode()
        data = f.read_bytes()
        # Length-prefix name and content so file boundaries can't be shifted.
        h.update(b"%d:%s%d:" % (len(rel), rel, len(data)))
        h.update(data)
    return h.hexdigest()


def is_up_to_date(out: Path, stamp: str) -> bool:
    try:
        return (out / STAMP).read_text().strip() == stamp
    except OSError:
        return False


def steps():
    """(description, function(out_dir) -> summary) in dependency order.

    Imported here, not at the top, so the up-to-date path never pays for
    importing torch. Training comes first; then every exporter module
    fixtures/export_<format>.py that defines STEPS (a list of the same pairs),
    in name order. Exporters read digits/digits_mlp.pt and must not retrain.
    """
    sys.path.insert(0, str(SCRIPTS))
    import importlib

    from fixtures import corrupt, digits, export_onnx, onnx_graphs

    out = [
        ("train digits MLP", digits.train),
        ("export digits MLP to ONNX", export_onnx.export_digits),
        ("export mobilenet_v2 to ONNX", export_onnx.export_mobilenet_v2),
        ("build tiny ONNX model", onnx_graphs.build_tiny),
        ("make dynamic-batch variants of tiny and mobilenet_v2", export_onnx.export_batch_variants),
        ("build element-type ONNX models", onnx_graphs.build_types),
        ("build a 64 MiB ONNX model with 16 MiB tensors", onnx_graphs.build_large),
        ("write corrupt models", corrupt.write_corrupt),
    ]
    for path in sorted((SCRIPTS / "fixtures").glob("export_*.py")):
        module = importlib.import_module(f"fixtures.{path.stem}")
        out.extend(getattr(module, "STEPS", []))
    return out


REQUIRED = ["numpy", "torch", "torchvision", "onnx", "sklearn"]


def versions():
    """Versions of the packages the fixtures depend on.

    Called before building too, so a wrong interpreter fails up front with
    every missing package named, not halfway through the steps.
    """
    import importlib

    found, missing = {"python": sys.version.split()[0]}, []
    for name in REQUIRED:
        try:
            found[name] = importlib.import_module(name).__version__
        except ImportError:
            missing.append(name)
    if missing:
        raise ImportError(f"missing Python packages: {', '.join(missing)} (interpreter {sys.executable})")
    return found


def write_manifest(out: Path, stamp: str):
    from fixtures.common import sha256_file

    files = []
    for p in sorted(out.rglob("*")):
        rel = p.relative_to(out).as_posix()
        if p.is_file() and rel not in (STAMP, MANIFEST):
            files.append({"path": rel, "size": p.stat().st_size, "sha256": sha256_file(p)})
    manifest = {"source_hash": stamp, "versions": versions(), "files": files}
    (out / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n")
    return files


# The steps the main job (the digits example) needs: scripts/setup.sh's first pass makes only
# these, so the example runs before the other frameworks are fetched; the full run replaces them.
MAIN_JOB_STEPS = 2
MAIN_JOB_STAMP = "main-job:"


def build(tmp: Path, stamp: str, main_job: bool = False):
    todo = steps()[:MAIN_JOB_STEPS] if main_job else steps()
    total = len(todo) + 1
    for n, (what, fn) in enumerate(todo, 1):
        t0 = time.monotonic()
        print(f"[{n}/{total}] {what} ...", flush=True)
        summary = fn(tmp)
        print(f"        {summary} ({time.monotonic() - t0:.1f}s)", flush=True)
    files = write_manifest(tmp, stamp)
    print(f"[{total}/{total}] wrote {MANIFEST} ({len(files)} files)", flush=True)
    # Written last: a STAMP means every step above succeeded.
    (tmp / STAMP).write_text(stamp + "\n")


def check_replaceable(out: Path):
    """Refuse to replace anything this script didn't make: --out is
    rmtree'd on rebuild, and a typo like `--out ~` must not cost a home dir."""
    if not out.exists():
        return
    if not out.is_dir():
        raise NotADirectoryError(f"--out {out} exists and is not a directory")
    if any(out.iterdir()) and not (out / STAMP).exists():
        raise FileExistsError(f"refusing to replace {out}: not empty and has no {STAMP}, so not a fixtures dir")


def replace_dir(tmp: Path, out: Path):
    old = None
    if out.exists():
        old = out.with_name(f".{out.name}.old-{os.getpid()}")
        os.rename(out, old)
    os.rename(tmp, out)
    if old is not None:
        shutil.rmtree(old)


def remove_leftovers(out: Path):
    """Temp/old dirs of killed runs; safe because we hold the lock."""
    for pattern in (f".{out.name}.tmp-*", f".{out.name}.old-*"):
        for p in out.parent.glob(pattern):
            shutil.rmtree(p, ignore_errors=True)


def lock_path(out: Path) -> Path:
    return out.parent / f".{out.name}.lock"


def tidy_if_idle(out: Path):
    """Drop a killed run's leftovers, unless another run is in progress."""
    try:
        with open(lock_path(out), "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            remove_leftovers(out)
    except OSError:
        pass  # locked by a live run, or unwritable: nothing to tidy


def on_sigterm(signum, frame):
    # Turn `kill` into KeyboardInterrupt so the temp dir cleanup still runs.
    raise KeyboardInterrupt


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"output directory (default {DEFAULT_OUT})")
    ap.add_argument("--force", action="store_true", help="rebuild even if the stamp matches")
    ap.add_argument(
        "--main-job",
        action="store_true",
        help="only the digits model and data the main job needs (a later full run replaces them)",
    )
    args = ap.parse_args(argv)
    out = args.out.expanduser().resolve()
    full_stamp = source_hash()
    stamp = MAIN_JOB_STAMP + full_stamp if args.main_job else full_stamp

    # The full set holds the main job's files too.
    if not args.force and (is_up_to_date(out, stamp) or is_up_to_date(out, full_stamp)):
        tidy_if_idle(out)
        print(f"fixtures up to date in {out}")
        return 0

    check_replaceable(out)
    versions()
    out.parent.mkdir(parents=True, exist_ok=True)
    # Serialise concurrent runs (e.g. parallel test jobs): the loser waits,
    # then finds the winner's stamp and returns immediately.
    with open(lock_path(out), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not args.force and (is_up_to_date(out, stamp) or is_up_to_date(out, full_stamp)):
            print(f"fixtures up to date in {out}")
            return 0
        remove_leftovers(out)
        tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.tmp-", dir=out.parent))
        # mkdtemp makes it 0700; the final dir should be as readable as any
        # directory the user creates (e.g. by a CI user or a container).
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o777 & ~umask)
        t0 = time.monotonic()
        try:
            print(f"generating fixtures in {out}", flush=True)
            build(tmp, stamp, args.main_job)
            replace_dir(tmp, out)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        print(f"fixtures ready in {out} ({time.monotonic() - t0:.1f}s)")
    return 0


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, on_sigterm)
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        print("make_fixtures: interrupted, existing fixtures left unchanged", file=sys.stderr)
        sys.exit(130)
    except ImportError as e:
        print(
            f"make_fixtures: error: {e}\n"
            "make_fixtures: run it with /usr/bin/python3 (needs python3-torch, "
            "python3-torchvision, python3-onnx, python3-sklearn)",
            file=sys.stderr,
        )
        sys.exit(1)
    except Exception as e:  # noqa: BLE001 - one clear line instead of a trace
        print(f"make_fixtures: error: {type(e).__name__}: {e}", file=sys.stderr)
        sys.exit(1)
