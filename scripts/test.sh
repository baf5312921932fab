#!/usr/bin/env bash
# Runs wasinn's whole test suite from any state: sets up what is missing (as scripts/setup.sh
# does, without the example), builds, then runs every test with ctest.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${WASINN_BUILD_DIR:-$ROOT/build}
bash "$ROOT/scripts/setup.sh" --no-example
printf '\n==> Tests\n'
cd "$BUILD"
ctest --output-on-failure --no-tests=error -j2 "$@"
