#!/usr/bin/env node
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Runs a component guest in Node against the stand-in wasi:nn of wasi-nn-mock.mjs: jco transpiles
// it, its WASI imports go to jco's preview2-shim (the whole file system is preopened as "/", so
// pass absolute paths), its wasi:nn imports to the mock. A check of the guests' canonical ABI
// without wasinn, not a test of wasinn.
//
//   node run.mjs [--jco PREFIX] COMPONENT.wasm [GUEST ARGS...]
//
// A command guest runs its wasi:cli/run export with the guest arguments; the exit status is the
// guest's (non-zero exit codes become 1, as on any WASI 0.2 host). A library guest's run() is
// called and printed as "run: N". The digits model needs WIT_MOCK_DIGITS_X (test_x.f32) and
// WIT_MOCK_DIGITS_LOGITS (its logits from a real run: classify_digits' LOGITS_OUT).
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, resolve, dirname } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { jcoCli, takeJcoPrefix } from "./jco.mjs";

const args = process.argv.slice(2);
const prefix = takeJcoPrefix(args);
if (args.length < 1) {
  process.stderr.write("usage: run.mjs [--jco PREFIX] COMPONENT.wasm [GUEST ARGS...]\n");
  process.exit(2);
}
const component = resolve(args[0]);
const guestArgs = args.slice(1);
const jco = jcoCli(prefix);

const dir = mkdtempSync(join(tmpdir(), "wit-mock-"));
process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
symlinkSync(join(prefix, "node_modules"), join(dir, "node_modules"));
const mock = pathToFileURL(join(dirname(fileURLToPath(import.meta.url)), "wasi-nn-mock.mjs")).href;
const name = basename(component, ".wasm").replace(/\./g, "_");
execFileSync(process.execPath, [jco, "transpile", component, "-o", dir, "--name", name, "-q",
                                "--no-typescript", "--map", `wasi:nn/*=${mock}`], { stdio: "inherit" });

const cli = await import(pathToFileURL(join(prefix, "node_modules/@bytecodealliance/preview2-shim/dist/nodejs/cli.js")).href);
cli._setArgs([basename(component, ".component.wasm"), ...guestArgs]);
const guest = await import(pathToFileURL(join(dir, `${name}.js`)).href);
if (guest.run && typeof guest.run.run === "function") {
  guest.run.run(); // wasi:cli/run; the guest's exit ends the process through the shim
  process.exit(0);
} else if (typeof guest.run === "function") {
  process.stdout.write(`run: ${guest.run()}\n`);
} else {
  process.stderr.write(`run.mjs: ${component} exports neither wasi:cli/run nor run\n`);
  process.exit(2);
}
