// `solscope profile pause|resume|status` end to end (issue 23, part 1): against `solscope serve` replaying
// the bundled SYNTHETIC demo trace on an ephemeral port, with and without a token; against no daemon; and
// against a server without the pause (404).
#include <signal.h>
#include <sys/stat.h>

#include <httplib.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "core/pm_yield.hpp"
#include "support/process.hpp"

namespace solscope::app {
namespace {

using namespace std::chrono_literals;
using testing::run_process;

const std::string kBinary = SOLSCOPE_BINARY;
const std::string kDemo = std::string(SOLSCOPE_TEST_DATA_DIR) + "/demo-trace.sqlite";
constexpr const char* kToken = "profile-test-token-0123456789";

class ProfileCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("solscope-profile-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override {
    if (serve_) {
      serve_->signal(SIGTERM);
      EXPECT_EQ(serve_->wait(15s), 0) << read("err");
    }
    std::filesystem::remove_all(dir_);
  }
  auto path(const std::string& name) const -> std::string { return (dir_ / name).string(); }
  auto read(const std::string& name) const -> std::string {
    std::stringstream s;
    s << std::ifstream(path(name)).rdbuf();
    return s.str();
  }
  /// Starts `solscope serve` on the demo trace (plus `extra`) and waits until it has a sample (/readyz: its
  /// devices are known); the URL it listens on, "" when it never says.
  auto start_serve(const std::vector<std::string>& extra = {}) -> std::string {
    std::vector<std::string> argv{kBinary, "serve", "--replay", kDemo, "--listen", "127.0.0.1:0", "--loop"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    serve_ = std::make_unique<testing::BackgroundProcess>(argv, path("out"), path("err"));
    const std::regex listening("solscope: listening on http://127\\.0\\.0\\.1:([0-9]+)");
    int port = 0;
    for (int i = 0; i < 300 && port == 0; ++i) {
      std::smatch m;
      const std::string err = read("err");
      if (std::regex_search(err, m, listening)) {
        port = std::stoi(m[1]);
      } else {
        std::this_thread::sleep_for(50ms);
      }
    }
    if (port == 0) return {};
    httplib::Client c("127.0.0.1", port);
    for (int i = 0; i < 200; ++i) {
      const auto ready = c.Get("/readyz");
      if (ready && ready->status == 200) break;
      std::this_thread::sleep_for(50ms);
    }
    return "http://127.0.0.1:" + std::to_string(port);
  }
  /// `solscope profile ARGS...` with the config directory isolated.
  auto profile(std::vector<std::string> args, const std::vector<std::string>& env = {}) const
      -> testing::ProcessResult {
    args.insert(args.begin(), {kBinary, "profile"});
    std::vector<std::string> environment{"XDG_CONFIG_HOME=" + dir_.string()};
    environment.insert(environment.end(), env.begin(), env.end());
    return run_process(args, 30s, environment);
  }
  auto token_file() const -> std::string {
    const std::string file = path("token");
    std::ofstream(file) << kToken << "\n";
    ::chmod(file.c_str(), 0600);
    return file;
  }
  std::filesystem::path dir_;
  std::unique_ptr<testing::BackgroundProcess> serve_;
};

TEST_F(ProfileCliTest, pause_for_2m_shows_in_status_and_resume_clears_it) {
  const std::string url = start_serve();
  ASSERT_FALSE(url.empty()) << read("err");
  const auto paused = profile({"pause", "--for", "2m", "--devices", "0", "--url", url});
  ASSERT_EQ(paused.exit_code, 0) << paused.err;
  EXPECT_NE(paused.out.find("PM sampling paused until "), std::string::npos) << paused.out;

  const auto status = profile({"status", "--json", "--url", url});
  ASSERT_EQ(status.exit_code, 0) << status.err;
  const auto json = nlohmann::json::parse(status.out);
  const auto& manual = json["manual"];
  ASSERT_TRUE(manual.is_object()) << status.out;
  EXPECT_EQ(manual["until_ns"].get<std::int64_t>() - manual["since_ns"].get<std::int64_t>(), 120'000'000'000);
  EXPECT_EQ(manual["devices"], nlohmann::json::array({0}));
  EXPECT_NE(manual["by"].get<std::string>().find('@'), std::string::npos) << "user@host: " << manual["by"];
  ASSERT_FALSE(json["devices"].empty());
  EXPECT_EQ(json["devices"][0]["paused"], true);
  EXPECT_EQ(json["devices"][0]["reason"], "manual");

  const auto text = profile({"status", "--url", url});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(
      text.out.find("Manual pause: GPU 0 by " + manual["by"].get<std::string>() + ", since " +
                    manual["since"].get<std::string>() + " until " + manual["until"].get<std::string>()),
      std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("  GPU 0: paused (manual: by "), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("Policy: yield"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("Profilers seen: none"), std::string::npos) << text.out;

  const auto resumed = profile({"resume", "--url", url});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_NE(resumed.out.find("The manual pause ended"), std::string::npos) << resumed.out;
  const auto after = nlohmann::json::parse(profile({"status", "--json", "--url", url}).out);
  EXPECT_TRUE(after["manual"].is_null()) << after;
  EXPECT_EQ(after["devices"][0]["paused"], false);
  const auto again = profile({"resume", "--url", url});
  EXPECT_EQ(again.exit_code, 0);
  EXPECT_NE(again.out.find("No manual pause was active"), std::string::npos) << again.out;

  const auto default_length = profile({"pause", "--json", "--url", url});
  ASSERT_EQ(default_length.exit_code, 0) << default_length.err;
  const auto pause = nlohmann::json::parse(default_length.out)["manual"];
  EXPECT_EQ(pause["until_ns"].get<std::int64_t>() - pause["since_ns"].get<std::int64_t>(),
            core::kDefaultPmPauseNs);
  EXPECT_TRUE(pause["devices"].empty());  // every device
}

TEST_F(ProfileCliTest, a_gpu_the_daemon_lacks_is_a_usage_error_naming_it) {
  const std::string url = start_serve();
  ASSERT_FALSE(url.empty()) << read("err");
  const auto r = profile({"pause", "--devices", "99", "--url", url});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("refused the request: field devices: no GPU 99 here"), std::string::npos) << r.err;
}

TEST_F(ProfileCliTest, a_daemon_with_a_token_needs_it_from_the_flag_or_the_environment) {
  const std::string tokens = token_file();
  const std::string url = start_serve({"--token-file", tokens});
  ASSERT_FALSE(url.empty()) << read("err");
  const auto without = profile({"pause", "--url", url});
  EXPECT_EQ(without.exit_code, 1);
  EXPECT_NE(without.err.find("solscope: error: the daemon at " + url + " requires a bearer token"),
            std::string::npos)
      << without.err;
  EXPECT_NE(without.err.find("--token-file"), std::string::npos) << without.err;
  EXPECT_EQ(profile({"pause", "--url", url, "--token-file", tokens}).exit_code, 0);
  const auto from_env = profile({"status", "--json", "--url", url}, {"SOLSCOPE_TOKEN_FILE=" + tokens});
  ASSERT_EQ(from_env.exit_code, 0) << from_env.err;
  EXPECT_TRUE(nlohmann::json::parse(from_env.out)["manual"].is_object());
}

TEST_F(ProfileCliTest, no_daemon_says_to_start_solscope_serve) {
  // Port 1 (tcpmux) is not served on a test machine: the connection is refused at once.
  const auto r = profile({"status", "--url", "http://127.0.0.1:1"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("solscope: error: no solscope daemon answers at http://127.0.0.1:1 ("),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("start one with `solscope serve`"), std::string::npos) << r.err;
}

TEST_F(ProfileCliTest, a_server_without_the_pause_is_a_clear_404) {
  httplib::Server old;
  old.Get("/api/v1/profiling", [](const httplib::Request&, httplib::Response& res) {
    res.status = 404;
    res.set_content(R"({"error":"no /api/v1/profiling here"})", "application/json");
  });
  const int port = old.bind_to_any_port("127.0.0.1");
  ASSERT_GT(port, 0);
  std::thread serving([&old] { old.listen_after_bind(); });
  const auto r = profile({"status", "--url", "http://127.0.0.1:" + std::to_string(port)});
  old.stop();
  serving.join();
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("offers no PM pause: no /api/v1/profiling here"), std::string::npos) << r.err;
}

TEST_F(ProfileCliTest, bad_command_lines_exit_2) {
  for (const std::vector<std::string>& args : {std::vector<std::string>{},
                                               {"stop"},
                                               {"status", "--for", "10m"},
                                               {"resume", "--devices", "0"},
                                               {"pause", "--for", "0s"},
                                               {"pause", "--for", "25h"},
                                               {"pause", "--url", "ftp://x"}}) {
    const auto r = profile(args);
    std::string shown;
    for (const auto& a : args) shown += " " + a;
    EXPECT_EQ(r.exit_code, 2) << "profile" << shown << ": " << r.err;
    EXPECT_NE(r.err.find("solscope: error: "), std::string::npos) << shown << ": " << r.err;
  }
}

}  // namespace
}  // namespace solscope::app
