// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "model_source.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <filesystem>
#include <string_view>

#include "config.h"
#include "model_checks.h"
#include "ggml_common/preload_path.hpp"

namespace wasinn::llamacpp {
namespace {

constexpr std::string_view kGgufMagic = "GGUF";

Error copy_to_memfd(const wasinn_bytes& bytes, int& fd_out) {
  const int fd = memfd_create("wasinn-gguf", MFD_CLOEXEC);
  if (fd < 0) return sdk::runtime_error(std::string("memfd_create failed: ") + std::strerror(errno));
  size_t done = 0;
  while (done < bytes.length) {
    const ssize_t n = ::write(fd, bytes.data + done, bytes.length - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = errno;
      ::close(fd);
      return sdk::runtime_error(std::string("copying the model into memory failed: ") + std::strerror(err));
    }
    done += static_cast<size_t>(n);
  }
  fd_out = fd;
  return {};
}

Error check_host_file(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    return {WASINN_MODEL_NOT_FOUND, "model file " + path + " does not exist or is not a regular file"};
  }
  return {};
}

}  // namespace

ModelSource::~ModelSource() {
  if (memfd_ >= 0) ::close(memfd_);
}

Error resolve_model_source(const sdk::LoadRequest& request, bool allow_host_paths, ModelSource& out) {
  const auto builders = request.builders();
  size_t n = builders.size();
  if (n == 0) return sdk::invalid("load: no graph builders given");
  if (!request.config().empty()) out.configs_.emplace_back(request.config());
  if (n >= 2 && looks_like_json_object(sdk::builder_text(builders[n - 1]))) {
    out.configs_.emplace_back(sdk::builder_text(builders[n - 1]));
    --n;
  }

  // Preloaded by the host: open the files themselves (several builders are split parts).
  if (request.path(0)) {
    for (size_t i = 0; i < n; ++i) {
      const char* path = request.path(i);
      if (!path) return sdk::invalid("load: builder " + std::to_string(i) + " has bytes but no file path");
      if (Error e = check_host_file(path)) return e;
      out.paths_.emplace_back(path);
    }
    // model.gguf:mmproj.gguf: the operator's projector; model.gguf:vocoder.gguf, its vocoder (split
    // parts are neither).
    if (out.paths_.size() >= 2 && is_projector_gguf(out.paths_.back().c_str())) {
      out.projector_ = out.paths_.back();
      out.paths_.pop_back();
    } else if (out.paths_.size() >= 2 && is_vocoder_gguf(out.paths_.back().c_str())) {
      out.vocoder_ = out.paths_.back();
      out.paths_.pop_back();
    }
    out.description_ = out.paths_.front();
    return {};
  }
  if (n != 1) {
    return sdk::invalid("load: expected one GGUF builder (and optionally a JSON config builder), got " +
                        std::to_string(n) + " model builders");
  }
  const std::string_view first = sdk::builder_text(builders[0]);
  Error refused;
  if (auto path = ggml_common::preload_path(first, allow_host_paths, "llamacpp", refused)) {
    if (refused) return refused;
    out.paths_.push_back(*path);
    out.description_ = *path;
    return {};
  }
  if (first.substr(0, kGgufMagic.size()) != kGgufMagic) {
    return sdk::invalid("load: builder 0 is neither a GGUF model (it does not start with 'GGUF') nor 'preload:<path>'");
  }
  if (Error e = copy_to_memfd(builders[0], out.memfd_)) return e;
  out.paths_.push_back("/proc/self/fd/" + std::to_string(out.memfd_));
  out.description_ = "<" + std::to_string(builders[0].length) + " bytes of GGUF from the guest>";
  return {};
}

}  // namespace wasinn::llamacpp
