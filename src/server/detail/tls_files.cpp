#include "server/detail/tls_files.hpp"

#include <openssl/err.h>
#include <openssl/pem.h>

#include <cerrno>
#include <cstring>
#include <memory>

namespace solscope::server::detail {
namespace {

struct BioFree {
  void operator()(BIO* b) const { BIO_free(b); }
};
struct X509Free {
  void operator()(X509* x) const { X509_free(x); }
};
struct PkeyFree {
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};
using Bio = std::unique_ptr<BIO, BioFree>;

/// OpenSSL's password callback: never asks (no terminal prompt, no pass phrase), and records that a pass
/// phrase was wanted (`user` points at a bool).
auto refuse_pass_phrase(char* /*buf*/, int /*size*/, int /*rwflag*/, void* user) -> int {
  if (user != nullptr) *static_cast<bool*>(user) = true;
  return 0;
}

auto open_file(const std::string& what, const std::string& path) -> core::Result<Bio> {
  errno = 0;
  Bio bio(BIO_new_file(path.c_str(), "r"));
  if (!bio) {
    const int error = errno;
    ERR_clear_error();
    return core::fail(
        core::ErrorCode::NotFound,
        "cannot read " + what + " " + path + ": " + (error != 0 ? std::strerror(error) : "cannot open it"),
        "give a readable PEM file");
  }
  return bio;
}

auto encrypted_key(const std::string& path) -> core::Error {
  return core::Error{core::ErrorCode::Unimplemented,
                     "TLS key " + path + " is encrypted (pass phrase protected): not supported",
                     "store it unencrypted, readable by the daemon's user only: `openssl pkey -in " + path +
                         " -out KEY.pem` (asks for the pass phrase once), then chmod 600 KEY.pem"};
}

}  // namespace

auto load_tls_files(SSL_CTX& ctx, const std::string& cert_path, const std::string& key_path)
    -> core::Result<void> {
  bool asked = false;
  SSL_CTX_set_default_passwd_cb(&ctx, refuse_pass_phrase);
  SSL_CTX_set_default_passwd_cb_userdata(&ctx, &asked);
  auto cert_bio = open_file("TLS certificate", cert_path);
  if (!cert_bio) return core::propagate(std::move(cert_bio));
  const std::unique_ptr<X509, X509Free> cert(
      PEM_read_bio_X509(cert_bio->get(), nullptr, refuse_pass_phrase, &asked));
  if (!cert || SSL_CTX_use_certificate_chain_file(&ctx, cert_path.c_str()) != 1) {
    ERR_clear_error();
    return core::fail(core::ErrorCode::InvalidArgument,
                      "TLS certificate " + cert_path + " is not a PEM certificate",
                      "give the certificate (chain) as PEM: -----BEGIN CERTIFICATE----- ...");
  }
  auto key_bio = open_file("TLS key", key_path);
  if (!key_bio) return core::propagate(std::move(key_bio));
  const std::unique_ptr<EVP_PKEY, PkeyFree> key(
      PEM_read_bio_PrivateKey(key_bio->get(), nullptr, refuse_pass_phrase, &asked));
  ERR_clear_error();
  if (asked) return core::fail(encrypted_key(key_path));
  if (!key) {
    return core::fail(core::ErrorCode::InvalidArgument, "TLS key " + key_path + " is not a PEM private key",
                      "give the certificate's private key as PEM: -----BEGIN PRIVATE KEY----- ...");
  }
  if (SSL_CTX_use_PrivateKey(&ctx, key.get()) != 1 || SSL_CTX_check_private_key(&ctx) != 1) {
    ERR_clear_error();
    return core::fail(core::ErrorCode::InvalidArgument,
                      "TLS key " + key_path + " does not match certificate " + cert_path,
                      "give the private key the certificate was issued for");
  }
  SSL_CTX_set_default_passwd_cb_userdata(&ctx, nullptr);
  SSL_CTX_set_min_proto_version(&ctx, TLS1_2_VERSION);
  SSL_CTX_set_options(&ctx, SSL_OP_NO_COMPRESSION | SSL_OP_NO_SESSION_RESUMPTION_ON_RENEGOTIATION);
  return core::ok();
}

}  // namespace solscope::server::detail
