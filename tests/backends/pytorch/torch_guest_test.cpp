// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// End to end: the run_model guest (wasm32-wasi) on `wasinn run`, its outputs compared with
// native libtorch on the same inputs, and its errors seen as the guest sees them (errno) and as
// the user sees them (the host's detail on stderr; the runner captures both streams together).
#include <algorithm>

#include "guest_runner.h"
#include "native_torch.h"

namespace wasinn_test {
namespace {

using ::testing::HasSubstr;

const std::string kOneThread = R"(pytorch={"num_threads": 1})";

// Host arguments common to every run: fixtures at /fx, a scratch dir at /out, one thread.
std::vector<std::string> host_args(const std::string& out, std::vector<std::string> more = {}) {
  std::vector<std::string> a = {
      "--dir", fixtures_dir().string() + "::/fx", "--dir", out + "::/out", "--backend-config", kOneThread};
  a.insert(a.end(), more.begin(), more.end());
  return a;
}

HostTensor read_output(const std::string& out, const std::string& file, const HostTensor& like) {
  HostTensor t = like;
  t.bytes = read_file(out + "/" + file);
  return t;
}

void expect_bytes_equal(const std::vector<uint8_t>& got, const std::vector<uint8_t>& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  EXPECT_TRUE(got == want) << what << " differs from native libtorch";
}

double accuracy(const std::vector<float>& logits, const std::vector<uint8_t>& labels) {
  size_t correct = 0;
  for (size_t i = 0; i < labels.size(); ++i) {
    const float* row = &logits[i * 10];
    correct += static_cast<size_t>(std::max_element(row, row + 10) - row) == labels[i];
  }
  return static_cast<double>(correct) / labels.size();
}

// The 450 held-out digits in one batch, through load (bytes from the guest) and through
// load_by_name (a host preload): both bit-equal to native libtorch with the same thread count.
TEST(TorchGuest, DigitsMatchNativeAndClassify) {
  native_set_threads(1);
  const auto x_bytes = read_fixture("digits/test_x.f32");
  HostTensor x;
  x.type = WASINN_TYPE_F32;
  x.dims = {450, 64};
  x.bytes = x_bytes;
  const std::string model = (fixtures_dir() / "digits/model.pt").string();
  const auto want = native_forward(model, {x});
  ASSERT_EQ(want.size(), 1u);
  const auto labels = read_fixture("digits/test_y.u8");
  ASSERT_EQ(labels.size(), 450u);

  const std::vector<std::string> io = {"--input", input_arg(0, "f32", {450, 64}, "/fx/digits/test_x.f32"), "--output",
                                       "0:/out/logits.f32"};
  struct Way {
    const char* name;
    std::vector<std::string> host, guest;
  } ways[] = {
      {"load", {}, {"--model", "/fx/digits/model.pt", "--encoding", "3"}},
      {"load_by_name", {"--nn-preload", "digits:pytorch:cpu:" + model}, {"--name", "digits"}},
  };
  for (auto& way : ways) {
    const std::string out = scratch_dir(std::string("digits_") + way.name);
    std::vector<std::string> guest = way.guest;
    guest.insert(guest.end(), io.begin(), io.end());
    const GuestRun r = run_guest(host_args(out, way.host), "run_model", guest);
    ASSERT_EQ(r.exit_code, 0) << way.name << ": " << r.output;
    const HostTensor got = read_output(out, "logits.f32", want[0]);
    expect_bytes_equal(got.bytes, want[0].bytes, std::string(way.name) + " logits");
    EXPECT_GE(accuracy(got.as<float>(), labels), 0.95) << way.name;
  }
}

TEST(TorchGuest, TwoInputsThreeOutputsMatchNative) {
  const std::string out = scratch_dir("two_in_three_out");
  const HostTensor a = make_tensor<float>(WASINN_TYPE_F32, {2, 3}, {0.25f, -1, 3, -7.5f, 2, 0});
  const HostTensor b = make_tensor<int64_t>(WASINN_TYPE_I64, {2, 3}, {9, -8, 7, 100, 0, -1});
  write_file(out + "/a.f32", a.bytes);
  write_file(out + "/b.i64", b.bytes);
  const GuestRun r =
      run_guest(host_args(out), "run_model",
                {"--model", "/fx/types/two_in_three_out.pt", "--encoding", "3", "--input",
                 input_arg(0, "f32", {2, 3}, "/out/a.f32"), "--input", input_arg(1, "i64", {2, 3}, "/out/b.i64"),
                 "--output", "0:/out/o0", "--output", "1:/out/o1", "--output", "2:/out/o2"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto want = native_forward((fixtures_dir() / "types/two_in_three_out.pt").string(), {a, b});
  ASSERT_EQ(want.size(), 3u);
  for (int i = 0; i < 3; ++i)
    expect_bytes_equal(read_file(out + "/o" + std::to_string(i)), want[i].bytes, "output " + std::to_string(i));
  // Element by element against known answers too.
  EXPECT_EQ(read_output(out, "o0", want[0]).as<float>(), (std::vector<float>{9.5f, -10, 13, 85, 4, -1}));
  EXPECT_EQ(read_output(out, "o1", want[1]).as<int64_t>(), (std::vector<int64_t>{23, 296}));
  EXPECT_EQ(read_file(out + "/o2"), (std::vector<uint8_t>{1, 0, 1, 0, 1, 0}));
}

TEST(TorchGuest, DictOutputsComeInSortedKeyOrder) {
  const std::string out = scratch_dir("dict_out");
  const HostTensor x = make_tensor<float>(WASINN_TYPE_F32, {2}, {3, -1});
  write_file(out + "/x.f32", x.bytes);
  const GuestRun r = run_guest(
      host_args(out), "run_model",
      {"--model", "/fx/types/dict_out.pt", "--encoding", "3", "--input", input_arg(0, "f32", {2}, "/out/x.f32"),
       "--output", "0:/out/o0", "--output", "1:/out/o1", "--output", "2:/out/o2"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto want = native_forward((fixtures_dir() / "types/dict_out.pt").string(), {x});
  ASSERT_EQ(want.size(), 3u);
  const char* keys[] = {"alpha", "mid", "zeta"};
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(want[i].name, keys[i]);
    expect_bytes_equal(read_file(out + "/o" + std::to_string(i)), want[i].bytes, keys[i]);
  }
}

struct ErrorCase {
  const char* name;
  std::vector<std::string> guest_args;
  int errno_value;
  const char* step;
  const char* detail;
};

TEST(TorchGuest, ErrorsReachTheGuestAsErrnoWithDetail) {
  const std::string out = scratch_dir("errors");
  write_file(out + "/ints.i32", std::vector<uint8_t>(64 * 4, 0));
  write_file(out + "/a.f32", std::vector<uint8_t>(6 * 4, 0));
  const ErrorCase cases[] = {
      {"garbage archive",
       {"--model", "/fx/corrupt/garbage.pt", "--encoding", "3"},
       1,
       "load",
       "not a TorchScript archive this libtorch can load"},
      {"truncated archive",
       {"--model", "/fx/corrupt/truncated.pt", "--encoding", "3"},
       1,
       "load",
       "failed finding central directory"},
      {"gpu target",
       {"--model", "/fx/digits/model.pt", "--encoding", "3", "--target", "1"},
       6,
       "load",
       "is a CPU build, without CUDA"},
      {"missing input",
       {"--model", "/fx/types/two_in_three_out.pt", "--encoding", "3", "--input",
        input_arg(0, "f32", {2, 3}, "/out/a.f32")},
       1,
       "compute",
       "not set: input 1 (\"b\")"},
      {"input index past forward's arguments",
       {"--model", "/fx/digits/model.pt", "--encoding", "3", "--input", input_arg(1, "f32", {2, 3}, "/out/a.f32")},
       1,
       "set_input",
       "input index 1 is out of range"},
      {"wrong dtype",
       {"--model", "/fx/digits/model.pt", "--encoding", "3", "--input", input_arg(0, "i32", {1, 64}, "/out/ints.i32")},
       5,
       "compute",
       "mat1 and mat2 must have the same dtype"},
  };
  for (const ErrorCase& c : cases) {
    const GuestRun r = run_guest(host_args(out), "run_model", c.guest_args);
    EXPECT_EQ(r.exit_code, c.errno_value) << c.name << ": " << r.output;
    EXPECT_THAT(r.output, HasSubstr("errno " + std::to_string(c.errno_value) + " in " + c.step)) << c.name;
    EXPECT_THAT(r.output, HasSubstr(c.detail)) << c.name;
  }
}

}  // namespace
}  // namespace wasinn_test
