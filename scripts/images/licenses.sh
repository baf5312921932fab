# Sourced by scripts/images.sh. (Being written: collects the third-party notices.)
stage_licenses() { echo "stage_licenses: not written yet" >&2; return 1; }
licenses_spdx() { echo "NOASSERTION"; }
