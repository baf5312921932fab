// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "compat_env.h"

#include <cstdlib>
#include <fstream>
#include <stdexcept>

#include "u8_front_end.h"
#include "support/stream_bytes.h"

namespace wasinn_compat {

std::string wasinn_binary() { return WASINN_CLI_PATH; }
fs::path backend_dir() { return WASINN_BACKEND_DIR; }
fs::path guest(const std::string& name) { return fs::path(WASINN_GUEST_DIR) / (name + ".wasm"); }
bool rust_guests_built() { return WASINN_COMPAT_RUST != 0; }

fs::path fixtures_root() {
  const char* env = std::getenv("WASINN_FIXTURES");
  return env && *env ? fs::path(env) : fs::path(WASINN_FIXTURES_DEFAULT);
}

fs::path fixture(const std::string& relative) {
  const fs::path p = fixtures_root() / relative;
  if (!fs::exists(p)) {
    throw std::runtime_error(
        "fixture " + p.string() +
        " is missing: run .deps/venv/bin/python scripts/make_fixtures.py (or set WASINN_FIXTURES)");
  }
  return p;
}

std::vector<uint8_t> read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  return wasinn_test::stream_bytes(in);
}

void write_bytes(const fs::path& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

namespace {

struct DataDir {
  fs::path path;
  DataDir() {
    std::string templ = (fs::temp_directory_path() / "wasinn-compat-XXXXXX").string();
    if (!mkdtemp(templ.data())) throw std::runtime_error("mkdtemp failed");
    path = templ;
    for (const char* f : {"model.onnx", "test_x.f32", "test_y.u8"})
      fs::copy_file(fixture(std::string("digits/") + f), path / f);
    const auto model = read_bytes(fixture("digits/model.onnx"));
    fs::create_directory(path / "digits_u8");
    write_bytes(path / "digits_u8" / "model.onnx", make_u8_front_end(model, "input", kPixelScale));
    write_bytes(path / "test_x.u8", unscale_features(read_array<float>(fixture("digits/test_x.f32")), kPixelScale));
  }
  ~DataDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

}  // namespace

const fs::path& data_dir() {
  static const DataDir dir;
  return dir.path;
}

ChildResult run_guest(const std::vector<std::string>& host_args, const std::string& guest_name,
                      const std::vector<std::string>& guest_args) {
  std::vector<std::string> argv{wasinn_binary(), "run"};
  argv.insert(argv.end(), host_args.begin(), host_args.end());
  argv.insert(argv.end(), {"--dir", data_dir().string() + "::/data", guest(guest_name).string()});
  argv.insert(argv.end(), guest_args.begin(), guest_args.end());
  return run_child(argv);
}

}  // namespace wasinn_compat
