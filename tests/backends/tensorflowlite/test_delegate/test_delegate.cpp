// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A real external TensorFlow Lite delegate for the tests: libwasinn_test_delegate.so exports the
// standard entry points (tflite_plugin_create_delegate / tflite_plugin_destroy_delegate), claims
// the ADD and FULLY_CONNECTED nodes of a model through the classic TfLiteDelegate API and runs
// them with its own kernels (float, and int8 fully connected with XNNPACK's fp32 requantization),
// counting every node it runs.
//
// Options (strings, as every external delegate takes them):
//   ops            "add,fully_connected" (default) or a subset: the ops it claims
//   count_file     a file rewritten after each node run: "invocations N\noptions k=v;...\n", so a
//                  test can read what happened inside a wasinn child process
//   fail_create    "true": refuse to create, through report_error
//   fail_prepare   "true": Prepare reports an error and fails
//   fail_invoke    "true": every kernel run reports an error and fails
//   crash_prepare  "true": abort() in Prepare (the load isolation must contain it)
//   opaque         "true": hand out a delegate with no Prepare, as opaque-API delegates are
// In-process tests read the counters through wasinn_test_delegate_stats().
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "tflite_delegate_api.h"

namespace {

// builtin_op_data.h: the first members of the two ops' parameters.
enum { kActNone = 0, kActRelu = 1, kActReluN1To1 = 2, kActRelu6 = 3 };
struct FullyConnectedParams {
  int activation;
  int weights_format;
  bool keep_num_dims;
};
struct AddParams {
  int activation;
};

std::atomic<uint64_t> g_invocations{0};
std::atomic<uint64_t> g_kernel_ns{0};
std::atomic<uint64_t> g_live{0};

struct TestDelegate {
  TfLiteDelegate base{};
  std::map<std::string, std::string> options;
  std::string options_text;  // "k=v;..." for the count file
  bool claims(int builtin) const {
    const auto it = options.find("ops");
    const std::string ops = it == options.end() ? "add,fully_connected" : it->second;
    const char* name = builtin == kTfLiteBuiltinAdd ? "add" : "fully_connected";
    return ops.find(name) != std::string::npos;
  }
  bool flag(const char* key) const {
    const auto it = options.find(key);
    return it != options.end() && it->second == "true";
  }
};

TestDelegate* of(TfLiteDelegate* d) { return static_cast<TestDelegate*>(d->data_); }

void write_count_file(const TestDelegate& d) {
  const auto it = d.options.find("count_file");
  if (it == d.options.end()) return;
  const std::string tmp = it->second + ".tmp";
  if (FILE* f = std::fopen(tmp.c_str(), "w")) {
    std::fprintf(f, "invocations %llu\noptions %s\n", static_cast<unsigned long long>(g_invocations.load()),
                 d.options_text.c_str());
    std::fclose(f);
    std::rename(tmp.c_str(), it->second.c_str());  // readers never see half a file
  }
}

size_t elements(const TfLiteIntArray* dims) {
  size_t n = 1;
  for (int i = 0; i < dims->size; ++i) n *= static_cast<size_t>(dims->data[i]);
  return n;
}

float activate(float v, int act) {
  switch (act) {
    case kActRelu: return std::max(v, 0.0f);
    case kActReluN1To1: return std::clamp(v, -1.0f, 1.0f);
    case kActRelu6: return std::clamp(v, 0.0f, 6.0f);
    default: return v;
  }
}

// Per kernel: what it needs of the original node, copied at init (the only time the delegate
// may call GetNodeAndRegistration; the interpreter forbids it once Prepare has returned).
struct Kernel {
  TestDelegate* delegate = nullptr;
  int builtin = -1;
  std::vector<int> inputs, outputs;
  int activation = kActNone;
};

TfLiteTensor* tensor(TfLiteContext* c, const TfLiteIntArray* ids, int i) {
  return i < ids->size && ids->data[i] >= 0 ? &c->tensors[ids->data[i]] : nullptr;
}
TfLiteTensor* tensor(TfLiteContext* c, const std::vector<int>& ids, size_t i) {
  return i < ids.size() && ids[i] >= 0 ? &c->tensors[ids[i]] : nullptr;
}

// The quantization scale of a tensor for output channel `c` (per-tensor or per-channel).
float scale_of(const TfLiteTensor* t, int c) {
  if (t->quantization.type == kTfLiteAffineQuantization && t->quantization.params) {
    const auto* q = static_cast<const TfLiteAffineQuantization*>(t->quantization.params);
    if (q->scale && q->scale->size > 0) return q->scale->data[q->scale->size == 1 ? 0 : c];
  }
  return t->params.scale;
}

TfLiteStatus fully_connected(TfLiteContext* c, const Kernel& n) {
  const TfLiteTensor *in = tensor(c, n.inputs, 0), *w = tensor(c, n.inputs, 1), *bias = tensor(c, n.inputs, 2);
  TfLiteTensor* out = tensor(c, n.outputs, 0);
  const int act = n.activation;
  const int units = w->dims->data[0], depth = w->dims->data[1];
  const size_t rows = elements(in->dims) / static_cast<size_t>(depth);
  if (in->type == kTfLiteFloat32) {
    const float *x = static_cast<const float*>(in->data), *wt = static_cast<const float*>(w->data);
    const float* b = bias ? static_cast<const float*>(bias->data) : nullptr;
    float* y = static_cast<float*>(out->data);
    for (size_t r = 0; r < rows; ++r)
      for (int u = 0; u < units; ++u) {
        float acc = b ? b[u] : 0.0f;
        for (int k = 0; k < depth; ++k) acc += x[r * depth + k] * wt[u * depth + k];
        y[r * units + u] = activate(acc, act);
      }
    return kTfLiteOk;
  }
  // int8: XNNPACK's requantization, (float)acc * (in_scale * w_scale / out_scale), rounded to
  // nearest even, clamped to the activation's range.
  const int8_t *x = static_cast<const int8_t*>(in->data), *wt = static_cast<const int8_t*>(w->data);
  const int32_t* b = bias ? static_cast<const int32_t*>(bias->data) : nullptr;
  int8_t* y = static_cast<int8_t*>(out->data);
  const int32_t in_zp = in->params.zero_point, out_zp = out->params.zero_point;
  const float out_scale = out->params.scale;
  float lo = -128.0f, hi = 127.0f;
  if (act == kActRelu || act == kActRelu6) lo = std::max(lo, static_cast<float>(out_zp));
  if (act == kActRelu6) hi = std::min(hi, std::round(6.0f / out_scale) + out_zp);
  for (size_t r = 0; r < rows; ++r)
    for (int u = 0; u < units; ++u) {
      int32_t acc = b ? b[u] : 0;
      for (int k = 0; k < depth; ++k) acc += (static_cast<int32_t>(x[r * depth + k]) - in_zp) * wt[u * depth + k];
      const float scale = in->params.scale * scale_of(w, u) / out_scale;
      float v = std::nearbyint(static_cast<float>(acc) * scale) + static_cast<float>(out_zp);
      y[r * units + u] = static_cast<int8_t>(std::clamp(v, lo, hi));
    }
  return kTfLiteOk;
}

TfLiteStatus add(TfLiteContext* c, const Kernel& n) {
  const TfLiteTensor *a = tensor(c, n.inputs, 0), *b = tensor(c, n.inputs, 1);
  TfLiteTensor* out = tensor(c, n.outputs, 0);
  const size_t na = elements(a->dims), nb = elements(b->dims), no = elements(out->dims);
  const float *x = static_cast<const float*>(a->data), *z = static_cast<const float*>(b->data);
  float* y = static_cast<float*>(out->data);
  for (size_t i = 0; i < no; ++i) y[i] = activate(x[i % na] + z[i % nb], n.activation);
  return kTfLiteOk;
}

void* kernel_init(TfLiteContext* c, const char* buffer, size_t) {
  const auto* params = reinterpret_cast<const TfLiteDelegateParams*>(buffer);
  TfLiteNode* orig = nullptr;
  TfLiteRegistration* reg = nullptr;
  if (c->GetNodeAndRegistration(c, params->nodes_to_replace->data[0], &orig, &reg) != kTfLiteOk) return nullptr;
  auto* k = new Kernel();
  k->delegate = of(params->delegate);
  k->builtin = reg->builtin_code;
  k->inputs.assign(orig->inputs->data, orig->inputs->data + orig->inputs->size);
  k->outputs.assign(orig->outputs->data, orig->outputs->data + orig->outputs->size);
  if (orig->builtin_data)  // both ops' parameters start with the fused activation
    k->activation = static_cast<const AddParams*>(orig->builtin_data)->activation;
  return k;
}

void kernel_free(TfLiteContext*, void* buffer) { delete static_cast<Kernel*>(buffer); }

// Sizes the output as the op does (a resized batch reaches here, not the original node's
// prepare).
TfLiteStatus kernel_prepare(TfLiteContext* c, TfLiteNode* node) {
  const auto* k = static_cast<const Kernel*>(node->user_data);
  if (!k) return kTfLiteError;
  TfLiteTensor* out = tensor(c, k->outputs, 0);
  const TfLiteTensor* in = tensor(c, k->inputs, 0);
  std::vector<int> shape;
  if (k->builtin == kTfLiteBuiltinFullyConnected) {
    const TfLiteTensor* w = tensor(c, k->inputs, 1);
    shape = {static_cast<int>(elements(in->dims) / w->dims->data[1]), w->dims->data[0]};
  } else {
    const TfLiteTensor* b = tensor(c, k->inputs, 1);
    const TfLiteTensor* big = elements(b->dims) > elements(in->dims) ? b : in;
    shape.assign(big->dims->data, big->dims->data + big->dims->size);
  }
  if (out->dims && out->dims->size == static_cast<int>(shape.size()) &&
      std::equal(shape.begin(), shape.end(), out->dims->data))
    return kTfLiteOk;
  return c->ResizeTensorExplicit(c, out, static_cast<int>(shape.size()), shape.data());
}

TfLiteStatus kernel_invoke(TfLiteContext* c, TfLiteNode* node) {
  const auto* k = static_cast<const Kernel*>(node->user_data);
  if (k->delegate->flag("fail_invoke")) {
    c->ReportError(c, "test delegate: invoke failed on purpose (fail_invoke)");
    return kTfLiteError;
  }
  const auto start = std::chrono::steady_clock::now();
  const TfLiteStatus st = k->builtin == kTfLiteBuiltinFullyConnected ? fully_connected(c, *k) : add(c, *k);
  g_kernel_ns += static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count());
  ++g_invocations;
  write_count_file(*k->delegate);
  return st;
}

bool supported(TfLiteContext* c, const TestDelegate& d, const TfLiteNode* n, int builtin) {
  if (!d.claims(builtin)) return false;
  const TfLiteTensor *in = tensor(c, n->inputs, 0), *out = tensor(c, n->outputs, 0);
  if (!in || !out || in->type != out->type) return false;
  if (builtin == kTfLiteBuiltinAdd) return in->type == kTfLiteFloat32 && n->inputs->size == 2;
  const TfLiteTensor* w = tensor(c, n->inputs, 1);
  if (!w || w->dims->size != 2 || w->type != in->type) return false;
  const auto* p = static_cast<const FullyConnectedParams*>(n->builtin_data);
  if (p && p->keep_num_dims) return false;
  return in->type == kTfLiteFloat32 || in->type == kTfLiteInt8;
}

TfLiteStatus prepare(TfLiteContext* c, TfLiteDelegate* delegate) {
  TestDelegate& d = *of(delegate);
  if (d.flag("crash_prepare")) std::abort();
  if (d.flag("fail_prepare")) {
    c->ReportError(c, "test delegate: Prepare failed on purpose (fail_prepare)");
    return kTfLiteError;
  }
  TfLiteIntArray* plan = nullptr;
  if (c->GetExecutionPlan(c, &plan) != kTfLiteOk) return kTfLiteError;
  std::vector<int> nodes;
  for (int i = 0; i < plan->size; ++i) {
    TfLiteNode* n = nullptr;
    TfLiteRegistration* reg = nullptr;
    if (c->GetNodeAndRegistration(c, plan->data[i], &n, &reg) != kTfLiteOk) return kTfLiteError;
    const int code = reg->builtin_code;
    if ((code == kTfLiteBuiltinAdd || code == kTfLiteBuiltinFullyConnected) && supported(c, d, n, code))
      nodes.push_back(plan->data[i]);
  }
  TfLiteRegistration kernel{};
  kernel.init = kernel_init;
  kernel.free = kernel_free;
  kernel.prepare = kernel_prepare;
  kernel.invoke = kernel_invoke;
  kernel.builtin_code = kTfLiteBuiltinDelegate;
  kernel.custom_name = "WasinnTestDelegate";
  kernel.version = 1;
  // One kernel per node, so every tensor a kernel reads or writes is an input or output of a
  // node in the plan, which the interpreter allocates.
  for (int node : nodes) {
    alignas(TfLiteIntArray) int one[2] = {1, node};  // a TfLiteIntArray of size 1
    if (c->ReplaceNodeSubsetsWithDelegateKernels(c, kernel, reinterpret_cast<TfLiteIntArray*>(one), delegate) !=
        kTfLiteOk)
      return kTfLiteError;
  }
  return kTfLiteOk;
}

}  // namespace

extern "C" {

__attribute__((visibility("default"))) TfLiteDelegate* tflite_plugin_create_delegate(
    char** keys, char** values, size_t num_options, void (*report_error)(const char*)) {
  auto* d = new TestDelegate();
  for (size_t i = 0; i < num_options; ++i) {
    d->options[keys[i]] = values[i];
    d->options_text += std::string(d->options_text.empty() ? "" : ";") + keys[i] + "=" + values[i];
  }
  if (d->flag("fail_create")) {
    if (report_error) report_error("test delegate: refused to create (fail_create)");
    delete d;
    return nullptr;
  }
  d->base.data_ = d;
  if (d->flag("opaque"))
    d->base.opaque_delegate_builder = d;  // a stand-in, never called
  else
    d->base.Prepare = prepare;
  d->base.flags = kTfLiteDelegateFlagsNone;
  ++g_live;
  write_count_file(*d);
  return &d->base;
}

__attribute__((visibility("default"))) void tflite_plugin_destroy_delegate(TfLiteDelegate* d) {
  if (!d) return;
  --g_live;
  delete of(d);
}

// Node runs, nanoseconds spent in the kernels, and delegates alive, since the library loaded.
__attribute__((visibility("default"))) void wasinn_test_delegate_stats(uint64_t* invocations, uint64_t* kernel_ns,
                                                                       uint64_t* live) {
  if (invocations) *invocations = g_invocations.load();
  if (kernel_ns) *kernel_ns = g_kernel_ns.load();
  if (live) *live = g_live.load();
}

}  // extern "C"
