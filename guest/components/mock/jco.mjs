// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Where scripts/deps/jco.sh installed jco, for the scripts beside this file.
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { homedir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

// Takes a leading "--jco PREFIX" off args; else $WASINN_JCO, else ~/.cache/wasinn/deps/jco-1.35.0.
export function takeJcoPrefix(args) {
  let prefix = process.env.WASINN_JCO || join(homedir(), ".cache/wasinn/deps/jco-1.35.0");
  if (args[0] === "--jco") {
    prefix = args[1];
    args.splice(0, 2);
  }
  if (!existsSync(join(prefix, "node_modules/@bytecodealliance/jco/package.json"))) {
    process.stderr.write(`no jco in ${prefix} (run scripts/fetch-deps.sh jco, or give --jco PREFIX)\n`);
    process.exit(2);
  }
  return prefix;
}

export const jcoCli = (prefix) => join(prefix, "node_modules/@bytecodealliance/jco/dist/jco.js");

// jco's bundled wasm-tools functions (print, componentNew, ...).
export async function wasmTools(prefix) {
  const require = createRequire(join(prefix, "node_modules/@bytecodealliance/jco/package.json"));
  return import(pathToFileURL(require.resolve("@bytecodealliance/jco-transpile/wasm-tools")).href);
}
