# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# The Kubernetes and KServe API models that scripts/check-manifests.py checks the manifests of
# deploy/ against, offline: PyPI `kubernetes` (the client generated from Kubernetes' OpenAPI) and
# `kserve`'s SDK models (generated from KServe's CRDs; the SDK alone, without its model server).
# Sourced by scripts/fetch-deps.sh, which provides say, $DEPS and $DL.
K8S_CLIENT_VERSION=37.0.2
KSERVE_SDK_VERSION=0.21.0

install_k8s_schemas() {
  local venv=$DEPS/venv-k8s-schemas stamp="kubernetes==$K8S_CLIENT_VERSION kserve==$KSERVE_SDK_VERSION six"
  [[ -f $venv/.version && $(cat "$venv/.version") == "$stamp" ]] && return
  say "installing kubernetes $K8S_CLIENT_VERSION and the kserve $KSERVE_SDK_VERSION SDK models -> $venv"
  rm -rf "$venv"
  /usr/bin/python3 -m venv "$venv"
  # six: the kserve models import it (the SDK's older generator).
  "$venv/bin/pip" download -q -d "$DL/wheels" "kubernetes==$K8S_CLIENT_VERSION" pyyaml six
  "$venv/bin/pip" download -q --no-deps -d "$DL/wheels" "kserve==$KSERVE_SDK_VERSION"
  "$venv/bin/pip" install -q --no-index --find-links "$DL/wheels" "kubernetes==$K8S_CLIENT_VERSION" pyyaml six
  # Without its dependencies: only kserve/models is used, not the model server they are for.
  "$venv/bin/pip" install -q --no-index --no-deps --find-links "$DL/wheels" "kserve==$KSERVE_SDK_VERSION"
  echo "$stamp" >"$venv/.version"
}
