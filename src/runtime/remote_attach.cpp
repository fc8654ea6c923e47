#include "runtime/remote_attach.hpp"

#include "net/token_file.hpp"
#include "runtime/environment.hpp"
#include "server/auth.hpp"
#include "server/remote_feed.hpp"

namespace solscope::app {
namespace {

class FeedAttachment final : public RemoteAttachment {
 public:
  explicit FeedAttachment(std::unique_ptr<server::RemoteFeed> feed) : feed_(std::move(feed)) {}
  [[nodiscard]] auto description() const -> std::string override { return feed_->description(); }
  [[nodiscard]] auto status() const -> std::string override { return feed_->status(); }

 private:
  std::unique_ptr<server::RemoteFeed> feed_;
};

auto env(const char* name) -> std::string {
  return config::env_or_empty(name);
}

}  // namespace

auto connect_remote(const std::string& host_port, core::LiveState& state, const std::atomic<bool>& /*stop*/)
    -> core::Result<std::unique_ptr<RemoteAttachment>> {
  server::RemoteOptions options;
  options.address = host_port;
  options.ca_cert_path = env("SOLSCOPE_TLS_CA");
  if (const std::string token_file = env("SOLSCOPE_TOKEN_FILE"); !token_file.empty()) {
    auto token = net::read_token_file(token_file);
    if (!token) return core::propagate(std::move(token));
    options.token = std::move(*token);
  }
  auto feed = server::RemoteFeed::connect(std::move(options), state);
  if (!feed) return core::propagate(std::move(feed));
  return std::make_unique<FeedAttachment>(std::move(*feed));
}

auto find_local_daemon() -> std::string {
  if (!server::local_daemon_running(server::kDefaultDaemonPort)) return {};
  return std::string(server::kDefaultListenHost) + ":" + std::to_string(server::kDefaultDaemonPort);
}

}  // namespace solscope::app
