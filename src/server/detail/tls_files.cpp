#include "server/detail/tls_files.hpp"

#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/pem.h>

#include <memory>
#include <string_view>

#include "net/settings_file.hpp"

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

/// The bytes of a PEM file, read through net::read_settings_file (regular file, at most kMaxTlsFileBytes).
auto read_pem(std::string_view what, const std::string& path) -> core::Result<std::string> {
  return net::read_settings_file(
      path, {.what = what, .max_bytes = kMaxTlsFileBytes, .hint = "give a readable PEM file"});
}

auto memory_bio(const std::string& bytes) -> Bio {
  return Bio(BIO_new_mem_buf(bytes.data(), static_cast<int>(bytes.size())));
}

/// Uses the first certificate of `pem` and adds the ones after it as its chain (what
/// SSL_CTX_use_certificate_chain_file does with a file). False when there is none or one is not PEM.
auto use_certificate_chain(SSL_CTX& ctx, const std::string& pem, bool& asked) -> bool {
  const Bio bio = memory_bio(pem);
  if (!bio) return false;
  const std::unique_ptr<X509, X509Free> leaf(
      PEM_read_bio_X509_AUX(bio.get(), nullptr, refuse_pass_phrase, &asked));
  if (!leaf || SSL_CTX_use_certificate(&ctx, leaf.get()) != 1 || SSL_CTX_clear_chain_certs(&ctx) != 1)
    return false;
  while (X509* next = PEM_read_bio_X509(bio.get(), nullptr, refuse_pass_phrase, &asked)) {
    if (SSL_CTX_add0_chain_cert(&ctx, next) != 1) {
      X509_free(next);
      return false;
    }
  }
  // The loop ends at the end of the text (no more PEM start line) or at a damaged block.
  const unsigned long last = ERR_peek_last_error();
  return last == 0 || (ERR_GET_LIB(last) == ERR_LIB_PEM && ERR_GET_REASON(last) == PEM_R_NO_START_LINE);
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
  auto cert_pem = read_pem("TLS certificate", cert_path);
  if (!cert_pem) return core::propagate(std::move(cert_pem));
  ERR_clear_error();
  if (!use_certificate_chain(ctx, *cert_pem, asked)) {
    ERR_clear_error();
    return core::fail(core::ErrorCode::InvalidArgument,
                      "TLS certificate " + cert_path + " is not a PEM certificate",
                      "give the certificate (chain) as PEM: -----BEGIN CERTIFICATE----- ...");
  }
  ERR_clear_error();
  auto key_pem = read_pem("TLS key", key_path);
  if (!key_pem) return core::propagate(std::move(key_pem));
  const Bio key_bio = memory_bio(*key_pem);
  const std::unique_ptr<EVP_PKEY, PkeyFree> key(
      key_bio ? PEM_read_bio_PrivateKey(key_bio.get(), nullptr, refuse_pass_phrase, &asked) : nullptr);
  OPENSSL_cleanse(key_pem->data(), key_pem->size());  // the key lives on in `key` only
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
