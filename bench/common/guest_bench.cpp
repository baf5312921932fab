// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "guest_bench.h"

namespace wasinn::bench {

namespace {

std::string join_dims(const std::vector<uint32_t>& dims) {
  std::string s;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) s += 'x';
    s += std::to_string(dims[i]);
  }
  return s;
}

// bench_guest.c's own codes above the wasi-nn errnos.
std::string describe_code(int32_t code) {
  switch (code) {
    case 200: return "200 (bad guest arguments)";
    case 201: return "201 (guest file I/O failed)";
    case 202: return "202 (guest out of memory)";
    case 203: return "203 (bench_setup did not succeed)";
    default: return "wasi-nn errno " + std::to_string(code);
  }
}

}  // namespace

std::vector<std::string> GuestArgs::to_argv() const {
  std::vector<std::string> argv;
  if (!model_files.empty()) {
    std::string files;
    for (const auto& f : model_files) {
      if (!files.empty()) files += ',';
      files += f;
    }
    argv.insert(argv.end(),
                {"--model", files, "--encoding", std::to_string(encoding), "--target", std::to_string(target)});
  } else {
    argv.insert(argv.end(), {"--name", name});
    if (!config.empty()) argv.insert(argv.end(), {"--config", config});
  }
  for (const auto& in : inputs) {
    argv.insert(argv.end(),
                {"--input", std::to_string(in.index) + ":" + in.type + ":" + join_dims(in.dims) + ":" + in.file});
  }
  for (const auto& out : outputs) {
    argv.insert(argv.end(),
                {"--output", std::to_string(out.index) + ":" + out.file + ":" + std::to_string(out.max_bytes)});
  }
  argv.insert(argv.end(), {"--repeat", std::to_string(repeat)});
  return argv;
}

std::unique_ptr<GuestBench> GuestBench::start(Host& host, Program program, const GuestArgs& args, std::string* error) {
  program.args = args.to_argv();
  auto instance = host.instantiate(program, error);
  if (!instance) return nullptr;
  std::unique_ptr<GuestBench> bench(new GuestBench(std::move(instance)));
  // A reactor's _initialize runs the C constructors (stdio, environ) before any other export.
  if (!bench->call("_initialize", error) || !bench->call("bench_setup", error)) return nullptr;
  return bench;
}

bool GuestBench::call(const std::string& export_name, std::string* error) {
  int32_t code = 0;
  std::string detail;
  if (!instance_->call(export_name, &code, &detail)) {
    if (error) *error = export_name + ": " + detail;
    return false;
  }
  if (code != 0) {
    if (error) *error = export_name + " returned " + describe_code(code);
    return false;
  }
  return true;
}

}  // namespace wasinn::bench
