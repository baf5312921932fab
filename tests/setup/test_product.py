# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""scripts/setup.sh builds only the CMake target `product`: what a user runs (issue 52: its build
compiled every test, benchmark and test guest, about two thirds of a cold setup's build).

Asks ninja for every command `product` needs in BUILD and fails when one compiles or links a
test, a benchmark or a test guest: a source under tests/, bench/, guest/tests/ or guest/rust-web/
(the Spin and WASI 0.3 test guests), or a program named like a test. It also checks that setup.sh
builds that target and, after it, only the WASI 0.3 guests docs/compatibility.md runs.
Run by ctest as setup.product: python3 test_product.py ROOT BUILD
"""
import re
import shlex
import subprocess
import sys
import unittest
from pathlib import Path

ROOT = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parents[2]).resolve()
BUILD = Path(sys.argv[2] if len(sys.argv) > 2 else ROOT / "build").resolve()
TEST_ONLY = ["tests", "bench", "guest/tests", "guest/rust-web"]


def product_commands():
    out = subprocess.run(["ninja", "-C", str(BUILD), "-t", "commands", "product"], capture_output=True,
                         text=True, check=True).stdout
    return [line for line in out.splitlines() if line.strip()]


def test_only_paths(command):
    """The words of a command that name a test-only source or a test program."""
    found = []
    for word in shlex.split(command, posix=True):
        for piece in re.split(r"[=,]", word):
            p = Path(piece)
            if not p.is_absolute():
                p = BUILD / p
            try:
                rel = p.resolve().relative_to(ROOT)
            except ValueError:
                rel = None
            if rel is not None and any(rel == Path(d) or Path(d) in rel.parents for d in TEST_ONLY):
                found.append(str(rel))
            elif re.search(r"/bin/[^/]*(_test|_tests|bench_[^/]*)$", piece):
                found.append(piece)
    return found


class Product(unittest.TestCase):
    def test_product_builds_no_test_or_benchmark(self):
        commands = product_commands()
        self.assertGreater(len(commands), 50, "ninja listed too few commands for `product`: is BUILD configured?")
        bad = {}
        for c in commands:
            for path in test_only_paths(c):
                bad.setdefault(path, c[:300])
        self.assertEqual(bad, {}, "`product` (what scripts/setup.sh builds) compiles or links tests, benchmarks or "
                                  "test guests: move them out of its dependencies (CMakeLists.txt, guest/CMakeLists.txt)")

    def test_product_builds_what_the_readme_runs(self):
        outputs = "\n".join(product_commands())
        for needed in ["bin/wasinn", "guests/classify_digits.wasm", "libwasinn_backend_onnxruntime.so",
                       "guests/http_openai.component.wasm"]:
            self.assertIn(needed, outputs, f"`product` does not build {needed}, which the README runs")

    def test_setup_builds_only_product(self):
        # Three builds: the main job's own targets on a new machine (its accuracy shows before the
        # other frameworks are fetched), then `product` (the first must be a part of it), then the
        # 0.3 guests the docs run.
        setup = (ROOT / "scripts/setup.sh").read_text()
        builds = re.findall(r"^[^#\n]*(?:cmake --build|scripts/build\.sh)[^\n]*$", setup, re.M)
        self.assertEqual(len(builds), 3,
                         f"scripts/setup.sh should build the main job, product, then the docs' 0.3 guests: {builds}")
        main_job, whole, p3_guests = (b.rstrip() for b in builds)
        self.assertTrue(whole.endswith(" product"), f"scripts/setup.sh builds more than product: {whole}")
        self.assertTrue(p3_guests.endswith('"$BUILD" rust_web_guests'), f"the third build: {p3_guests}")
        targets = main_job.split('"$BUILD"', 1)[1].split()
        self.assertEqual(set(targets), {"wasinn_cli", "wasinn_backend_onnxruntime", "guest_classify_digits"})
        product = set(product_commands())
        for target in targets:
            out = subprocess.run(["ninja", "-C", str(BUILD), "-t", "commands", target], capture_output=True,
                                 text=True, check=True).stdout.splitlines()
            extra = [c for c in out if c not in product]
            self.assertEqual(extra, [], f"the main job's {target} builds what `product` does not")

if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=2)
