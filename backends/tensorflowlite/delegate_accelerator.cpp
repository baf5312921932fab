// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "delegate_accelerator.h"

#include <algorithm>
#include <atomic>
#include <new>
#include <vector>

namespace wasinn::tensorflowlite {
namespace {

thread_local DelegateRequest* current_request = nullptr;
std::atomic<uint64_t> next_request_id{1};

// The TfLiteDelegate LiteRT applies: `base` first, so a pointer to it is one to the whole.
struct CountingDelegate {
  TfLiteDelegate base{};
  TfLiteDelegate* external = nullptr;
  const DelegateLibrary* library = nullptr;
  uint64_t request_id = 0;  // reports go to that request only while it is being compiled
};

CountingDelegate* self_of(TfLiteDelegate* d) { return static_cast<CountingDelegate*>(d->data_); }

std::vector<int> execution_plan(TfLiteContext* context) {
  TfLiteIntArray* plan = nullptr;
  if (context->GetExecutionPlan(context, &plan) != kTfLiteOk || !plan) return {};
  return std::vector<int>(plan->data, plan->data + plan->size);
}

// Prepare may run again when a resize undoes and redoes the delegates; only the compilation's
// own call reports.
TfLiteStatus prepare(TfLiteContext* context, TfLiteDelegate* delegate) {
  CountingDelegate* c = self_of(delegate);
  std::vector<int> before;
  TfLiteStatus status = kTfLiteError;
  try {  // a C++ exception must not unwind through LiteRT's frames
    before = execution_plan(context);
    status = c->external->Prepare(context, c->external);
  } catch (...) {
    if (DelegateRequest* r = current_request; r && r->id == c->request_id)
      r->error = "its Prepare threw a C++ exception";
    return kTfLiteError;
  }
  DelegateRequest* r = current_request;
  if (!r || r->id != c->request_id) return status;
  try {
    std::vector<int> after = execution_plan(context);
    std::sort(after.begin(), after.end());
    int offered = 0, claimed = 0;
    for (int node : before) {
      TfLiteNode* n = nullptr;
      TfLiteRegistration* reg = nullptr;
      // A node another delegate already took is not offered to this one.
      if (context->GetNodeAndRegistration(context, node, &n, &reg) == kTfLiteOk && reg &&
          reg->builtin_code == kTfLiteBuiltinDelegate)
        continue;
      ++offered;
      if (!std::binary_search(after.begin(), after.end(), node)) ++claimed;
    }
    r->offered_nodes = offered;
    r->claimed_nodes = claimed;
    if (status != kTfLiteOk) r->error = "its Prepare failed (TfLiteStatus " + std::to_string(status) + ")";
  } catch (const std::bad_alloc&) {
  }
  return status;
}

TfLiteStatus copy_from_buffer(TfLiteContext* ctx, TfLiteDelegate* d, int handle, TfLiteTensor* t) {
  TfLiteDelegate* e = self_of(d)->external;
  return e->CopyFromBufferHandle(ctx, e, handle, t);
}
TfLiteStatus copy_to_buffer(TfLiteContext* ctx, TfLiteDelegate* d, int handle, TfLiteTensor* t) {
  TfLiteDelegate* e = self_of(d)->external;
  return e->CopyToBufferHandle(ctx, e, handle, t);
}
void free_buffer(TfLiteContext* ctx, TfLiteDelegate* d, int* handle) {
  TfLiteDelegate* e = self_of(d)->external;
  e->FreeBufferHandle(ctx, e, handle);
}

// The deleter LiteRtDestroyDelegateWrapper calls when the compiled model goes.
void destroy_counting(void* delegate) {
  CountingDelegate* c = self_of(static_cast<TfLiteDelegate*>(delegate));
  c->library->destroy(c->external);
  delete c;
}

LiteRtStatus create_delegate(LiteRtRuntimeContext*, LiteRtEnvironment, LiteRtAccelerator, LiteRtOptions,
                             LiteRtDelegateWrapper* out) {
  if (!out) return kLiteRtStatusErrorInvalidArgument;
  *out = nullptr;  // LiteRT skips an accelerator that returns no delegate
  DelegateRequest* r = current_request;
  if (!r || !r->library) return kLiteRtStatusOk;
  try {
    std::string why;
    TfLiteDelegate* external = r->library->create(why);
    if (!external) {
      r->error = "creating it failed: " + why;
      return kLiteRtStatusErrorRuntimeFailure;
    }
    if (!external->Prepare) {
      // Read before destroy: the delegate is gone after it.
      r->error = external->opaque_delegate_builder
                     ? "it is built on TFLite's opaque delegate API (TfLiteOpaqueDelegateBuilder), "
                       "which libLiteRt.so 2.3.0 does not export; only classic TfLiteDelegate "
                       "delegates can run here"
                     : "its TfLiteDelegate has no Prepare function";
      r->library->destroy(external);
      return kLiteRtStatusErrorRuntimeFailure;
    }
    auto* c = new CountingDelegate();
    c->external = external;
    c->library = r->library;
    c->request_id = r->id;
    c->base.data_ = c;
    c->base.Prepare = prepare;
    c->base.flags = external->flags;  // the interpreter reads them from the delegate it applied
    if (external->CopyFromBufferHandle) c->base.CopyFromBufferHandle = copy_from_buffer;
    if (external->CopyToBufferHandle) c->base.CopyToBufferHandle = copy_to_buffer;
    if (external->FreeBufferHandle) c->base.FreeBufferHandle = free_buffer;
    if (LiteRtStatus st = LiteRtWrapDelegate(&c->base, destroy_counting, out)) {
      destroy_counting(&c->base);
      r->error = "LiteRtWrapDelegate failed: " + status_name(st);
      return st;
    }
    r->created = true;
    return kLiteRtStatusOk;
  } catch (const std::bad_alloc&) {
    return kLiteRtStatusErrorMemoryAllocationFailure;
  } catch (...) {  // thrown by the library's create function
    r->error = "creating it threw a C++ exception";
    return kLiteRtStatusErrorRuntimeFailure;
  }
}

LiteRtStatus accelerator_name(LiteRtAccelerator, const char** name) {
  if (!name) return kLiteRtStatusErrorInvalidArgument;
  *name = kDelegateAcceleratorName;
  return kLiteRtStatusOk;
}
LiteRtStatus accelerator_version(LiteRtAccelerator, LiteRtApiVersion* version) {
  if (!version) return kLiteRtStatusErrorInvalidArgument;
  *version = LiteRtApiVersion{1, 0, 0};
  return kLiteRtStatusOk;
}
// No hardware bit: LiteRT then applies it to every compilation (it skips only accelerators that
// do JIT compilation for hardware not asked for, and NPU ones for models not compiled for an NPU),
// and the request decides whether there is a delegate at all.
LiteRtStatus accelerator_hardware(LiteRtAccelerator, LiteRtHwAcceleratorSet* hw) {
  if (!hw) return kLiteRtStatusErrorInvalidArgument;
  *hw = kLiteRtHwAcceleratorNone;
  return kLiteRtStatusOk;
}
LiteRtStatus accelerator_is_jit(LiteRtAccelerator, bool* jit) {
  if (!jit) return kLiteRtStatusErrorInvalidArgument;
  *jit = false;
  return kLiteRtStatusOk;
}

Error register_accelerator(LiteRtEnvironment env, const char* what, LiteRtAcceleratorGetNameFn name,
                           LiteRtAcceleratorGetVersionFn version, LiteRtAcceleratorGetHardwareSupportFn hardware,
                           LiteRtAcceleratorIsJitFn is_jit, LiteRtAcceleratorCreateDelegateFn create) {
  LiteRtAccelerator a = nullptr;
  if (LiteRtStatus st = LiteRtCreateAccelerator(&a))
    return litert_error(st, std::string("creating the ") + what + " accelerator");
  LiteRtStatus st = LiteRtSetAcceleratorGetName(a, name);
  if (!st) st = LiteRtSetAcceleratorGetVersion(a, version);
  if (!st) st = LiteRtSetAcceleratorGetHardwareSupport(a, hardware);
  if (!st) st = LiteRtSetIsAcceleratorDelegateResponsibleForJitCompilation(a, is_jit);
  if (!st) st = LiteRtSetDelegateFunction(a, create);
  if (st) {
    LiteRtDestroyAccelerator(a);
    return litert_error(st, std::string("setting up the ") + what + " accelerator");
  }
  if (LiteRtStatus reg = LiteRtRegisterAccelerator(env, a, nullptr, nullptr))  // owns `a` now
    return litert_error(reg, std::string("registering the ") + what + " accelerator");
  return {};
}

}  // namespace

ScopedDelegateRequest::ScopedDelegateRequest(DelegateRequest& request) : previous_(current_request) {
  request.id = next_request_id.fetch_add(1);
  current_request = &request;
}

ScopedDelegateRequest::~ScopedDelegateRequest() { current_request = previous_; }

LiteRtEnvOption without_cpu_auto_registration() {
  LiteRtEnvOption option{};
  option.tag = kLiteRtEnvOptionTagAutoRegisterAccelerators;
  option.value.type = kLiteRtAnyTypeInt;
  option.value.int_value = kLiteRtHwAcceleratorGpu | kLiteRtHwAcceleratorNpu;
  return option;
}

Error register_delegates_before_cpu(LiteRtEnvironment env) {
  const LiteRtCpuAcceleratorDef* cpu = LiteRtStaticLinkedAcceleratorCpuDef;
  if (!cpu || cpu->version != 1 || !cpu->get_name || !cpu->get_version || !cpu->get_hardware_support || !cpu->is_jit ||
      !cpu->create_delegate)
    return sdk::runtime_error(
        "this libLiteRt.so's CPU accelerator definition (LiteRtStaticLinkedAcceleratorCpuDef) "
        "is not the LiteRT 2.3.0 layout, so external delegates cannot be placed before it");
  if (Error e = register_accelerator(env, kDelegateAcceleratorName, accelerator_name, accelerator_version,
                                     accelerator_hardware, accelerator_is_jit, create_delegate))
    return e;
  return register_accelerator(env, "CPU", cpu->get_name, cpu->get_version, cpu->get_hardware_support, cpu->is_jit,
                              cpu->create_delegate);
}

}  // namespace wasinn::tensorflowlite
