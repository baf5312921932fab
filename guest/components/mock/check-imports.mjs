#!/usr/bin/env node
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Checks the wasi:nn imports of core modules (<guest>.core.wasm) against the canonical-ABI
// lowering of each WIT version (the table of the wasi-nn ABI notes, section 5.3), and that a
// library guest imports nothing else. Prints one line per import and "ok" or the mismatches.
//
//   node check-imports.mjs [--jco PREFIX] CORE.wasm...
import { readFileSync } from "node:fs";
import { takeJcoPrefix, wasmTools } from "./jco.mjs";

const args = process.argv.slice(2);
const tools = await wasmTools(takeJcoPrefix(args));

const i = "i32";
const common = {
  "tensor/[constructor]tensor": [[i, i, i, i, i], [i]],
  "tensor/[method]tensor.dimensions": [[i, i], []],
  "tensor/[method]tensor.ty": [[i], [i]],
  "tensor/[method]tensor.data": [[i, i], []],
  "tensor/[resource-drop]tensor": [[i], []],
  "errors/[method]error.code": [[i], [i]],
  "errors/[method]error.data": [[i, i], []],
  "errors/[resource-drop]error": [[i], []],
  "inference/[resource-drop]graph-execution-context": [[i], []],
  "graph/[method]graph.init-execution-context": [[i, i], []],
  "graph/load": [[i, i, i, i, i], []],
  "graph/load-by-name": [[i, i, i], []],
  "graph/[resource-drop]graph": [[i], []],
};
const legacy = {
  ...common,
  "inference/[method]graph-execution-context.set-input": [[i, i, i, i, i], []],
  "inference/[method]graph-execution-context.compute": [[i, i], []],
  "inference/[method]graph-execution-context.get-output": [[i, i, i, i], []],
};
const EXPECTED = {
  "0.2.0-rc-2024-10-28": { ...common, "inference/[method]graph-execution-context.compute": [[i, i, i, i], []] },
  "0.2.0-rc-2024-08-19": legacy,
  "0.2.0-rc-2024-06-25": { ...legacy, "errors/[constructor]error": [[i, i, i], [i]] },
};

let bad = 0;
for (const path of args) {
  const wat = await tools.print(readFileSync(path));
  const types = new Map();
  for (const m of wat.matchAll(/\(type \(;(\d+);\) \(func((?: \(param [^)]*\))*)((?: \(result [^)]*\))*)\)\)/g)) {
    const list = (s, kw) => [...s.matchAll(new RegExp(`\\(${kw}([^)]*)\\)`, "g"))].flatMap((x) => x[1].trim().split(/\s+/).filter(Boolean));
    types.set(m[1], [list(m[2], "param"), list(m[3], "result")]);
  }
  const problems = [];
  const isLibrary = /\(export "run"/.test(wat);
  console.log(`${path}${isLibrary ? " (library)" : ""}:`);
  for (const m of wat.matchAll(/\(import "([^"]+)" "([^"]+)" \(func (?:\$\S+ )?(?:\(;\d+;\) )?\(type (\d+)\)/g)) {
    const [, module, name, typeIdx] = m;
    const [params, results] = types.get(typeIdx) || [[], []];
    const sig = `(${params.join(" ")}) -> (${results.join(" ")})`;
    const nn = module.match(/^wasi:nn\/([a-z-]+)@(.+)$/);
    if (!nn) {
      console.log(`  ${module} ${name} ${sig}`);
      if (isLibrary) problems.push(`a library imports ${module} ${name}`);
      continue;
    }
    const want = EXPECTED[nn[2]]?.[`${nn[1]}/${name}`];
    const ok = want && want[0].join(" ") === params.join(" ") && want[1].join(" ") === results.join(" ");
    console.log(`  ${module} ${name} ${sig}${ok ? "" : "  <- MISMATCH"}`);
    if (!ok) problems.push(want ? `${name}: ${sig}, expected (${want[0].join(" ")}) -> (${want[1].join(" ")})` : `${module} ${name}: not in the WIT table`);
  }
  if (!/\(export "cabi_realloc"/.test(wat)) problems.push("no cabi_realloc export");
  console.log(problems.length ? `  FAIL: ${problems.join("; ")}` : "  ok");
  bad += problems.length;
}
process.exit(bad ? 1 : 0);
