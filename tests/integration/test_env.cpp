// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "test_env.h"

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include "support/stream_bytes.h"

namespace wasinn_it {

std::string wasinn_binary() { return WASINN_CLI_PATH; }
std::string guest(const std::string& name) { return std::string(WASINN_GUEST_DIR) + "/" + name + ".wasm"; }
fs::path backend_dir() { return WASINN_BACKEND_DIR; }
fs::path ort_library_dir() { return WASINN_ORT_LIBRARY_DIR; }

fs::path fixture(const std::string& relative) {
  const char* env = std::getenv("WASINN_FIXTURES");
  const fs::path root = env && *env ? fs::path(env) : fs::path(WASINN_FIXTURES_DEFAULT);
  const fs::path p = root / relative;
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

void write_bytes(const fs::path& path, const void* data, size_t size) {
  std::ofstream out(path, std::ios::binary);
  out.write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

void write_text(const fs::path& path, const std::string& text) { write_bytes(path, text.data(), text.size()); }

ScratchDir::ScratchDir() {
  std::string templ = (fs::temp_directory_path() / "wasinn-it-XXXXXX").string();
  if (!mkdtemp(templ.data())) throw std::runtime_error("mkdtemp failed");
  path_ = templ;
}

ScratchDir::~ScratchDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

ChildResult run_wasinn(const std::vector<std::string>& args, const ChildOptions& options) {
  std::vector<std::string> argv{wasinn_binary()};
  argv.insert(argv.end(), args.begin(), args.end());
  // The build's own plugins are under test, not whatever a developer's shell points at.
  ChildOptions own = options;
  own.unset_env.push_back("WASINN_BACKEND_PATH");
  return run_child(argv, own);
}

std::vector<std::string> single_thread_ort() { return {"--backend-config", R"(onnxruntime={"intra_op_threads":1})"}; }

std::vector<std::string> slow_ort() {
  return {"--backend-config", R"(onnxruntime={"intra_op_threads":1,"graph_optimization_level":"disable"})"};
}

}  // namespace wasinn_it
