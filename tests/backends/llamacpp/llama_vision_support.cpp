// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "llama_vision_support.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <map>

#include "plugin_harness.h"
#include "probe_run.h"

namespace wasinn_test {
namespace {

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// A chat template that is the prompt itself, so llama-mtmd-cli tokenizes what the guest sends.
constexpr const char* kRawTemplate = "{% for message in messages %}{{ message['content'] }}{% endfor %}";

// Runs of llama-mtmd-cli for one whole answer: each is cut with a small chance, and only under load.
constexpr int kNativeRuns = 5;

// `cmd`'s stdout and exit status; false when it could not be started.
bool run_command(const std::string& cmd, std::string& out, int& status) {
  out.clear();
  FILE* pipe = popen(cmd.c_str(), "r");
  EXPECT_NE(pipe, nullptr) << cmd;
  if (!pipe) return false;
  std::array<char, 4096> buf;
  for (size_t n; (n = fread(buf.data(), 1, buf.size(), pipe)) > 0;) out.append(buf.data(), n);
  status = pclose(pipe);
  return true;
}

}  // namespace

std::string llava(const std::string& name) { return (fixtures_dir() / "llava" / name).string(); }

std::string native_answer(const std::string& image, const std::string& prompt, const std::string& model,
                          const std::string& mmproj) {
  const std::string m = model.empty() ? tiny_model() : model;
  const std::string p = mmproj.empty() ? llava("mmproj-tiny.gguf") : mmproj;
  static std::map<std::string, std::string> cache;
  const std::string key = image + "|" + prompt + "|" + m + "|" + p;
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  // llama-mtmd-cli's own marker; with none it would put the image first.
  std::string raw = prompt;
  const size_t at = raw.find("<image>");
  EXPECT_NE(at, std::string::npos) << prompt;
  if (at != std::string::npos) raw.replace(at, 7, "<__media__>");
  // -lv 4: its timings on stderr, which it logs after the answer.
  const std::string err_path = scratch_dir("llama_mtmd_cli") + "/stderr.log";
  const std::string cmd = "GGML_BACKEND_PATH=" + shell_quote(std::string(WASINN_GGML_MODULE_DIR) + "/libggml-cpu.so") +
                          " " + shell_quote(WASINN_LLAMA_MTMD_CLI) + " -m " + shell_quote(m) + " --mmproj " +
                          shell_quote(p) + " --image " + shell_quote(image) + " -p " + shell_quote(raw) +
                          " --jinja --chat-template " + shell_quote(kRawTemplate) + " --temp 0 -n " +
                          std::to_string(kPredict) + " -t 1 -c 512 --seed 1 -lv 4 2>" + shell_quote(err_path);
  // llama-mtmd-cli writes through llama.cpp's logger thread, which it never joins at exit
  // (ggml-org/llama.cpp#22142): under load it can exit 0 before that thread has written the
  // answer's last tokens. The thread writes in order, so the timings on stderr mean all of it.
  std::string out;
  int status = 0;
  bool whole = false;
  for (int run = 1; run <= kNativeRuns && !whole; ++run) {
    if (!run_command(cmd, out, status) || !WIFEXITED(status) || WEXITSTATUS(status) != 0) break;
    const std::vector<uint8_t> err = read_file(err_path);
    whole = std::string(err.begin(), err.end()).find("llama_perf_context_print:") != std::string::npos;
    if (!whole)
      std::fprintf(stderr, "llama-mtmd-cli's output was cut (run %d of %d): %s\n", run, kNativeRuns, out.c_str());
  }
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << cmd << "\n" << out;
  EXPECT_TRUE(whole) << "cut in each of " << kNativeRuns << " runs: " << cmd << "\n" << out;
  // Its stdout is the answer between the newline it prints before and the two after.
  const bool framed = out.size() >= 3 && out.front() == '\n' && out.compare(out.size() - 2, 2, "\n\n") == 0;
  EXPECT_TRUE(framed) << out;
  if (!whole || !framed) return "";
  return cache[key] = out.substr(1, out.size() - 3);
}

std::string base64(const std::vector<uint8_t>& bytes) {
  static const char* abc = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const uint32_t v = (bytes[i] << 16) | (bytes[i + 1] << 8) | bytes[i + 2];
    for (int s = 18; s >= 0; s -= 6) out += abc[(v >> s) & 63];
  }
  if (i + 1 == bytes.size()) {
    const uint32_t v = bytes[i] << 16;
    out += std::string{abc[(v >> 18) & 63], abc[(v >> 12) & 63], '=', '='};
  } else if (i + 2 == bytes.size()) {
    const uint32_t v = (bytes[i] << 16) | (bytes[i + 1] << 8);
    out += std::string{abc[(v >> 18) & 63], abc[(v >> 12) & 63], abc[(v >> 6) & 63], '='};
  }
  return out;
}

bool decode_base64(const std::string& text, std::vector<uint8_t>& out) {
  static const std::string abc = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  out.clear();
  uint32_t bits = 0;
  int n = 0;
  for (char c : text) {
    if (c == '=') break;
    const size_t v = abc.find(c);
    if (v == std::string::npos) return false;
    bits = (bits << 6) | static_cast<uint32_t>(v);
    if ((n += 6) >= 8) out.push_back(static_cast<uint8_t>((bits >> (n -= 8)) & 0xFF));
  }
  return true;
}

std::string trimmed(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t\n\r"), e = s.find_last_not_of(" \t\n\r");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

GuestRun run_guest_with_stdin(const std::vector<std::string>& host_args, const std::string& guest,
                              const std::vector<std::string>& guest_args, const std::string& input) {
  // The child inherits fd 0: point it at a file of `input` for the run, then restore it.
  const std::string path = scratch_dir("stdin_" + guest) + "/input.txt";
  write_file(path, std::vector<uint8_t>(input.begin(), input.end()));
  const int file = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  const int saved = dup(0);
  EXPECT_TRUE(file >= 0 && saved >= 0 && dup2(file, 0) == 0) << path;
  GuestRun r;
  if (guest.find('/') == std::string::npos) {
    r = run_guest(host_args, guest, guest_args);
  } else {
    std::vector<std::string> args = {"run", "--backend-dir", WASINN_BACKEND_DIR};
    args.insert(args.end(), host_args.begin(), host_args.end());
    args.push_back(guest);
    args.insert(args.end(), guest_args.begin(), guest_args.end());
    r = run_wasinn(args, std::filesystem::path(guest).stem().string());
  }
  dup2(saved, 0);
  close(saved);
  close(file);
  return r;
}

}  // namespace wasinn_test
