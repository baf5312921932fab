#!/usr/bin/env node
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Serves an HTTP component guest (KIND http) in Node against the stand-in wasi:nn of
// wasi-nn-mock.mjs: jco transpiles it, its wasi:http and wasi:io imports go to jco's
// preview2-shim (whose HTTPServer calls the guest's incoming-handler), its wasi:nn imports to the
// mock (graphs "chat", "echo", "digits"). A check of the guests' side of the canonical ABI
// without a wasi:http host, not a test of any server.
//
//   node serve.mjs [--jco PREFIX] --addr HOST:PORT COMPONENT.wasm
//
// Prints "Serving HTTP on http://HOST:PORT/" on stderr once listening (as wasmtime serve and
// wasinn serve do; port 0 picks a free one), so tests/serve/serve_test.py can drive it.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, resolve, dirname } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { jcoCli, takeJcoPrefix } from "./jco.mjs";

const args = process.argv.slice(2);
const prefix = takeJcoPrefix(args);
if (args.length !== 3 || args[0] !== "--addr") {
  process.stderr.write("usage: serve.mjs [--jco PREFIX] --addr HOST:PORT COMPONENT.wasm\n");
  process.exit(2);
}
const [host, port] = [args[1].slice(0, args[1].lastIndexOf(":")), Number(args[1].slice(args[1].lastIndexOf(":") + 1))];
const component = resolve(args[2]);

const dir = mkdtempSync(join(tmpdir(), "wit-mock-serve-"));
const cleanup = () => rmSync(dir, { recursive: true, force: true });
process.on("exit", cleanup);
for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => process.exit(0));
symlinkSync(join(prefix, "node_modules"), join(dir, "node_modules"));
const mock = pathToFileURL(join(dirname(fileURLToPath(import.meta.url)), "wasi-nn-mock.mjs")).href;
const name = basename(component, ".wasm").replace(/\./g, "_");
execFileSync(process.execPath, [jcoCli(prefix), "transpile", component, "-o", dir, "--name", name, "-q",
                                "--no-typescript", "--map", `wasi:nn/*=${mock}`], { stdio: "inherit" });

const { HTTPServer } = await import(pathToFileURL(join(prefix, "node_modules/@bytecodealliance/preview2-shim/dist/nodejs/http.js")).href);
const guest = await import(pathToFileURL(join(dir, `${name}.js`)).href);
if (!guest.incomingHandler) {
  process.stderr.write(`serve.mjs: ${component} exports no wasi:http/incoming-handler\n`);
  process.exit(2);
}
const server = new HTTPServer(guest.incomingHandler);
server.listen(port, host);
const addr = server.address();
process.stderr.write(`Serving HTTP on http://${host}:${addr.port}/\n`);
