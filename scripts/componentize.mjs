#!/usr/bin/env node
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Turns a core wasm module into a component with jco's bundled wasm-tools (componentEmbed, then
// componentNew). `jco embed --wit DIR` cannot read files in jco 1.35.0, so the WIT is read here
// and handed over as source text.
//
//   node componentize.mjs --core IN.wasm --wit FILE.wit [--wit MORE.wit ...] [--wit-deps DIR|FILE ...]
//                         --world NAME --adapter command|reactor|none --out OUT.wasm [--jco PREFIX]
//
// --wit: the first file declares the package (wit/wasi-nn/<version>/wasi-nn.wit); further files
//   hold only more worlds or interfaces of that package, with no `package` line, and are
//   appended to it (guest/components/worlds.wit adds the guests' worlds).
// --wit-deps: a directory of WIT packages the world uses (one package a file, as the deps/ of a
//   wit-bindgen WIT tree: Wasmtime's wasi:http, io, clocks, ...), or one such .wit file; each
//   file's package is appended as a nested `package NAME { ... }` block, so the source stays one
//   text. Repeatable. A package that uses the first file's package cannot be nested this way (the
//   two would depend on each other): then the first file is a package holding only the world
//   (guest/components/worlds_ext.wit), and every package it uses comes through --wit-deps.
// --adapter command: the core module is a WASI preview1 command; jco's
//   wasi_snapshot_preview1.command.wasm adapts it to WASI 0.2. reactor: a preview1 reactor (no
//   _start; libc's stdio for what libc++ writes on abort), through the reactor adapter. none: the
//   module must import no wasi_snapshot_preview1 function at all.
// --jco: the prefix that scripts/deps/jco.sh installed into (default $WASINN_JCO, else
//   ~/.cache/wasinn/deps/jco-1.35.0).
import { readFileSync, readdirSync, writeFileSync, existsSync, renameSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

function fail(msg) {
  process.stderr.write(`componentize: ${msg}\n`);
  process.exit(1);
}

function parseArgs(argv) {
  const opts = { wit: [], "wit-deps": [] };
  const single = new Set(["--core", "--world", "--adapter", "--out", "--jco"]);
  for (let i = 0; i < argv.length; ++i) {
    const a = argv[i];
    if (a === "--help" || a === "-h") {
      process.stdout.write(
        "usage: componentize.mjs --core IN.wasm --wit FILE.wit [--wit MORE.wit] [--wit-deps DIR|FILE]... --world NAME " +
          "--adapter command|reactor|none --out OUT.wasm [--jco PREFIX]\n");
      process.exit(0);
    }
    if (a !== "--wit" && a !== "--wit-deps" && !single.has(a)) fail(`unknown argument '${a}' (try --help)`);
    if (i + 1 >= argv.length) fail(`${a} needs a value`);
    const v = argv[++i];
    if (a === "--wit" || a === "--wit-deps") opts[a.slice(2)].push(v);
    else opts[a.slice(2)] = v;
  }
  for (const k of ["core", "world", "adapter", "out"]) if (!opts[k]) fail(`--${k} is required`);
  if (opts.wit.length === 0) fail("--wit is required");
  if (!["command", "reactor", "none"].includes(opts.adapter)) {
    fail(`--adapter must be command, reactor or none, not '${opts.adapter}'`);
  }
  return opts;
}

function readOrFail(path, what) {
  if (!existsSync(path)) fail(`${what} ${path} does not exist`);
  return readFileSync(path);
}

const opts = parseArgs(process.argv.slice(2));
const prefix = resolve(opts.jco || process.env.WASINN_JCO || join(homedir(), ".cache/wasinn/deps/jco-1.35.0"));
const jcoPkg = join(prefix, "node_modules/@bytecodealliance/jco/package.json");
if (!existsSync(jcoPkg)) fail(`jco is not installed in ${prefix} (run scripts/fetch-deps.sh jco)`);
const require = createRequire(jcoPkg);
let tools;
try {
  tools = await import(pathToFileURL(require.resolve("@bytecodealliance/jco-transpile/wasm-tools")).href);
} catch (e) {
  fail(`cannot load jco's wasm-tools from ${prefix}: ${e.message}`);
}

// WIT source: the package file, then the extra files appended to the same package.
let witSource = "";
opts.wit.forEach((path, i) => {
  const text = readOrFail(path, "WIT file").toString("utf8");
  const hasPackage = /^\s*package\s+[^;{]+;/m.test(text);
  if (i === 0 && !hasPackage) fail(`${path}: the first --wit file must declare its package`);
  if (i > 0 && hasPackage) fail(`${path}: only the first --wit file may have a package line`);
  witSource += `${text}\n`;
});
for (const dep of opts["wit-deps"]) {
  if (!existsSync(dep)) fail(`--wit-deps ${dep} does not exist`);
  const isDir = statSync(dep).isDirectory();
  const paths = isDir
    ? readdirSync(dep).filter((f) => f.endsWith(".wit")).sort().map((f) => join(dep, f))
    : [dep];
  if (paths.length === 0) fail(`--wit-deps ${dep} has no .wit file`);
  for (const path of paths) {
    const text = readFileSync(path, "utf8");
    const packages = [...text.matchAll(/^\s*package\s+([^;{\s]+)\s*;/gm)];
    if (packages.length !== 1) fail(`${path}: expected one package line, found ${packages.length}`);
    const m = packages[0];
    witSource += `package ${m[1]} {\n${text.slice(0, m.index)}${text.slice(m.index + m[0].length)}\n}\n`;
  }
}

const core = readOrFail(opts.core, "core module");
let imports;
try {
  imports = WebAssembly.Module.imports(new WebAssembly.Module(core));
} catch (e) {
  fail(`${opts.core} is not a valid core wasm module: ${e.message}`);
}
if (opts.adapter === "none") {
  const wasi = imports.filter((imp) => imp.module === "wasi_snapshot_preview1").map((imp) => imp.name);
  if (wasi.length) {
    fail(`${opts.core} imports WASI preview1 (${wasi.join(", ")}) but --adapter none was given; ` +
         "build it without libc's WASI parts or use --adapter command");
  }
}

let embedded;
try {
  embedded = await tools.componentEmbed({ binary: core, witSource, world: opts.world, stringEncoding: "utf8" });
} catch (e) {
  fail(`embedding world '${opts.world}' of ${opts.wit.join(" + ")} into ${opts.core}: ${e.payload ?? e.message ?? e}`);
}
const adapters = [];
if (opts.adapter === "command" || opts.adapter === "reactor") {
  const adapterPath = join(prefix, `node_modules/@bytecodealliance/jco/lib/wasi_snapshot_preview1.${opts.adapter}.wasm`);
  adapters.push(["wasi_snapshot_preview1", readOrFail(adapterPath, "WASI adapter")]);
}
let component;
try {
  component = await tools.componentNew(embedded, adapters);
} catch (e) {
  fail(`making a component of ${opts.core} (world '${opts.world}'): ${e.payload ?? e.message ?? e}`);
}
// Written beside and renamed, so an interrupted build never leaves a truncated component.
const tmp = `${opts.out}.tmp`;
writeFileSync(tmp, component);
renameSync(tmp, opts.out);
