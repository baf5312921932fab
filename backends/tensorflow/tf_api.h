// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The TensorFlow C API as a function table, loaded by the plugin itself at backend_create, and
// the translation of a TF_Status into a wasinn status plus detail.
//
// Why not link libtensorflow_cc.so.2: TensorFlow logs from its static initializers (the oneDNN
// notice of tensorflow/core/util/port.cc), so a linked TensorFlow writes to stderr while the host
// dlopens the plugin, before any plugin code runs. Loaded here, it starts only after the host
// installed its log sink: TF_CPP_MIN_LOG_LEVEL is set to the host's level first, and every later
// line is routed to the host's logger (tsl_log.h).
#pragma once

#include <tensorflow/c/c_api.h>

#include <string_view>

#include "wasinn/plugin_sdk/error.hpp"

namespace wasinn::tensorflow {

using sdk::Error;

// Every TF_* function the plugin calls. Each is declared by the wheel's headers, so a member's
// type is the vendor's own declaration.
// clang-format off: a list clang-format-14 cannot lay out the same way twice
#define WASINN_TF_FUNCTIONS(X)      \
  X(TF_Version)                     \
  X(TF_NewStatus)                   \
  X(TF_DeleteStatus)                \
  X(TF_GetCode)                     \
  X(TF_Message)                     \
  X(TF_NewGraph)                    \
  X(TF_DeleteGraph)                 \
  X(TF_GraphImportGraphDef)         \
  X(TF_GraphOperationByName)        \
  X(TF_GraphNextOperation)          \
  X(TF_GraphGetTensorNumDims)       \
  X(TF_GraphGetTensorShape)         \
  X(TF_OperationName)               \
  X(TF_OperationOpType)             \
  X(TF_OperationNumOutputs)         \
  X(TF_OperationOutputType)         \
  X(TF_OperationOutputNumConsumers) \
  X(TF_NewBuffer)                   \
  X(TF_NewBufferFromString)         \
  X(TF_DeleteBuffer)                \
  X(TF_NewImportGraphDefOptions)    \
  X(TF_DeleteImportGraphDefOptions) \
  X(TF_NewSessionOptions)           \
  X(TF_DeleteSessionOptions)        \
  X(TF_SetConfig)                   \
  X(TF_LoadSessionFromSavedModel)   \
  X(TF_NewSession)                  \
  X(TF_CloseSession)                \
  X(TF_DeleteSession)               \
  X(TF_SessionRun)                  \
  X(TF_AllocateTensor)              \
  X(TF_DeleteTensor)                \
  X(TF_TensorData)                  \
  X(TF_TensorByteSize)              \
  X(TF_TensorType)                  \
  X(TF_NumDims)                     \
  X(TF_Dim)
// clang-format on

struct TfApi {
#define WASINN_TF_MEMBER(name) decltype(&::name) name = nullptr;
  WASINN_TF_FUNCTIONS(WASINN_TF_MEMBER)
#undef WASINN_TF_MEMBER
};

// Loads libtensorflow_cc.so.2 (beside the plugin's RUNPATH) and resolves the table, once per
// process; later calls return the first outcome. Call after the host's log sink is installed.
// RUNTIME_ERROR when the library or one of its functions is missing.
Error load_tensorflow();

// The table. Valid once load_tensorflow() succeeded, which every graph and context follows.
const TfApi& tf();

// The closest wasinn status to a TensorFlow error code.
wasinn_status status_from_tf(TF_Code code);

// Error for a failed TF call ("<what>: <TF's message>"), or none when `status` is TF_OK.
Error take_status(const TF_Status* status, std::string_view what);

}  // namespace wasinn::tensorflow
