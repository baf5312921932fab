// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The TensorFlow Lite delegate ABI as libLiteRt.so 2.3.0 uses it: the C structs a classic
// TfLiteDelegate and its kernels exchange with the interpreter, and the two entry points of an
// external delegate library (the interface of the VX delegate, Coral's libedgetpu and Arm NN's
// delegate). Declared here because LiteRT ships no headers; only what the plugin and its test
// delegate touch.
//
// Layouts follow tensorflow/lite/core/c/common.h as LiteRT carries it (google-ai-edge/LiteRT,
// tflite/core/c/common.h; the order of fields is "semi-ABI stable": fields are only appended).
// The offsets below are asserted for 64-bit targets and were checked at run time against
// libLiteRt.so 2.3.0: GetExecutionPlan and GetNodeAndRegistration read the digits models' plans
// (2 FULLY_CONNECTED nodes), and the test delegate's ReplaceNodeSubsetsWithDelegateKernels,
// kernels and tensors run those nodes (docs/backends/tensorflow.md, "External delegates").
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

extern "C" {

typedef enum TfLiteStatus {
  kTfLiteOk = 0,
  kTfLiteError = 1,
  kTfLiteDelegateError = 2,
  kTfLiteApplicationError = 3,
} TfLiteStatus;

// c_api_types.h: the element types the test delegate's kernels take.
typedef enum {
  kTfLiteNoType = 0,
  kTfLiteFloat32 = 1,
  kTfLiteInt32 = 2,
  kTfLiteUInt8 = 3,
  kTfLiteInt8 = 9,
} TfLiteType;

typedef struct TfLiteIntArray {
  int size;
  int data[];
} TfLiteIntArray;

typedef struct TfLiteFloatArray {
  int size;
  float data[];
} TfLiteFloatArray;

typedef struct {
  float scale;
  int32_t zero_point;
} TfLiteQuantizationParams;

enum { kTfLiteNoQuantization = 0, kTfLiteAffineQuantization = 1 };
typedef struct {
  int type;  // kTfLite*Quantization
  void* params;
} TfLiteQuantization;

typedef struct {
  TfLiteFloatArray* scale;
  TfLiteIntArray* zero_point;
  int32_t quantized_dimension;
} TfLiteAffineQuantization;

struct TfLiteContext;
struct TfLiteDelegate;
struct TfLiteRegistration;

typedef struct TfLiteTensor {
  TfLiteType type;
  void* data;  // TfLitePtrUnion: every member is a pointer
  TfLiteIntArray* dims;
  TfLiteQuantizationParams params;
  int allocation_type;
  size_t bytes;
  const void* allocation;
  const char* name;
  struct TfLiteDelegate* delegate;
  int buffer_handle;
  bool data_is_stale;
  bool is_variable;
  TfLiteQuantization quantization;
  void* sparsity;
  const TfLiteIntArray* dims_signature;
} TfLiteTensor;

typedef struct TfLiteNode {
  TfLiteIntArray* inputs;
  TfLiteIntArray* outputs;
  TfLiteIntArray* intermediates;
  TfLiteIntArray* temporaries;
  void* user_data;
  void* builtin_data;
  const void* custom_initial_data;
  int custom_initial_data_size;
  struct TfLiteDelegate* delegate;
  bool might_have_side_effect;
} TfLiteNode;

// What a delegate kernel's init() receives as `buffer`: the nodes it replaces.
typedef struct TfLiteDelegateParams {
  struct TfLiteDelegate* delegate;
  TfLiteIntArray* nodes_to_replace;
  TfLiteIntArray* input_tensors;
  TfLiteIntArray* output_tensors;
} TfLiteDelegateParams;

typedef struct TfLiteRegistration {
  void* (*init)(struct TfLiteContext* context, const char* buffer, size_t length);
  void (*free)(struct TfLiteContext* context, void* buffer);
  TfLiteStatus (*prepare)(struct TfLiteContext* context, TfLiteNode* node);
  TfLiteStatus (*invoke)(struct TfLiteContext* context, TfLiteNode* node);
  const char* (*profiling_string)(const struct TfLiteContext* context, const TfLiteNode* node);
  int32_t builtin_code;
  const char* custom_name;
  int version;
  void* registration_external;
  void* (*async_kernel)(struct TfLiteContext* context, TfLiteNode* node);
  uint64_t inplace_operator;
} TfLiteRegistration;

// Only the members up to GetTensor are declared: nothing here allocates a context, and later
// members are never read.
typedef struct TfLiteContext {
  size_t tensors_size;
  TfLiteStatus (*GetExecutionPlan)(struct TfLiteContext* context, TfLiteIntArray** plan);
  TfLiteTensor* tensors;
  void* impl_;
  TfLiteStatus (*ResizeTensor)(struct TfLiteContext*, TfLiteTensor* tensor, TfLiteIntArray* new_size);
  void (*ReportError)(struct TfLiteContext*, const char* msg, ...);
  TfLiteStatus (*AddTensors)(struct TfLiteContext*, int tensors_to_add, int* first_new_index);
  TfLiteStatus (*GetNodeAndRegistration)(struct TfLiteContext*, int node_index, TfLiteNode** node,
                                         struct TfLiteRegistration** registration);
  TfLiteStatus (*ReplaceNodeSubsetsWithDelegateKernels)(struct TfLiteContext*, struct TfLiteRegistration registration,
                                                        const TfLiteIntArray* nodes_to_replace,
                                                        struct TfLiteDelegate* delegate);
  int recommended_num_threads;
  void* (*GetExternalContext)(struct TfLiteContext*, int type);
  void (*SetExternalContext)(struct TfLiteContext*, int type, void* external);
  bool allow_fp32_relax_to_fp16;
  void* profiler;
  void* (*AllocatePersistentBuffer)(struct TfLiteContext* ctx, size_t bytes);
  TfLiteStatus (*AllocateBufferForEval)(struct TfLiteContext* ctx, size_t bytes, void** ptr);
  TfLiteStatus (*RequestScratchBufferInArena)(struct TfLiteContext* ctx, size_t bytes, int* buffer_idx);
  void* (*GetScratchBuffer)(struct TfLiteContext* ctx, int buffer_idx);
  TfLiteStatus (*ResizeTensorExplicit)(struct TfLiteContext* ctx, TfLiteTensor* tensor, int dims, const int* shape);
  void* PreviewDelegatePartitioning;
  TfLiteTensor* (*GetTensor)(const struct TfLiteContext* context, int tensor_idx);
} TfLiteContext;

enum { kTfLiteDelegateFlagsNone = 0, kTfLiteDelegateFlagsAllowDynamicTensors = 1 };

typedef struct TfLiteDelegate {
  void* data_;
  TfLiteStatus (*Prepare)(TfLiteContext* context, struct TfLiteDelegate* delegate);
  TfLiteStatus (*CopyFromBufferHandle)(TfLiteContext* context, struct TfLiteDelegate* delegate, int buffer_handle,
                                       TfLiteTensor* tensor);
  TfLiteStatus (*CopyToBufferHandle)(TfLiteContext* context, struct TfLiteDelegate* delegate, int buffer_handle,
                                     TfLiteTensor* tensor);
  void (*FreeBufferHandle)(TfLiteContext* context, struct TfLiteDelegate* delegate, int* handle);
  int64_t flags;
  // Set by delegates written against TFLite's opaque (stable) API, whose Prepare lives there.
  void* opaque_delegate_builder;
} TfLiteDelegate;

// LiteRT's accelerator API passes delegates as TfLiteOpaqueDelegate, TFLite's typedef of
// TfLiteDelegate (common.h: `typedef TfLiteDelegate TfLiteOpaqueDelegate;`).
typedef TfLiteDelegate TfLiteOpaqueDelegate;

// builtin_ops.h
enum {
  kTfLiteBuiltinAdd = 0,
  kTfLiteBuiltinFullyConnected = 9,
  kTfLiteBuiltinDelegate = 51,
};

// The external delegate entry points (tensorflow/lite/delegates/external/external_delegate.h,
// the "tflite_plugin_*" names the VX delegate, libedgetpu and Arm NN export).
typedef TfLiteDelegate* (*TfLitePluginCreateDelegateFn)(char** options_keys, char** options_values, size_t num_options,
                                                        void (*report_error)(const char*));
typedef void (*TfLitePluginDestroyDelegateFn)(TfLiteDelegate* delegate);
#define TFLITE_PLUGIN_CREATE_DELEGATE "tflite_plugin_create_delegate"
#define TFLITE_PLUGIN_DESTROY_DELEGATE "tflite_plugin_destroy_delegate"

}  // extern "C"

#if defined(__SIZEOF_POINTER__) && __SIZEOF_POINTER__ == 8
static_assert(sizeof(TfLiteTensor) == 112, "TfLiteTensor of TFLite in LiteRT 2.3.0");
static_assert(offsetof(TfLiteTensor, dims) == 16 && offsetof(TfLiteTensor, bytes) == 40 &&
                  offsetof(TfLiteTensor, quantization) == 80,
              "TfLiteTensor fields");
static_assert(sizeof(TfLiteNode) == 80 && offsetof(TfLiteNode, builtin_data) == 40 &&
                  offsetof(TfLiteNode, delegate) == 64,
              "TfLiteNode of TFLite in LiteRT 2.3.0");
static_assert(sizeof(TfLiteRegistration) == 88 && offsetof(TfLiteRegistration, builtin_code) == 40,
              "TfLiteRegistration of TFLite in LiteRT 2.3.0");
static_assert(offsetof(TfLiteContext, GetExecutionPlan) == 8 && offsetof(TfLiteContext, GetNodeAndRegistration) == 56 &&
                  offsetof(TfLiteContext, ReplaceNodeSubsetsWithDelegateKernels) == 64 &&
                  offsetof(TfLiteContext, ResizeTensorExplicit) == 144 && offsetof(TfLiteContext, GetTensor) == 160,
              "TfLiteContext of TFLite in LiteRT 2.3.0");
static_assert(sizeof(TfLiteDelegate) == 56 && offsetof(TfLiteDelegate, flags) == 40,
              "TfLiteDelegate of TFLite in LiteRT 2.3.0");
#endif
