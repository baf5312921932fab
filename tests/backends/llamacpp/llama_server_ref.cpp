// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "llama_server_ref.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

extern char** environ;

namespace wasinn_test {
namespace {

// A port the kernel just handed out on loopback (free unless taken in the moment before use).
int free_port() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  int port = 0;
  if (bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0)
    port = ntohs(a.sin_port);
  close(fd);
  return port;
}

// One HTTP/1.1 exchange with Connection: close; -1 when the server cannot be reached.
int exchange(int port, const std::string& request, std::string& body) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    close(fd);
    return -1;
  }
  for (size_t at = 0; at < request.size();) {
    const ssize_t n = write(fd, request.data() + at, request.size() - at);
    if (n <= 0) {
      close(fd);
      return -1;
    }
    at += static_cast<size_t>(n);
  }
  std::string response;
  char buf[65536];
  ssize_t n;
  while ((n = read(fd, buf, sizeof buf)) > 0) response.append(buf, static_cast<size_t>(n));
  close(fd);
  const size_t head_end = response.find("\r\n\r\n");
  if (response.rfind("HTTP/1.1 ", 0) != 0 || head_end == std::string::npos) return -1;
  body = response.substr(head_end + 4);
  const std::string head = response.substr(0, head_end);
  if (head.find("Transfer-Encoding: chunked") != std::string::npos) {  // de-chunk
    std::string plain;
    size_t at = 0;
    while (at < body.size()) {
      const size_t eol = body.find("\r\n", at);
      if (eol == std::string::npos) break;
      const size_t size = std::stoul(body.substr(at, eol - at), nullptr, 16);
      if (size == 0) break;
      plain += body.substr(eol + 2, size);
      at = eol + 2 + size + 2;
    }
    body = plain;
  }
  return std::stoi(response.substr(9, 3));
}

}  // namespace

std::string llama_server_path() { return WASINN_LLAMA_SERVER; }

LlamaServer::LlamaServer(const std::string& model, const std::vector<std::string>& args) {
  port_ = free_port();
  log_ = std::filesystem::temp_directory_path() /
         ("wasinn-llama-server-" + std::to_string(getpid()) + "-" + std::to_string(port_) + ".log");
  std::vector<std::string> argv = {llama_server_path(),   "-m",  model, "--host", "127.0.0.1", "--port",
                                   std::to_string(port_), "-np", "1",   "-t",     "2",         "--no-webui"};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> cargv;
  for (auto& s : argv) cargv.push_back(s.data());
  cargv.push_back(nullptr);
  // CPU only (its build also loads ggml's Vulkan module), as the plugin's tests run.
  std::vector<std::string> env = {"LLAMA_ARG_DEVICE=none"};
  for (char** e = environ; *e; ++e)
    if (std::strncmp(*e, "LLAMA_ARG_", 10) != 0) env.emplace_back(*e);
  std::vector<char*> cenv;
  for (auto& s : env) cenv.push_back(s.data());
  cenv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  const int rc = posix_spawn(&pid_, cargv[0], &actions, nullptr, cargv.data(), cenv.data());
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    pid_ = -1;
    why_not_ = "could not start " + argv[0] + ": " + std::strerror(rc);
    return;
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (std::chrono::steady_clock::now() < deadline) {
    std::string body;
    if (exchange(port_, "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", body) == 200) {
      ready_ = true;
      return;
    }
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  std::ifstream f(log_);
  std::stringstream log;
  log << f.rdbuf();
  why_not_ = "llama-server did not become ready; its log:\n" + log.str();
}

LlamaServer::~LlamaServer() {
  if (pid_ > 0) {
    kill(pid_, SIGTERM);
    int status = 0;
    waitpid(pid_, &status, 0);
  }
  std::error_code ec;
  std::filesystem::remove(log_, ec);
}

int LlamaServer::post(const std::string& path, const std::string& body, std::string& out) const {
  const std::string request = "POST " + path +
                              " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: " +
                              std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
  return exchange(port_, request, out);
}

}  // namespace wasinn_test
