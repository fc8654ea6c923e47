// TLS under load and with bad files (issue 10, items 8 and 13): every failure names the file and the reason,
// an encrypted key is refused without a pass-phrase prompt, and silent TLS clients neither starve the probes
// nor hold stop(). Keys and certificates are made by the openssl command (skipped when it is missing).
#include <httplib.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <vector>

#include <sys/stat.h>

#include "raw_http.hpp"
#include "server/detail/tls_files.hpp"
#include "server_test_support.hpp"

namespace solscope::server {
namespace {

using namespace std::chrono_literals;
using testing::RawConnection;

class TlsFilesTest : public testing::LiveServerTest {
 protected:
  void SetUp() override {
    LiveServerTest::SetUp();
    testing::fill(state_, 1, 1);
    dir_ = std::filesystem::temp_directory_path() / ("solscope-tls-files-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    const std::string d = dir_.string();
    const std::string quiet = " >/dev/null 2>&1";
    ok_ = std::system(("openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=127.0.0.1 -keyout " + d +
                       "/key.pem -out " + d + "/cert.pem" + quiet)
                          .c_str()) == 0 &&
          std::system(("openssl genpkey -algorithm RSA -out " + d + "/other.pem" + quiet).c_str()) == 0 &&
          std::system(("openssl pkey -in " + d + "/key.pem -aes256 -passout pass:secret -out " + d +
                       "/encrypted.pem" + quiet)
                          .c_str()) == 0;
    std::ofstream(dir_ / "junk.pem") << "this is not PEM\n";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  auto path(const char* name) const -> std::string { return (dir_ / name).string(); }
  auto start_error(const char* cert, const char* key) -> core::Error {
    auto started = Server::start({.port = 0, .tls_cert_path = path(cert), .tls_key_path = path(key)}, state_);
    EXPECT_FALSE(started);
    return started ? core::Error{} : started.error();
  }
  std::filesystem::path dir_;
  bool ok_ = false;
};

TEST_F(TlsFilesTest, each_failure_names_the_file_and_the_reason) {
  if (!ok_) GTEST_SKIP() << "no openssl command to make test keys";
  // Before the fix every case read "cannot load the TLS certificate CERT or key KEY".
  const auto missing_cert = start_error("missing.pem", "key.pem");
  EXPECT_EQ(missing_cert.code, core::ErrorCode::NotFound);
  EXPECT_EQ(missing_cert.message,
            "cannot read TLS certificate " + path("missing.pem") + ": No such file or directory");
  const auto missing_key = start_error("cert.pem", "missing.pem");
  EXPECT_EQ(missing_key.code, core::ErrorCode::NotFound);
  EXPECT_EQ(missing_key.message,
            "cannot read TLS key " + path("missing.pem") + ": No such file or directory");
  const auto junk_cert = start_error("junk.pem", "key.pem");
  EXPECT_EQ(junk_cert.code, core::ErrorCode::InvalidArgument);
  EXPECT_EQ(junk_cert.message, "TLS certificate " + path("junk.pem") + " is not a PEM certificate");
  const auto junk_key = start_error("cert.pem", "junk.pem");
  EXPECT_EQ(junk_key.message, "TLS key " + path("junk.pem") + " is not a PEM private key");
  const auto other_key = start_error("cert.pem", "other.pem");
  EXPECT_EQ(other_key.code, core::ErrorCode::InvalidArgument);
  EXPECT_EQ(other_key.message,
            "TLS key " + path("other.pem") + " does not match certificate " + path("cert.pem"));
}

TEST_F(TlsFilesTest, an_encrypted_key_is_refused_without_asking_for_a_pass_phrase) {
  if (!ok_) GTEST_SKIP() << "no openssl command to make test keys";
  // Before the fix OpenSSL's default callback asked on the terminal ("Enter PEM pass phrase:").
  const auto encrypted = start_error("cert.pem", "encrypted.pem");
  EXPECT_EQ(encrypted.code, core::ErrorCode::Unimplemented);
  EXPECT_EQ(encrypted.message,
            "TLS key " + path("encrypted.pem") + " is encrypted (pass phrase protected): not supported");
  EXPECT_NE(encrypted.hint.find("openssl pkey -in"), std::string::npos);
}

TEST_F(TlsFilesTest, silent_tls_clients_from_one_address_leave_the_probes_answering_and_stop_cuts_them) {
  if (!ok_) GTEST_SKIP() << "no openssl command to make test keys";
  start({.tls_cert_path = path("cert.pem"),
         .tls_key_path = path("key.pem"),
         .max_stream_clients = 1,
         .max_connections = 24,
         .max_connections_per_address = 8,
         .request_deadline = 30s});
  // Before the fix 40 silent connections held the 17 threads in the TLS handshake.
  std::vector<std::unique_ptr<RawConnection>> silent;
  for (int i = 0; i < 40; ++i)
    silent.push_back(std::make_unique<RawConnection>(server_->port(), "127.0.0.2"));
  httplib::Client https(server_->url());
  https.enable_server_certificate_verification(false);
  https.set_connection_timeout(10s);
  https.set_read_timeout(10s);
  for (const char* probe : {"/healthz", "/readyz"}) {
    auto res = https.Get(probe);
    ASSERT_TRUE(res) << probe << ": " << httplib::to_string(res.error());
    EXPECT_EQ(res->status, 200);
  }
  server_->stop();
  std::size_t cut = 0;
  for (auto& c : silent) cut += c->closed_by_peer(10s) ? 1 : 0;
  EXPECT_EQ(cut, silent.size());
}

TEST_F(TlsFilesTest, a_fifo_a_device_or_a_huge_file_is_refused_at_once) {
  // Before the fix a FIFO as --tls-cert blocked start forever (no writer), and /dev/zero was read without
  // end.
  ASSERT_EQ(::mkfifo(path("fifo.pem").c_str(), 0600), 0);
  const auto begin = std::chrono::steady_clock::now();
  const auto fifo = start_error("fifo.pem", "key.pem");
  EXPECT_EQ(fifo.code, core::ErrorCode::InvalidArgument);
  EXPECT_EQ(fifo.message, "TLS certificate " + path("fifo.pem") + " is not a regular file");
  auto zero = Server::start({.port = 0, .tls_cert_path = "/dev/zero", .tls_key_path = "/dev/zero"}, state_);
  ASSERT_FALSE(zero);
  EXPECT_EQ(zero.error().message, "TLS certificate /dev/zero is not a regular file");
  std::ofstream(dir_ / "huge.pem") << std::string(detail::kMaxTlsFileBytes + 1, 'A');
  const auto huge = start_error("huge.pem", "key.pem");
  EXPECT_EQ(huge.code, core::ErrorCode::InvalidArgument);
  EXPECT_NE(huge.message.find("holds " + std::to_string(detail::kMaxTlsFileBytes + 1) + " bytes"),
            std::string::npos)
      << huge.message;
  EXPECT_LT(std::chrono::steady_clock::now() - begin, 5s);
  if (!ok_) return;
  const auto fifo_as_key = start_error("cert.pem", "fifo.pem");
  EXPECT_EQ(fifo_as_key.message, "TLS key " + path("fifo.pem") + " is not a regular file");
}

}  // namespace
}  // namespace solscope::server
