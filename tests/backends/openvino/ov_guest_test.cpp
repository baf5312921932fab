// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Through real wasm guests: `wasinn run` as a subprocess on this build's CLI, guests and plugin.
// The digits classifier's logits from the guest equal native OpenVINO's bit for bit; named
// (preloaded) models and ONNX-through-OpenVINO work; error paths end the guest with the
// documented errno while the host reports the detail and exits normally.
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "guest_runner.h"
#include "ov_test_support.h"

namespace wasinn_test {
namespace {

using ::testing::HasSubstr;

// wasinn run with the fixtures at /f, a scratch directory at /out and f32 math.
GuestRun wasinn_run(const std::vector<std::string>& host_args, const std::string& guest,
                    const std::vector<std::string>& guest_args, const std::string& out_dir) {
  std::vector<std::string> host = {
      "--dir", fixtures_dir().string() + "::/f", "--dir", out_dir + "::/out", "--backend-config", "openvino=" + kF32};
  host.insert(host.end(), host_args.begin(), host_args.end());
  return run_guest(host, guest, guest_args);
}

class OvGuest : public ::testing::Test {
 protected:
  void SetUp() override {
    out_ = scratch_dir(std::string("ov_guest_") + ::testing::UnitTest::GetInstance()->current_test_info()->name());
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(out_, ec);
  }
  std::vector<float> read_out(const std::string& name) { return as_vector<float>(read_file(out_ + "/" + name)); }
  std::string out_;
};

// Native OpenVINO, one row per inference as the guest does it.
std::vector<float> native_rows(const std::string& model, const std::vector<float>& x, size_t n) {
  auto compiled = native_compile(fixture_path(model));
  std::vector<float> all;
  for (size_t i = 0; i < n; ++i) {
    const auto row = native_run(compiled, {1, 64}, x.data() + i * 64);
    all.insert(all.end(), row.begin(), row.end());
  }
  return all;
}

TEST_F(OvGuest, DigitsGuestMatchesNativeBitForBit) {
  const auto r = wasinn_run({}, "ov_digits_guest",
                            {"/f/digits/openvino/model.xml", "/f/digits/openvino/model.bin", "/f/digits/test_x.f32",
                             "/f/digits/test_y.u8", "/out/logits.f32"},
                            out_);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto x = read_fixture_as<float>("digits/test_x.f32");
  const auto y = read_fixture("digits/test_y.u8");
  const auto got = read_out("logits.f32");
  const auto want = native_rows("digits/openvino/model.xml", x, y.size());
  ASSERT_EQ(got.size(), y.size() * 10);
  ASSERT_EQ(want.size(), got.size());
  EXPECT_EQ(std::memcmp(got.data(), want.data(), got.size() * 4), 0) << "guest logits differ from native OpenVINO";
  const size_t correct = count_correct(got, y, 10);
  EXPECT_GE(correct * 100, y.size() * 95) << correct << "/" << y.size();
  EXPECT_THAT(r.output, HasSubstr("accuracy " + std::to_string(correct) + "/" + std::to_string(y.size())));
  RecordProperty("guest_accuracy", std::to_string(correct) + "/" + std::to_string(y.size()));
}

TEST_F(OvGuest, PreloadedIrByName) {
  const auto r = wasinn_run(
      {"--nn-preload", "digits:openvino:cpu:" + fixture_path("digits/openvino/model.xml") + ":" +
                           fixture_path("digits/openvino/model.bin")},
      "ov_digits_guest", {"name:digits", "-", "/f/digits/test_x.f32", "/f/digits/test_y.u8", "/out/logits.f32"}, out_);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto x = read_fixture_as<float>("digits/test_x.f32");
  const auto y = read_fixture("digits/test_y.u8");
  const auto got = read_out("logits.f32");
  const auto want = native_rows("digits/openvino/model.xml", x, y.size());
  ASSERT_EQ(got.size(), want.size());
  EXPECT_EQ(std::memcmp(got.data(), want.data(), got.size() * 4), 0);
}

// run_model: the whole held-out set as one batch of 450, IR and ONNX-through-OpenVINO.
TEST_F(OvGuest, RunModelBatchIrAndOnnx) {
  const auto x = read_fixture_as<float>("digits/test_x.f32");
  const auto y = read_fixture("digits/test_y.u8");
  const std::string dims = std::to_string(y.size()) + "x64";
  for (auto [model, native_model] :
       {std::pair<std::string, std::string>{"/f/digits/openvino/model.xml,/f/digits/openvino/model.bin",
                                            "digits/openvino/model.xml"},
        {"/f/digits/model.onnx", "digits/model.onnx"}}) {
    const auto r = wasinn_run({}, "run_model",
                              {"--model", model, "--encoding", "0", "--input",
                               "0:f32:" + dims + ":/f/digits/test_x.f32", "--output", "0:/out/batch.f32"},
                              out_);
    ASSERT_EQ(r.exit_code, 0) << model << "\n" << r.output;
    auto compiled = native_compile(fixture_path(native_model));
    const auto want = native_run(compiled, {y.size(), 64}, x.data());
    const auto got = read_out("batch.f32");
    ASSERT_EQ(got.size(), want.size()) << model;
    EXPECT_EQ(std::memcmp(got.data(), want.data(), got.size() * 4), 0) << model;
    EXPECT_GE(count_correct(got, y, 10) * 100, y.size() * 95) << model;
  }
}

struct ErrorCase {
  const char* what;
  std::vector<std::string> args;
  int errno_value;
  const char* step;
  const char* detail;
};

// Each ends the guest with the errno as its exit status; the host prints the detail and lives.
TEST_F(OvGuest, ErrorPathsGiveDocumentedErrno) {
  const std::string xml = "/f/digits/openvino/model.xml", bin = "/f/digits/openvino/model.bin";
  const std::string in1 = "0:f32:1x64:/f/digits/test_x.f32";
  // 128 bytes: right for f16 [1,64] and f32 [1,32], so the host's length check passes and the
  // plugin's type and shape checks answer.
  std::ofstream(out_ + "/in128.bin", std::ios::binary) << std::string(128, '\0');
  bool has_gpu = false, has_npu = false;
  for (const auto& d : native_core().get_available_devices()) {
    has_gpu |= d.rfind("GPU", 0) == 0;
    has_npu |= d.rfind("NPU", 0) == 0;
  }
  std::vector<ErrorCase> cases = {
      {"one builder of XML", {"--model", xml, "--encoding", "0"}, 1, "load", "needs two graph builders"},
      {"corrupt XML",
       {"--model", "/f/corrupt/openvino_bad.xml," + bin, "--encoding", "0"},
       1,
       "load",
       "the OpenVINO IR cannot be read"},
      {"short weights",
       {"--model", xml + ",/f/corrupt/openvino_short.bin", "--encoding", "0"},
       1,
       "load",
       "Incorrect weights in bin file"},
      {"f16 input for f32",
       {"--model", xml + "," + bin, "--encoding", "0", "--input", "0:f16:1x64:/out/in128.bin"},
       1,
       "set_input",
       "expected f32 [?, 64], got f16 [1, 64]"},
      {"wrong width",
       {"--model", xml + "," + bin, "--encoding", "0", "--input", "0:f32:1x32:/out/in128.bin"},
       1,
       "set_input",
       "expected f32 [?, 64], got f32 [1, 32]"},
  };
  if (!has_gpu)
    cases.push_back(
        {"gpu target",
         {"--model", xml + "," + bin, "--encoding", "0", "--target", "1", "--input", in1},
         6,
         "load",
         "OpenVINO device GPU, which this machine lacks (OpenVINO's GPU plugin runs on an Intel GPU through OpenCL"});
  if (!has_npu)
    cases.push_back({"tpu target",
                     {"--model", xml + "," + bin, "--encoding", "0", "--target", "2", "--input", in1},
                     6,
                     "load",
                     "OpenVINO device NPU, which this machine lacks"});
  for (const auto& c : cases) {
    const auto r = wasinn_run({}, "run_model", c.args, out_);
    EXPECT_EQ(r.exit_code, c.errno_value) << c.what << "\n" << r.output;
    EXPECT_THAT(r.output, HasSubstr("errno " + std::to_string(c.errno_value) + " in " + c.step)) << c.what;
    EXPECT_THAT(r.output, HasSubstr(c.detail)) << c.what;
  }
}

// `wasinn run` with LD_DEBUG=files, so that the output lists every library the dynamic loader
// opens (OpenVINO dlopens one library per device plugin).
GuestRun run_listing_libraries(const std::vector<std::string>& args, const std::string& out_dir) {
  setenv("LD_DEBUG", "files", 1);
  GuestRun r = wasinn_run({}, "run_model", args, out_dir);
  unsetenv("LD_DEBUG");
  return r;
}

// The output without the loader's lines ("  1234:\tfile=..."), for failure messages.
std::string without_loader_lines(const std::string& output) {
  std::string kept;
  size_t start = 0;
  while (start < output.size()) {
    size_t end = output.find('\n', start);
    end = end == std::string::npos ? output.size() : end + 1;
    const std::string line = output.substr(start, end - start);
    const size_t digits = line.find_first_not_of(' ');
    const size_t colon = line.find(':');
    const bool loader = digits != std::string::npos && colon != std::string::npos && colon > digits &&
                        line.find_first_not_of("0123456789", digits) == colon;
    if (!loader) kept += line;
    start = end;
  }
  return kept;
}

// A CPU model loads the CPU device plugin alone: asking OpenVINO for every device would load
// the GPU, NPU, AUTO and HETERO plugins and libOpenCL too (about 25 MiB and 30 ms here).
// gpu and tpu targets still ask, so their errors can list the devices found.
TEST_F(OvGuest, CpuTargetLoadsOnlyTheCpuDevicePlugin) {
  const std::string model = "/f/digits/openvino/model.xml,/f/digits/openvino/model.bin";
  const std::string input =
      "0:f32:" + std::to_string(read_fixture("digits/test_y.u8").size()) + "x64:/f/digits/test_x.f32";
  const auto cpu = run_listing_libraries({"--model", model, "--encoding", "0", "--input", input}, out_);
  ASSERT_EQ(cpu.exit_code, 0) << without_loader_lines(cpu.output);
  // LD_DEBUG reached the run:
  EXPECT_NE(cpu.output.find("libopenvino_intel_cpu_plugin.so"), std::string::npos);
  for (const char* lib : {"libopenvino_intel_gpu_plugin", "libopenvino_intel_npu_plugin", "libopenvino_auto_plugin",
                          "libopenvino_hetero_plugin", "libOpenCL"})
    EXPECT_EQ(cpu.output.find(lib), std::string::npos) << lib << " was loaded for a CPU model";

  const auto gpu =
      run_listing_libraries({"--model", model, "--encoding", "0", "--target", "1", "--input", input}, out_);
  EXPECT_NE(gpu.output.find("libopenvino_intel_gpu_plugin.so"), std::string::npos)
      << "a gpu target no longer asks OpenVINO for its devices";
  if (gpu.exit_code != 0) {
    EXPECT_THAT(without_loader_lines(gpu.output), HasSubstr("OpenVINO device GPU, which this machine lacks"));
  }
}

// The host's compute deadline cancels an OpenVINO compute through the plugin's cancel(): the
// guest gets the timeout errno (runtime_error, 5, in the witx table) instead of waiting.
TEST_F(OvGuest, ComputeDeadlineCancels) {
  const auto r = wasinn_run({"--max-compute-ms", "1"}, "run_model",
                            {"--model", "/f/mobilenet_v2/openvino/model.xml,/f/mobilenet_v2/openvino/model.bin",
                             "--encoding", "0", "--input", "0:f32:1x3x224x224:/f/mobilenet_v2/input.f32"},
                            out_);
  EXPECT_EQ(r.exit_code, 5) << r.output;
  EXPECT_THAT(r.output, HasSubstr("errno 5 in compute"));
  EXPECT_THAT(r.output, HasSubstr("timeout"));
}

}  // namespace
}  // namespace wasinn_test
