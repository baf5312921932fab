#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Broken copies of deploy/kserve/ must fail tests/deploy/kserve_pod_spec.py's check with each
# mistake named: the metrics on Knative's queue-proxy port 9090 (the runtime's first version), a
# port declared in the runtime (merged with the gRPC InferenceService's: two ports, which Knative
# refuses), a routed port wasinn does not listen on, and a served port RawDeployment does not declare.
#   kserve_pod_spec_catches_errors.sh PYTHON SOURCE_DIR
set -euo pipefail
py=$1 src=$2
scratch=$(mktemp -d); trap 'rm -rf "$scratch"' EXIT
expect() {  # NAME WANT...: the check fails on $scratch and prints every WANT
  local name=$1; shift
  if out=$("$py" "$src/tests/deploy/kserve_pod_spec.py" check "$scratch"); then
    echo "$name: the broken manifests passed:"; echo "$out"; exit 1
  fi
  for want in "$@"; do
    grep -qF -- "$want" <<<"$out" || { echo "$name: not reported: $want"; echo "$out"; exit 1; }
  done
  echo "$name: caught"
}
fresh() { rm -rf "$scratch/deploy"; mkdir -p "$scratch/deploy"; cp -r "$src/deploy/kserve" "$scratch/deploy/"; }
rt=$scratch/deploy/kserve/wasinn-servingruntime.yaml
grpc=$scratch/deploy/kserve/wasinn-inferenceservice-grpc.yaml

fresh
sed -i -e 's/"0.0.0.0:8002"/"0.0.0.0:9090"/' -e 's/prometheus.kserve.io\/port: "8002"/prometheus.kserve.io\/port: "9090"/' "$rt"
expect "metrics on 9090" "--metrics-addr port 9090 is taken in the pod: autoscaler metrics (Knative's queue-proxy)"

fresh
sed -i 's/^      securityContext:/      ports: [{containerPort: 8080, name: http1, protocol: TCP}]\n      securityContext:/' "$rt"
expect "a port in the runtime" \
  "InferenceService wasinn-digits-grpc (Serverless): 2 container ports after KServe merges the runtime's and the InferenceService's; Knative refuses more than one"

fresh
sed -i 's/{name: h2c, containerPort: 9000, protocol: TCP}/{name: h2c, containerPort: 9001, protocol: TCP}/' "$grpc"
expect "a routed port nobody serves" "InferenceService wasinn-digits-grpc (Serverless): traffic goes to port 9001, where wasinn does not listen"

fresh
sed -i '/- {name: grpc, containerPort: 9000, protocol: TCP}/d' "$grpc"
expect "gRPC undeclared in RawDeployment" \
  "InferenceService wasinn-digits-raw (RawDeployment): --oip-grpc port 9000 is not declared, so KServe's Service does not reach it"
