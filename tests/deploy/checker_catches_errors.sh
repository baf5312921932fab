#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# A broken copy of deploy/kubernetes/wasinn-serve.yaml must fail scripts/check-manifests.py with
# each mistake named: a misspelt field (with the right spelling offered), a string where the
# schema wants an int, and a required field left out.
#   checker_catches_errors.sh PYTHON SOURCE_DIR
set -euo pipefail
py=$1 src=$2
bad=$(mktemp --suffix=.yaml); trap 'rm -f "$bad"' EXIT
sed -e 's/readOnlyRootFilesystem/readOnlyRootFileSystem/' -e 's/containerPort: 8080, name/containerPort: "8080", name/' \
    -e 's/- {port: 80, targetPort: 8080, name: http}/- {targetPort: 8080, name: http}/' \
    "$src/deploy/kubernetes/wasinn-serve.yaml" >"$bad"
if out=$("$py" "$src/scripts/check-manifests.py" "$bad"); then
  echo "the broken manifest passed:"; echo "$out"; exit 1
fi
echo "$out"
for want in 'readOnlyRootFileSystem: no such field in V1SecurityContext (did you mean readOnlyRootFilesystem?)' \
            "containerPort: int expected, got '8080'" 'port is required in V1ServicePort'; do
  grep -qF -- "$want" <<<"$out" || { echo "not reported: $want"; exit 1; }
done
