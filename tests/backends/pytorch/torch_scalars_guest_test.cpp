// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Scalar arguments and results end to end: the run_model guest on `wasinn run` sets int, float
// and bool arguments of types/scalar_args.pt from one-element tensors and reads its scalar and
// nested-tuple outputs, compared byte for byte with native libtorch; and `wasinn models
// inspect` reports each argument's and output's TorchScript type.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <nlohmann/json.hpp>

#include "guest_runner.h"
#include "native_torch.h"

extern char** environ;

namespace wasinn_test {
namespace {

using ::testing::HasSubstr;

const std::string kModel = "types/scalar_args.pt";

std::vector<std::string> host_args(const std::string& out) {
  return {"--dir",
          fixtures_dir().string() + "::/fx",
          "--dir",
          out + "::/out",
          "--backend-config",
          R"(pytorch={"num_threads": 1})"};
}

template <typename T>
std::vector<uint8_t> bytes_of(T value) {
  std::vector<uint8_t> b(sizeof value);
  std::memcpy(b.data(), &value, sizeof value);
  return b;
}

// x f32 [2, 2], scale f64 [1], offset (i64 or i32) [1], flip u8 [1] unless flip < 0 (unset).
struct GuestCase {
  const char* name;
  int64_t offset;
  bool offset_as_i32;
  int flip;
};

TEST(TorchScalarsGuest, ScalarArgumentsAndOutputsMatchNative) {
  const HostTensor x = make_tensor<float>(WASINN_TYPE_F32, {2, 2}, {1, -2, 0.5f, 4});
  const double scale = 2.5;
  for (const GuestCase& k : {GuestCase{"default flip", 3, false, -1}, GuestCase{"i32 offset, flip set", -4, true, 1}}) {
    const std::string out = scratch_dir(std::string("scalars_") + (k.flip < 0 ? "a" : "b"));
    write_file(out + "/x.f32", x.bytes);
    write_file(out + "/scale.f64", bytes_of(scale));
    write_file(out + "/offset", k.offset_as_i32 ? bytes_of(static_cast<int32_t>(k.offset)) : bytes_of(k.offset));
    std::vector<std::string> args = {"--model",    "/fx/" + kModel,
                                     "--encoding", "3",
                                     "--input",    input_arg(0, "f32", {2, 2}, "/out/x.f32"),
                                     "--input",    input_arg(1, "f64", {1}, "/out/scale.f64"),
                                     "--input",    input_arg(2, k.offset_as_i32 ? "i32" : "i64", {1}, "/out/offset")};
    if (k.flip >= 0) {
      write_file(out + "/flip.u8", {static_cast<uint8_t>(k.flip)});
      args.insert(args.end(), {"--input", input_arg(3, "u8", {1}, "/out/flip.u8")});
    }
    for (int i = 0; i < 4; ++i)
      args.insert(args.end(), {"--output", std::to_string(i) + ":/out/o" + std::to_string(i)});
    const GuestRun r = run_guest(host_args(out), "run_model", args);
    ASSERT_EQ(r.exit_code, 0) << k.name << ": " << r.output;

    std::vector<NativeArg> native = {x, scale, k.offset};
    if (k.flip >= 0) native.emplace_back(k.flip == 1);
    const auto want = native_forward_args((fixtures_dir() / kModel).string(), native);
    ASSERT_EQ(want.size(), 4u);
    for (int i = 0; i < 4; ++i)
      EXPECT_TRUE(read_file(out + "/o" + std::to_string(i)) == want[i].bytes)
          << k.name << ": output " << i << " differs from native libtorch";
    // Known answers: y = ±(x * 2.5 + offset), offset * 3, 2.5 / 4, not flip.
    const float sign = k.flip == 1 ? -1.f : 1.f, off = static_cast<float>(k.offset);
    HostTensor y = want[0];
    y.bytes = read_file(out + "/o0");
    EXPECT_EQ(y.as<float>(),
              (std::vector<float>{sign * (2.5f + off), sign * (-5 + off), sign * (1.25f + off), sign * (10 + off)}))
        << k.name;
    EXPECT_EQ(read_file(out + "/o1"), bytes_of<int64_t>(k.offset * 3)) << k.name;
    EXPECT_EQ(read_file(out + "/o2"), bytes_of(0.625)) << k.name;
    EXPECT_EQ(read_file(out + "/o3"), std::vector<uint8_t>{uint8_t(k.flip == 1 ? 0 : 1)}) << k.name;
  }
}

TEST(TorchScalarsGuest, RefusedScalarsReachTheGuestAsInvalidArgument) {
  const std::string out = scratch_dir("scalars_errors");
  write_file(out + "/two.u8", {2});
  write_file(out + "/pair.i64", std::vector<uint8_t>(16, 0));
  const struct {
    std::string input;
    const char* detail;
  } cases[] = {
      {input_arg(3, "u8", {1}, "/out/two.u8"),
       "input 3 (\"flip\") is a TorchScript bool, which takes one u8 element, 0 or 1, got u8 2"},
      {input_arg(2, "i64", {2}, "/out/pair.i64"),
       "input 2 (\"offset\") is a TorchScript int, which takes one i64, i32, i8 or u8 element, "
       "got i64 [2] (2 elements)"},
  };
  for (const auto& c : cases) {
    const GuestRun r =
        run_guest(host_args(out), "run_model", {"--model", "/fx/" + kModel, "--encoding", "3", "--input", c.input});
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_THAT(r.output, HasSubstr("errno 1 in set_input"));
    EXPECT_THAT(r.output, HasSubstr(c.detail));
  }
}

struct CliRun {
  int exit_code = -1;
  std::string out, err;
};

// `wasinn <args...>` with stdout and stderr kept apart (the JSON is stdout alone).
CliRun run_wasinn(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {WASINN_CLI};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> raw;
  for (auto& a : argv) raw.push_back(a.data());
  raw.push_back(nullptr);
  const std::string dir = scratch_dir("cli");
  const std::string out = dir + "/stdout", err = dir + "/stderr";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  CliRun run;
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, raw[0], &actions, nullptr, raw.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return run;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  const auto o = read_file(out), e = read_file(err);
  run.out.assign(o.begin(), o.end());
  run.err.assign(e.begin(), e.end());
  return run;
}

TEST(TorchScalarsCli, InspectShowsTorchScriptTypes) {
  const std::string model = (fixtures_dir() / kModel).string();
  const CliRun r = run_wasinn({"models", "inspect", "--backend-dir", WASINN_BACKEND_DIR, "--json", model});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto j = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  EXPECT_EQ(j["backend"], "pytorch");
  struct Want {
    const char *name, *type, *framework_type;
    nlohmann::json shape;
  };
  const Want inputs[] = {{"x", "?", "TorchScript Tensor", nullptr},
                         {"scale", "f64", "TorchScript float", nlohmann::json::array()},
                         {"offset", "i64", "TorchScript int", nlohmann::json::array()},
                         {"flip", "u8", "TorchScript bool (optional, default False)", nlohmann::json::array()}};
  const Want outputs[] = {{"output0", "?", "TorchScript Tensor", nullptr},
                          {"output1", "i64", "TorchScript int", nlohmann::json::array()},
                          {"output2", "f64", "TorchScript float", nlohmann::json::array()},
                          {"output3", "u8", "TorchScript bool", nlohmann::json::array()}};
  auto check = [&](const nlohmann::json& got, const Want* want, size_t n, const char* side) {
    ASSERT_TRUE(got.is_array()) << side;
    ASSERT_EQ(got.size(), n) << side;
    for (size_t i = 0; i < n; ++i) {
      const std::string what = std::string(side) + " " + std::to_string(i);
      EXPECT_EQ(got[i]["index"], i) << what;
      EXPECT_EQ(got[i]["name"], want[i].name) << what;
      EXPECT_EQ(got[i]["type"], want[i].type) << what;
      EXPECT_EQ(got[i]["shape"], want[i].shape) << what;
      EXPECT_EQ(got[i].value("framework_type", ""), want[i].framework_type) << what;
    }
  };
  check(j["inputs"], inputs, 4, "input");
  check(j["outputs"], outputs, 4, "output");

  // The table shows the same words beside each name, not "? ?".
  const CliRun text = run_wasinn({"models", "inspect", "--backend-dir", WASINN_BACKEND_DIR, model});
  ASSERT_EQ(text.exit_code, 0) << text.out << text.err;
  for (const char* words : {"scale  (TorchScript float)", "offset  (TorchScript int)",
                            "flip  (TorchScript bool (optional, default False))", "x  (TorchScript Tensor)"})
    EXPECT_THAT(text.out, HasSubstr(words));
}

}  // namespace
}  // namespace wasinn_test
