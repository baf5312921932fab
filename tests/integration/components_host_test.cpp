// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Components through the embedding API (include/wasinn/host.h): a Host runs a command component
// as it runs a module, with captured output, and an Instance of a library component serves
// many calls of its export, each a full load and compute on real ONNX Runtime.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "test_env.h"
#include "wasinn/host.h"

namespace wasinn_it {
namespace {

std::unique_ptr<wasinn::Host> make_host(bool with_digits) {
  wasinn::HostOptions options;
  options.backend_dirs = {backend_dir().string()};
  if (with_digits) options.preloads = {"digits:onnx:cpu:" + fixture("digits/model.onnx").string()};
  std::string error;
  auto host = wasinn::Host::create(options, &error);
  EXPECT_TRUE(host) << error;
  return host;
}

TEST(ComponentsHost, RunsACommandComponentWithCapturedOutput) {
  auto host = make_host(false);
  ASSERT_TRUE(host);
  wasinn::Program p;
  p.wasm_path = guest("wit_classify_digits.component");
  p.args = {"/d/model.onnx", "/d/test_x.f32", "/d/test_y.u8"};
  p.dirs = {{fixture("digits").string(), "/d"}};
  std::string out;
  p.on_stdout = [&](std::string_view s) { out.append(s); };
  const auto r = host->run(p);
  ASSERT_EQ(r.exit_code, 0) << r.message;
  EXPECT_NE(out.find("digit  0: predicted 2, label 2\n"), std::string::npos) << out;
  EXPECT_NE(out.find("accuracy: "), std::string::npos) << out;
}

TEST(ComponentsHost, AnInstanceOfALibraryComponentServesRepeatedCalls) {
  auto host = make_host(true);
  ASSERT_TRUE(host);
  wasinn::Program p;
  p.wasm_path = guest("wit_library.component");
  std::string error;
  auto instance = host->instantiate(p, &error);
  ASSERT_TRUE(instance) << error;
  for (int i = 0; i < 50; ++i) {
    int32_t result = -1;
    ASSERT_TRUE(instance->call("run", &result, &error)) << error;
    EXPECT_EQ(result, 2);
  }
  int32_t unused = 0;
  EXPECT_FALSE(instance->call("no-such-export", &unused, &error));
  EXPECT_NE(error.find("the component exports no function named no-such-export"), std::string::npos) << error;
}

}  // namespace
}  // namespace wasinn_it
