// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A stand-in wasi:nn host in JavaScript, for checking the component guests' canonical ABI
// (imports, return pointers, cabi_realloc, own handles, error resources) without wasinn: run.mjs
// transpiles a guest with jco and binds its wasi:nn imports to this module. It serves all three
// WIT versions at once: compute(inputs) is 10-28's, set-input/compute()/get-output 08-19/06-25's.
//
// Graphs it knows (anything else fails like a host without that model):
//   digits  load-by-name("digits"), or load of bytes that start like an ONNX model (0x08) with
//           encoding onnx. One FP32 input "input" [N, 64]; output "logits" [N, 10] FP32, read
//           for each row from reference logits (WIT_MOCK_DIGITS_X rows, WIT_MOCK_DIGITS_LOGITS
//           their logits from a real run), so the guest's LOGITS_OUT can be compared byte for
//           byte. A row not in the fixture is a runtime-error.
//   chat    load-by-name("chat") or encoding ggml: input "prompt" U8 (and an optional
//           "metadata", ignored) -> output "text" U8 ("mock reply to: " + prompt).
//   echo    load-by-name("echo"): every input comes back as an output of the same name.
// Errors carry the mock's own data strings; codes follow what wasinn's host is expected to use.
import { readFileSync } from "node:fs";

const DISPOSE = Symbol.dispose || Symbol.for("dispose"); // what jco's bindings call on a drop
const ELEMENT_SIZE = { FP16: 2, FP32: 4, FP64: 8, BF16: 2, U8: 1, I32: 4, I64: 8 };
const stats = { tensorsLive: 0, tensorsMade: 0, contextsLive: 0, graphsLive: 0, errorsLive: 0 };
export const mockStats = stats;
const maxTensors = Number(process.env.WIT_MOCK_MAX_TENSORS || 0);

class NnError {
  constructor(code, data) {
    this._code = code;
    this._data = data;
    stats.errorsLive++;
  }
  code() { return this._code; }
  data() { return this._data; }
  [DISPOSE]() { stats.errorsLive--; }
}
function fail(code, data) {
  throw { payload: new NnError(code, data) };
}

export class Tensor {
  constructor(dimensions, ty, data) {
    if (maxTensors && stats.tensorsLive >= maxTensors) {
      throw new RangeError(`mock: more than ${maxTensors} live tensors`); // a trap for the guest
    }
    this._dims = Uint32Array.from(dimensions);
    this._ty = ty;
    this._data = Uint8Array.from(data);
    stats.tensorsLive++;
    stats.tensorsMade++;
  }
  dimensions() { return this._dims; }
  ty() { return this._ty; }
  data() { return this._data; }
  [DISPOSE]() { stats.tensorsLive--; }
}

function checkTensor(name, t, ty) {
  const want = t._dims.reduce((a, b) => a * b, 1) * ELEMENT_SIZE[t._ty];
  if (t._ty !== ty) fail("invalid-argument", `input '${name}' is ${t._ty}, the model wants ${ty}`);
  if (t._data.length !== want) {
    fail("invalid-argument", `input '${name}' has ${t._data.length} bytes, dimensions [${[...t._dims]}] of ${t._ty} need ${want}`);
  }
}

let digitsRef = null;
function digitsReference() {
  if (digitsRef) return digitsRef;
  const xPath = process.env.WIT_MOCK_DIGITS_X, lPath = process.env.WIT_MOCK_DIGITS_LOGITS;
  if (!xPath || !lPath) fail("runtime-error", "mock: WIT_MOCK_DIGITS_X and WIT_MOCK_DIGITS_LOGITS are not set");
  const x = readFileSync(xPath), logits = readFileSync(lPath);
  const rows = new Map();
  for (let i = 0; i * 256 < x.length; ++i) {
    rows.set(x.subarray(i * 256, i * 256 + 256).toString("hex"), logits.subarray(i * 40, i * 40 + 40));
  }
  digitsRef = rows;
  return rows;
}

const MODELS = {
  digits: {
    run(inputs) {
      const t = inputs.get("input");
      checkTensor("input", t, "FP32");
      if (t._dims.length !== 2 || t._dims[1] !== 64) fail("invalid-argument", `input 'input' must be [N, 64], not [${[...t._dims]}]`);
      const n = t._dims[0], ref = digitsReference(), out = new Uint8Array(n * 40);
      for (let i = 0; i < n; ++i) {
        const row = ref.get(Buffer.from(t._data.subarray(i * 256, i * 256 + 256)).toString("hex"));
        if (!row) fail("runtime-error", `mock: row ${i} is not a row of the digits fixture`);
        out.set(row, i * 40);
      }
      return [["logits", new Tensor([n, 10], "FP32", out)]];
    },
    inputs: ["input"],
  },
  chat: {
    run(inputs) {
      const t = inputs.get("prompt");
      checkTensor("prompt", t, "U8");
      const reply = new TextEncoder().encode("mock reply to: " + new TextDecoder().decode(t._data));
      return [["text", new Tensor([reply.length], "U8", reply)]];
    },
    inputs: ["prompt"],
    optional: ["metadata"], // llama.cpp's config JSON (wit_chat, http_chat): ignored here
  },
  echo: {
    run(inputs) {
      return [...inputs].map(([name, t]) => [name, new Tensor(t._dims, t._ty, t._data)]);
    },
    inputs: null, // any
  },
};

export class Graph {
  constructor(model) {
    this._model = model;
    stats.graphsLive++;
  }
  initExecutionContext() { return new GraphExecutionContext(this._model); }
  [DISPOSE]() { stats.graphsLive--; }
}

export class GraphExecutionContext {
  constructor(model) {
    this._model = model;
    this._inputs = new Map();
    this._outputs = null;
    stats.contextsLive++;
  }
  _run(inputs) {
    const m = MODELS[this._model];
    if (m.inputs) {
      for (const name of inputs.keys()) {
        if (!m.inputs.includes(name) && !(m.optional || []).includes(name)) fail("invalid-argument", `the model has no input named '${name}' (it has ${m.inputs.join(", ")})`);
      }
      for (const name of m.inputs) {
        if (!inputs.has(name)) fail("invalid-argument", `missing input '${name}'`);
      }
    }
    return m.run(inputs);
  }
  // 10-28: compute(list<named-tensor>) -> list<named-tensor>. 08-19/06-25: compute().
  compute(...args) {
    if (args.length === 0) {
      this._outputs = this._run(this._inputs);
      return;
    }
    const inputs = new Map();
    for (const [name, t] of args[0]) {
      if (inputs.has(name)) fail("invalid-argument", `input '${name}' given twice`);
      inputs.set(name, t);
    }
    try {
      return this._run(inputs);
    } finally {
      for (const t of inputs.values()) t[DISPOSE](); // the inputs are own: the host drops them
    }
  }
  setInput(name, t) {
    const m = MODELS[this._model];
    if (m.inputs && !m.inputs.includes(name)) fail("invalid-argument", `the model has no input named '${name}'`);
    this._inputs.set(name, t);
  }
  getOutput(name) {
    if (!this._outputs) fail("invalid-argument", "get-output before compute");
    const o = this._outputs.find(([n]) => n === name);
    if (!o) fail("not-found", `no output named '${name}'`);
    return new Tensor(o[1]._dims, o[1]._ty, o[1]._data);
  }
  [DISPOSE]() { stats.contextsLive--; }
}

export function load(builders, encoding, target) {
  if (target !== "cpu") fail("unsupported-operation", `mock: target ${target}`);
  if (encoding === "onnx") {
    if (builders.length !== 1 || builders[0].length < 16 || builders[0][0] !== 0x08) {
      fail("invalid-argument", "mock: the bytes are not an ONNX model");
    }
    return new Graph("digits");
  }
  if (encoding === "ggml") return new Graph("chat");
  fail("invalid-encoding", `mock: no backend for encoding ${encoding}`);
}

export function loadByName(name) {
  if (!(name in MODELS)) fail("not-found", `no model registered as '${name}'`);
  return new Graph(name);
}

export { NnError as Error };
