// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The part of the LiteRT 2.3.0 C API (libLiteRt.so from the PyPI wheel ai-edge-litert) that
// this plugin calls, declared here because no registry ships LiteRT's headers.
//
// Each declaration follows the vendor's published header of the same name under litert/c/
// (google-ai-edge/LiteRT, release 2.3.0). They were checked against the library itself: every
// symbol is exported (the link uses -z defs), and the argument registers of the functions whose
// signatures changed across LiteRT releases were read from their machine code (env first in
// LiteRtCreateModelFromBuffer/FromFile, five arguments in CreateTensorBufferFromHostMemory);
// see docs/backends/tensorflow.md. Struct layouts carry the vendor's own size asserts.
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

extern "C" {

// litert_common.h
typedef struct LiteRtEnvironmentT* LiteRtEnvironment;
typedef struct LiteRtModelT* LiteRtModel;
typedef struct LiteRtSignatureT* LiteRtSignature;
typedef struct LiteRtSubgraphT* LiteRtSubgraph;
typedef struct LiteRtTensorT* LiteRtTensor;
typedef struct LiteRtOptionsT* LiteRtOptions;
typedef struct LiteRtCompiledModelT* LiteRtCompiledModel;
typedef struct LiteRtTensorBufferT* LiteRtTensorBuffer;
typedef struct LiteRtTensorBufferRequirementsT* LiteRtTensorBufferRequirements;
typedef struct LiteRtAcceleratorT* LiteRtAccelerator;

typedef size_t LiteRtParamIndex;
typedef int LiteRtHwAcceleratorSet;  // bit set of LiteRtHwAccelerators

typedef enum {
  kLiteRtStatusOk = 0,
  kLiteRtStatusErrorInvalidArgument = 1,
  kLiteRtStatusErrorMemoryAllocationFailure = 2,
  kLiteRtStatusErrorRuntimeFailure = 3,
  kLiteRtStatusErrorMissingInputTensor = 4,
  kLiteRtStatusErrorUnsupported = 5,
  kLiteRtStatusErrorNotFound = 6,
  kLiteRtStatusErrorTimeoutExpired = 7,
  kLiteRtStatusErrorWrongVersion = 8,
  kLiteRtStatusErrorUnknown = 9,
  kLiteRtStatusErrorAlreadyExists = 10,
  kLiteRtStatusCancelled = 100,
  kLiteRtStatusErrorFileIO = 500,
  kLiteRtStatusErrorInvalidFlatbuffer = 501,
  kLiteRtStatusErrorDynamicLoading = 502,
  kLiteRtStatusErrorSerialization = 503,
  kLiteRtStatusErrorCompilation = 504,
  kLiteRtStatusErrorIndexOOB = 1000,
  kLiteRtStatusErrorInvalidIrType = 1001,
} LiteRtStatus;

enum {
  kLiteRtHwAcceleratorNone = 0,
  kLiteRtHwAcceleratorCpu = 1 << 0,
  kLiteRtHwAcceleratorGpu = 1 << 1,
  kLiteRtHwAcceleratorNpu = 1 << 2,
};

// litert_model_types.h / litert_layout.h
typedef enum {
  kLiteRtElementTypeNone = 0,
  kLiteRtElementTypeFloat32 = 1,
  kLiteRtElementTypeInt32 = 2,
  kLiteRtElementTypeUInt8 = 3,
  kLiteRtElementTypeInt64 = 4,
  kLiteRtElementTypeTfString = 5,
  kLiteRtElementTypeBool = 6,
  kLiteRtElementTypeInt16 = 7,
  kLiteRtElementTypeComplex64 = 8,
  kLiteRtElementTypeInt8 = 9,
  kLiteRtElementTypeFloat16 = 10,
  kLiteRtElementTypeFloat64 = 11,
  kLiteRtElementTypeComplex128 = 12,
  kLiteRtElementTypeUInt64 = 13,
  kLiteRtElementTypeTfResource = 14,
  kLiteRtElementTypeTfVariant = 15,
  kLiteRtElementTypeUInt32 = 16,
  kLiteRtElementTypeUInt16 = 17,
  kLiteRtElementTypeInt4 = 18,
  kLiteRtElementTypeBFloat16 = 19,
  kLiteRtElementTypeInt2 = 20,
} LiteRtElementType;

#define LITERT_TENSOR_MAX_RANK 8
#define LITERT_HOST_MEMORY_BUFFER_ALIGNMENT 64

typedef struct {
  unsigned int rank : 7;
  bool has_strides : 1;
  int32_t dimensions[LITERT_TENSOR_MAX_RANK];  // < 0: dynamic
  uint32_t strides[LITERT_TENSOR_MAX_RANK];
} LiteRtLayout;

typedef struct {
  LiteRtElementType element_type;
  LiteRtLayout layout;
} LiteRtRankedTensorType;

typedef struct {
  LiteRtElementType element_type;
} LiteRtUnrankedTensorType;

typedef enum { kLiteRtRankedTensorType = 0, kLiteRtUnrankedTensorType = 1 } LiteRtTensorTypeId;

typedef enum {
  kLiteRtQuantizationNone = 0,
  kLiteRtQuantizationPerTensor = 1,
  kLiteRtQuantizationPerChannel = 2,
  kLiteRtQuantizationBlockWise = 3,
} LiteRtQuantizationTypeId;

typedef struct {
  float scale;
  int64_t zero_point;
} LiteRtQuantizationPerTensor;

static_assert(sizeof(LiteRtLayout) == 68, "LiteRtLayout layout of LiteRT 2.3.0");
static_assert(sizeof(LiteRtRankedTensorType) == 72, "LiteRtRankedTensorType of LiteRT 2.3.0");
static_assert(offsetof(LiteRtRankedTensorType, layout) == 4, "LiteRtRankedTensorType.layout");
static_assert(sizeof(LiteRtQuantizationPerTensor) == 16, "LiteRtQuantizationPerTensor");

// litert_any.h / litert_environment_options.h: two options are used. The bit set of accelerators
// LiteRT registers by itself when the environment is created (read as tag 24 with an int64 by
// libLiteRt.so 2.3.0's auto-registration; default CPU | GPU | NPU), and the directory it dlopens
// the GPU accelerators from (tag 22, a string; unset, it dlopens bare names, which the loader
// looks for on LD_LIBRARY_PATH and the system paths, never beside libLiteRt.so).
typedef enum {
  kLiteRtAnyTypeNone = 0,
  kLiteRtAnyTypeBool = 1,
  kLiteRtAnyTypeInt = 2,
  kLiteRtAnyTypeString = 8,
} LiteRtAnyType;
typedef struct {
  LiteRtAnyType type;
  union {
    bool bool_value;
    int64_t int_value;
    double real_value;
    const char* str_value;
    const void* ptr_value;
  };
} LiteRtAny;
typedef enum {
  kLiteRtEnvOptionTagRuntimeLibraryDir = 22,
  kLiteRtEnvOptionTagAutoRegisterAccelerators = 24
} LiteRtEnvOptionTag;
typedef struct {
  LiteRtEnvOptionTag tag;
  LiteRtAny value;
} LiteRtEnvOption;
static_assert(sizeof(LiteRtEnvOption) == 24 && offsetof(LiteRtEnvOption, value) == 8,
              "LiteRtEnvOption of LiteRT 2.3.0");

// litert_environment.h
LiteRtStatus LiteRtCreateEnvironment(int num_options, const LiteRtEnvOption* options, LiteRtEnvironment* environment);
void LiteRtDestroyEnvironment(LiteRtEnvironment environment);

// litert_accelerator.h
LiteRtStatus LiteRtGetNumAccelerators(LiteRtEnvironment environment, LiteRtParamIndex* num);
LiteRtStatus LiteRtGetAccelerator(LiteRtEnvironment environment, LiteRtParamIndex index,
                                  LiteRtAccelerator* accelerator);
LiteRtStatus LiteRtGetAcceleratorName(LiteRtAccelerator accelerator, const char** name);
LiteRtStatus LiteRtGetAcceleratorHardwareSupport(LiteRtAccelerator accelerator,
                                                 LiteRtHwAcceleratorSet* supported_hardware);

// litert_accelerator_registration.h, as libLiteRt.so 2.3.0 implements it (read in its machine
// code, see docs/backends/tensorflow.md): SetDelegateFunction takes the create function only
// (LiteRT frees a delegate through LiteRtDestroyDelegateWrapper, which calls the deleter given
// to LiteRtWrapDelegate), and the compiled model calls CreateDelegate with five arguments.
typedef struct LiteRtDelegateWrapperT* LiteRtDelegateWrapper;
typedef struct LiteRtRuntimeContextT LiteRtRuntimeContext;  // passed through, never read
typedef struct {
  int major;
  int minor;
  int patch;
} LiteRtApiVersion;
typedef LiteRtStatus (*LiteRtAcceleratorCreateDelegateFn)(LiteRtRuntimeContext* runtime_context,
                                                          LiteRtEnvironment environment, LiteRtAccelerator accelerator,
                                                          LiteRtOptions options, LiteRtDelegateWrapper* delegate);
typedef LiteRtStatus (*LiteRtAcceleratorGetNameFn)(LiteRtAccelerator, const char** name);
typedef LiteRtStatus (*LiteRtAcceleratorGetVersionFn)(LiteRtAccelerator, LiteRtApiVersion*);
typedef LiteRtStatus (*LiteRtAcceleratorGetHardwareSupportFn)(LiteRtAccelerator, LiteRtHwAcceleratorSet*);
typedef LiteRtStatus (*LiteRtAcceleratorIsJitFn)(LiteRtAccelerator, bool* does_jit);
LiteRtStatus LiteRtCreateAccelerator(LiteRtAccelerator* accelerator);
LiteRtStatus LiteRtDestroyAccelerator(LiteRtAccelerator accelerator);  // only if not registered
// Takes ownership of `accelerator`, also on failure.
LiteRtStatus LiteRtRegisterAccelerator(LiteRtEnvironment environment, LiteRtAccelerator accelerator, void* data,
                                       void (*release_data)(void*));
LiteRtStatus LiteRtSetAcceleratorGetName(LiteRtAccelerator, LiteRtAcceleratorGetNameFn);
LiteRtStatus LiteRtSetAcceleratorGetVersion(LiteRtAccelerator, LiteRtAcceleratorGetVersionFn);
LiteRtStatus LiteRtSetAcceleratorGetHardwareSupport(LiteRtAccelerator, LiteRtAcceleratorGetHardwareSupportFn);
LiteRtStatus LiteRtSetIsAcceleratorDelegateResponsibleForJitCompilation(LiteRtAccelerator, LiteRtAcceleratorIsJitFn);
LiteRtStatus LiteRtSetDelegateFunction(LiteRtAccelerator, LiteRtAcceleratorCreateDelegateFn);
// litert_delegate_wrapper.h: `delegate` is a TfLiteOpaqueDelegate * (tflite_delegate_api.h).
LiteRtStatus LiteRtWrapDelegate(void* delegate, void (*deleter)(void* delegate), LiteRtDelegateWrapper* wrapper);

// The definition of LiteRT's CPU (XNNPACK) accelerator, exported so that it can be registered
// by hand: an environment that must apply external delegates before XNNPACK registers it after
// them. Layout of 2.3.0, from its registration code (RegisterAcceleratorFromDef): a 16-bit
// version 1 at byte 2, then the callbacks; only those used are named.
typedef struct {
  uint16_t reserved;
  uint16_t version;
  LiteRtAcceleratorGetNameFn get_name;
  LiteRtAcceleratorGetVersionFn get_version;
  LiteRtAcceleratorGetHardwareSupportFn get_hardware_support;
  LiteRtAcceleratorIsJitFn is_jit;
  LiteRtAcceleratorCreateDelegateFn create_delegate;
} LiteRtCpuAcceleratorDef;
extern LiteRtCpuAcceleratorDef* LiteRtStaticLinkedAcceleratorCpuDef;
static_assert(offsetof(LiteRtCpuAcceleratorDef, get_name) == 8 && offsetof(LiteRtCpuAcceleratorDef, is_jit) == 32 &&
                  offsetof(LiteRtCpuAcceleratorDef, create_delegate) == 40,
              "LiteRtAcceleratorDef prefix of LiteRT 2.3.0");

// litert_model.h. The buffer given to CreateModelFromBuffer must outlive the model.
LiteRtStatus LiteRtCreateModelFromFile(LiteRtEnvironment environment, const char* filename, LiteRtModel* model);
LiteRtStatus LiteRtCreateModelFromBuffer(LiteRtEnvironment environment, const void* buffer_addr, size_t buffer_size,
                                         LiteRtModel* model);
void LiteRtDestroyModel(LiteRtModel model);
LiteRtStatus LiteRtGetNumModelSignatures(LiteRtModel model, LiteRtParamIndex* num_signatures);
LiteRtStatus LiteRtGetModelSignature(LiteRtModel model, LiteRtParamIndex signature_index, LiteRtSignature* signature);
LiteRtStatus LiteRtGetSignatureKey(LiteRtSignature signature, const char** signature_key);
LiteRtStatus LiteRtGetSignatureSubgraph(LiteRtSignature signature, LiteRtSubgraph* subgraph);
LiteRtStatus LiteRtGetNumSignatureInputs(LiteRtSignature signature, LiteRtParamIndex* num);
LiteRtStatus LiteRtGetSignatureInputName(LiteRtSignature signature, LiteRtParamIndex input_idx,
                                         const char** input_name);
LiteRtStatus LiteRtGetSignatureInputTensorByIndex(LiteRtSignature signature, LiteRtParamIndex input_idx,
                                                  LiteRtTensor* tensor);
LiteRtStatus LiteRtGetNumSignatureOutputs(LiteRtSignature signature, LiteRtParamIndex* num);
LiteRtStatus LiteRtGetSignatureOutputName(LiteRtSignature signature, LiteRtParamIndex output_idx,
                                          const char** output_name);
LiteRtStatus LiteRtGetSignatureOutputTensorByIndex(LiteRtSignature signature, LiteRtParamIndex output_idx,
                                                   LiteRtTensor* tensor);
LiteRtStatus LiteRtGetNumSubgraphInputs(LiteRtSubgraph subgraph, LiteRtParamIndex* num);
LiteRtStatus LiteRtGetSubgraphInput(LiteRtSubgraph subgraph, LiteRtParamIndex input_index, LiteRtTensor* input);
LiteRtStatus LiteRtGetNumSubgraphOutputs(LiteRtSubgraph subgraph, LiteRtParamIndex* num);
LiteRtStatus LiteRtGetSubgraphOutput(LiteRtSubgraph subgraph, LiteRtParamIndex output_index, LiteRtTensor* output);
LiteRtStatus LiteRtGetTensorName(LiteRtTensor tensor, const char** name);
LiteRtStatus LiteRtGetTensorTypeId(LiteRtTensor tensor, LiteRtTensorTypeId* type_id);
LiteRtStatus LiteRtGetRankedTensorType(LiteRtTensor tensor, LiteRtRankedTensorType* type);
LiteRtStatus LiteRtGetUnrankedTensorType(LiteRtTensor tensor, LiteRtUnrankedTensorType* type);
LiteRtStatus LiteRtGetQuantizationTypeId(LiteRtTensor tensor, LiteRtQuantizationTypeId* q_type);
LiteRtStatus LiteRtGetPerTensorQuantization(LiteRtTensor tensor, LiteRtQuantizationPerTensor* quantization);

// litert_options.h (compilation options)
LiteRtStatus LiteRtCreateOptions(LiteRtOptions* options);
void LiteRtDestroyOptions(LiteRtOptions options);
LiteRtStatus LiteRtSetOptionsHardwareAccelerators(LiteRtOptions options, LiteRtHwAcceleratorSet hardware_accelerators);

// litert_compiled_model.h. `options` stays owned by the caller.
LiteRtStatus LiteRtCreateCompiledModel(LiteRtEnvironment environment, LiteRtModel model, LiteRtOptions options,
                                       LiteRtCompiledModel* compiled_model);
void LiteRtDestroyCompiledModel(LiteRtCompiledModel compiled_model);
LiteRtStatus LiteRtGetCompiledModelInputBufferRequirements(LiteRtCompiledModel compiled_model,
                                                           LiteRtParamIndex signature_index,
                                                           LiteRtParamIndex input_index,
                                                           LiteRtTensorBufferRequirements* requirements);
LiteRtStatus LiteRtGetCompiledModelOutputBufferRequirements(LiteRtCompiledModel compiled_model,
                                                            LiteRtParamIndex signature_index,
                                                            LiteRtParamIndex output_index,
                                                            LiteRtTensorBufferRequirements* requirements);
LiteRtStatus LiteRtGetCompiledModelOutputTensorLayouts(LiteRtCompiledModel compiled_model,
                                                       LiteRtParamIndex signature_index, size_t num_layouts,
                                                       LiteRtLayout* layouts, bool update_allocation);
LiteRtStatus LiteRtCompiledModelResizeInputTensor(LiteRtCompiledModel compiled_model, LiteRtParamIndex signature_index,
                                                  LiteRtParamIndex input_index, const int* dims, size_t dims_size);
LiteRtStatus LiteRtCompiledModelIsFullyAccelerated(LiteRtCompiledModel compiled_model, bool* fully_accelerated);
LiteRtStatus LiteRtSetCompiledModelCancellationFunction(LiteRtCompiledModel compiled_model, void* data,
                                                        bool (*check_cancelled)(void*));
LiteRtStatus LiteRtRunCompiledModel(LiteRtCompiledModel compiled_model, LiteRtParamIndex signature_index,
                                    size_t num_input_buffers, LiteRtTensorBuffer* input_buffers,
                                    size_t num_output_buffers, LiteRtTensorBuffer* output_buffers);

// litert_tensor_buffer_requirements.h
LiteRtStatus LiteRtGetTensorBufferRequirementsBufferSize(LiteRtTensorBufferRequirements req, size_t* buffer_size);

// litert_tensor_buffer.h. A NULL deallocator leaves the host memory to the caller.
typedef void (*LiteRtHostMemoryDeallocator)(void* addr);
LiteRtStatus LiteRtCreateTensorBufferFromHostMemory(const LiteRtRankedTensorType* tensor_type, void* host_buffer_addr,
                                                    size_t host_buffer_size, LiteRtHostMemoryDeallocator deallocator,
                                                    LiteRtTensorBuffer* buffer);
void LiteRtDestroyTensorBuffer(LiteRtTensorBuffer buffer);

}  // extern "C"
