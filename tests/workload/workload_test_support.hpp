// Helpers of the workload tests: fixture paths, a fake uid -> name map, a local HTTP stub (cpp-httplib server
// on 127.0.0.1, ephemeral port, in-process thread) and a client that routes an engine's port to that stub.
#pragma once

#include <httplib.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "net/http_client.hpp"

namespace solscope::workload::test_support {

inline auto data_dir() -> std::filesystem::path {
  return std::filesystem::path(SOLSCOPE_TEST_DATA_DIR);
}
inline auto procfs_host() -> std::filesystem::path {
  return data_dir() / "procfs" / "host";
}

/// The text of tests/data/engines/<name>.
inline auto engine_fixture(const std::string& name) -> std::string {
  std::ifstream in(data_dir() / "engines" / name, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// The synthetic users of tests/data/procfs (README.md there).
inline auto fake_user_name(std::uint32_t uid) -> std::string {
  static const std::map<std::uint32_t, std::string> kUsers = {{0, "root"}, {1000, "alice"}, {1001, "bob"}};
  const auto it = kUsers.find(uid);
  return it != kUsers.end() ? it->second : std::to_string(uid);
}

/// A cpp-httplib server on 127.0.0.1 and an ephemeral port, answering GET requests from a path -> response
/// table (404 for other paths). Thread-safe to set() while it serves.
class StubServer {
 public:
  StubServer() {
    server_.Get(R"(/.*)", [this](const httplib::Request& request, httplib::Response& response) {
      const std::lock_guard lock(mutex_);
      requests_.push_back(request.path);
      const auto it = routes_.find(request.path);
      if (it == routes_.end()) {
        response.status = 404;
        response.set_content("not found", "text/plain");
        return;
      }
      response.status = it->second.first;
      response.set_content(it->second.second, "text/plain");
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    // stop() is a no-op until the accept loop runs: wait for it so that the destructor cannot hang.
    for (int i = 0; i < 5000 && !server_.is_running(); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~StubServer() {
    server_.stop();
    thread_.join();
  }
  StubServer(const StubServer&) = delete;
  auto operator=(const StubServer&) -> StubServer& = delete;

  void set(const std::string& path, int status, std::string body) {
    const std::lock_guard lock(mutex_);
    routes_[path] = {status, std::move(body)};
  }
  [[nodiscard]] auto port() const -> std::uint16_t { return static_cast<std::uint16_t>(port_); }
  [[nodiscard]] auto requests() -> std::vector<std::string> {
    const std::lock_guard lock(mutex_);
    return requests_;
  }

 private:
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  std::mutex mutex_;
  std::map<std::string, std::pair<int, std::string>> routes_;
  std::vector<std::string> requests_;
};

/// Sends GET host:port/path to the stub as GET 127.0.0.1:<stub>/<port>/path through the real loopback client,
/// so that one stub plays every engine port of a fake procfs tree. Records each call as "host:port/path".
class PortMappedClient final : public net::HttpClient {
 public:
  explicit PortMappedClient(std::uint16_t stub_port)
      : stub_port_(stub_port), real_(net::make_loopback_http_client()) {}

  auto get(std::string_view host, std::uint16_t port, std::string_view path)
      -> core::Result<net::HttpResponse> override {
    calls.push_back(std::string(host) + ":" + std::to_string(port) + std::string(path));
    return real_->get("127.0.0.1", stub_port_, "/" + std::to_string(port) + std::string(path));
  }

  std::vector<std::string> calls;

 private:
  std::uint16_t stub_port_;
  std::unique_ptr<net::HttpClient> real_;
};

}  // namespace solscope::workload::test_support
