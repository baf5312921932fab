// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What the pytorch tests pass around: HostTensor, a dense tensor held by the test (what goes
// into set_input, what a guest writes to a file, what native libtorch returns), and the calls
// of the shared plugin harness (tests/backends/common/plugin_harness.h) that move one in or out
// of the pytorch plugin or into a guest's arguments.
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "plugin_harness.h"

namespace wasinn_test {

inline const wasinn_backend_api& api() { return plugin_api("pytorch"); }

struct HostTensor {
  int32_t type = WASINN_TYPE_UNKNOWN;  // wasinn_tensor_type
  std::vector<uint32_t> dims;
  std::vector<uint8_t> bytes;
  std::string name;  // dict key of a native output, else ""

  template <typename T>
  std::vector<T> as() const {
    return as_vector<T>(bytes);
  }
};

template <typename T>
HostTensor make_tensor(int32_t type, std::vector<uint32_t> dims, const std::vector<T>& values) {
  HostTensor t;
  t.type = type;
  t.dims = std::move(dims);
  t.bytes = as_bytes(values);
  return t;
}

// graph_load of builders as the pytorch encoding (the harness's load, with this default).
inline int load_bytes(Backend& b, std::vector<std::vector<uint8_t>> builders, Graph& g, Diag& d,
                      int32_t target = WASINN_TARGET_CPU, const std::string& config = "",
                      const std::string& encoding = "pytorch") {
  return load(b, std::move(builders), g, d, target, config, encoding);
}

// Loads one fixture or fails the test.
inline Graph load_model(Backend& b, const std::string& rel) {
  Graph g;
  Diag d;
  EXPECT_EQ(load_bytes(b, {read_fixture(rel)}, g, d), WASINN_OK) << rel << ": " << d.detail;
  return g;
}

inline int set_input(wasinn_context* c, wasinn_tensor_id id, const HostTensor& t, Diag& d) {
  return set_input(api(), c, id, t.type, t.dims, t.bytes, d);
}

inline int compute(wasinn_context* c, Diag& d) { return api().compute(c, &d); }

// Output `id` of the last compute, copied out with its type; fails the test when get_output fails.
inline HostTensor output(wasinn_context* c, wasinn_tensor_id id) {
  wasinn_tensor t{};
  Diag d;
  const int st = api().get_output(c, &id, &t, &d);
  EXPECT_EQ(st, WASINN_OK) << d.detail;
  if (st != WASINN_OK) return {};
  HostTensor out;
  out.type = t.type;
  out.dims.assign(t.dims, t.dims + t.rank);
  const auto* p = static_cast<const uint8_t*>(t.data);
  out.bytes.assign(p, p + t.data_length);
  return out;
}

// The run_model guest's "--input I:TYPE:DIMS:FILE" value for a tensor file the guest sees at
// guest_file; TYPE in witx numbering names ("f32", "i64").
inline std::string input_arg(uint32_t index, const char* type, const std::vector<uint32_t>& dims,
                             const std::string& guest_file) {
  std::string d;
  for (uint32_t v : dims) d += (d.empty() ? "" : "x") + std::to_string(v);
  return std::to_string(index) + ":" + type + ":" + d + ":" + guest_file;
}

}  // namespace wasinn_test
