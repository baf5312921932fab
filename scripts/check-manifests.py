#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Checks Kubernetes and KServe manifests offline against the API models generated from their
OpenAPI schemas: PyPI `kubernetes` (core and apps objects) and the `kserve` SDK's models (made
from KServe's CRDs). Every field must be one the schema has, with a value of its type, and every
field the schema requires must be there. No cluster is needed (or reachable here).

  check-manifests.py FILE.yaml...      (exit 0: all valid; 1: each problem printed as FILE: PATH: WHY)

Run with the venv scripts/deps/k8s-schemas.sh makes (.deps/venv-k8s-schemas/bin/python).
"""
import importlib
import os
import re
import sys
import types

import kubernetes
import kubernetes.client.models as k8s
import yaml

# kserve/__init__ starts its model server's imports; only kserve/models is wanted, so the package
# is entered without running it.
_kserve_dir = os.path.join(os.path.dirname(os.path.dirname(kubernetes.__file__)), "kserve")
_pkg = types.ModuleType("kserve")
_pkg.__path__ = [os.path.abspath(_kserve_dir)]
sys.modules.setdefault("kserve", _pkg)
kserve = importlib.import_module("kserve.models")

KINDS = {
    ("apps/v1", "Deployment"): k8s.V1Deployment,
    ("v1", "Service"): k8s.V1Service,
    ("v1", "ConfigMap"): k8s.V1ConfigMap,
    ("v1", "Secret"): k8s.V1Secret,
    ("networking.k8s.io/v1", "NetworkPolicy"): k8s.V1NetworkPolicy,
    ("serving.kserve.io/v1alpha1", "ServingRuntime"): kserve.V1alpha1ServingRuntime,
    ("serving.kserve.io/v1alpha1", "ClusterServingRuntime"): kserve.V1alpha1ClusterServingRuntime,
    ("serving.kserve.io/v1beta1", "InferenceService"): kserve.V1beta1InferenceService,
}
SCALARS = {"str": (str,), "int": (int,), "bool": (bool,), "float": (int, float), "datetime": (str,)}


def model_class(name):
    return getattr(k8s, name, None) or getattr(kserve, name, None)


def required_fields(cls):
    # The kubernetes client's models are pydantic: they know what is required. The kserve SDK's
    # older generator states it only in its setters, so nothing is required there.
    fields = getattr(cls, "model_fields", None)
    if not fields:
        return []
    return [n for n, f in fields.items() if f.is_required()]


def check(value, type_name, path, problems):
    type_name = type_name.strip()
    m = re.fullmatch(r"(?:List|list)\[(.+)\]", type_name)
    if m:
        if not isinstance(value, list):
            problems.append(f"{path}: a list is expected, not {type(value).__name__}")
            return
        for i, item in enumerate(value):
            check(item, m.group(1), f"{path}[{i}]", problems)
        return
    m = re.fullmatch(r"(?:Dict\[str, *(.+)\]|dict\(str, *(.+)\))", type_name)
    if m:
        if not isinstance(value, dict):
            problems.append(f"{path}: a map is expected, not {type(value).__name__}")
            return
        for k, v in value.items():
            check(v, m.group(1) or m.group(2), f"{path}.{k}", problems)
        return
    if type_name == "object":  # int-or-string, quantities, free-form
        return
    if type_name in SCALARS:
        ok = isinstance(value, SCALARS[type_name]) and not (type_name == "int" and isinstance(value, bool))
        if not ok:
            problems.append(f"{path}: {type_name} expected, got {value!r}")
        return
    cls = model_class(type_name)
    if cls is None:
        problems.append(f"{path}: the schema's type {type_name} is unknown to this checker")
        return
    check_object(value, cls, path, problems)


def check_object(value, cls, path, problems):
    if not isinstance(value, dict):
        problems.append(f"{path}: an object ({cls.__name__}) is expected, not {type(value).__name__}")
        return
    by_json = {json_name: attr for attr, json_name in cls.attribute_map.items()}
    for key, item in value.items():
        attr = by_json.get(key)
        if attr is None:
            near = [k for k in by_json if k.lower() == key.lower() or k.replace("_", "") == key.replace("_", "")]
            problems.append(f"{path}.{key}: no such field in {cls.__name__}" + (f" (did you mean {near[0]}?)" if near else ""))
            continue
        check(item, cls.openapi_types[attr], f"{path}.{key}", problems)
    for attr in required_fields(cls):
        json_name = cls.attribute_map.get(attr, attr)
        if json_name not in value:
            problems.append(f"{path}: {json_name} is required in {cls.__name__}")


def main(paths):
    if not paths:
        print(__doc__.strip().splitlines()[-3], file=sys.stderr)
        return 2
    problems = []
    for p in paths:
        try:
            docs = [d for d in yaml.safe_load_all(open(p)) if d is not None]
        except (OSError, yaml.YAMLError) as e:
            problems.append(f"{p}: {e}")
            continue
        for i, doc in enumerate(docs):
            where = f"{p}: document {i + 1}"
            cls = KINDS.get((doc.get("apiVersion"), doc.get("kind"))) if isinstance(doc, dict) else None
            if cls is None:
                problems.append(f"{where}: apiVersion/kind {doc.get('apiVersion')}/{doc.get('kind')} is not one this checker knows"
                                if isinstance(doc, dict) else f"{where}: not an object")
                continue
            found = []
            check_object(doc, cls, doc["kind"], found)
            problems += [f"{where}: {f}" for f in found]
    for line in problems:
        print(line)
    if not problems:
        print(f"{len(paths)} file(s): every object matches its Kubernetes/KServe schema")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
