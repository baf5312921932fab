# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""scripts/test.sh's stage reporting: a stage that cannot run is reported skipped, never passed,
and the images' checks say skipped (exit 77) with the reason where podman cannot run containers.
Run by ctest as setup.stages: python3 test_stages.py ROOT"""
import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

ROOT = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parents[2])


def run_stages(script):
    return subprocess.run(["bash", "-c", f'set -euo pipefail; ROOT="{ROOT}"; source "$ROOT/scripts/test-stages.sh"; {script}'],
                          capture_output=True, text=True, timeout=60)


class Stages(unittest.TestCase):
    def test_a_skipped_stage_is_reported_skipped_with_its_reason(self):
        r = run_stages('stage Ok true; stage Images bash -c "echo images: skipped: podman is not installed; exit 77"; stages_close')
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("==> Images: SKIPPED", r.stdout)
        self.assertIn("images: skipped: podman is not installed", r.stdout.split("SKIPPED stages")[1])
        self.assertNotIn("Images: passed", r.stdout)
        self.assertNotIn("All stages passed", r.stdout)
        self.assertIn("==> Ok: passed", r.stdout)
        self.assertIn("1 skipped", r.stdout)

    def test_a_failed_stage_fails_the_run_and_is_named(self):
        r = run_stages('stage Broken bash -c "echo boom; exit 3"; stage Ok true; stages_close')
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn("FAILED stages: Broken", r.stdout)
        self.assertIn("boom", r.stdout.split("its last 25 lines")[1])

    def test_the_images_stage_skips_with_its_reason_where_podman_cannot_run(self):
        with tempfile.TemporaryDirectory() as bin_dir:
            fake = Path(bin_dir) / "podman"
            # A podman that is installed but cannot run containers (as in a sandbox without them).
            fake.write_text("#!/bin/sh\necho 'Error: cannot set up namespaces: operation not permitted' >&2\nexit 125\n")
            fake.chmod(0o755)
            env = dict(os.environ, PATH=f"{bin_dir}:{os.environ['PATH']}")
            r = subprocess.run(["bash", str(ROOT / "tests/images/run.sh")], capture_output=True, text=True, env=env, timeout=60)
        self.assertEqual(r.returncode, 77, r.stdout + r.stderr)
        self.assertIn("images: skipped: podman does not work here: Error: cannot set up namespaces", r.stdout)


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0], "-v"])
