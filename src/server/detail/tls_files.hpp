// Loading the TLS certificate and key of `solscope serve` into an OpenSSL context, with a message that names
// the failing file and the reason (private to src/server).
#pragma once

#include <openssl/ssl.h>

#include <cstddef>
#include <string>

#include "core/result.hpp"

namespace solscope::server::detail {

/// Largest TLS certificate (chain) or key file read: 1 MiB (a chain of a few certificates is some KiB).
inline constexpr std::size_t kMaxTlsFileBytes = 1U << 20;

/// Loads the PEM certificate chain `cert_path` and the PEM private key `key_path` into `ctx`, checks that
/// they match, and sets TLS 1.2 as the oldest protocol. Never prompts for a pass phrase (the context's
/// password callback refuses). Both files are read through net::read_settings_file (a regular file of at most
/// kMaxTlsFileBytes: a FIFO or a device is refused at once, never waited on). Errors: NotFound "cannot read
/// TLS certificate|key PATH: REASON" (missing, unreadable); InvalidArgument "TLS certificate|key PATH is not
/// a regular file", "... holds N bytes", "TLS certificate PATH is not a PEM certificate", "TLS key PATH is
/// not a PEM private key", "TLS key KEY does not match certificate CERT"; Unimplemented "TLS key PATH is
/// encrypted (pass phrase)".
[[nodiscard]] auto load_tls_files(SSL_CTX& ctx, const std::string& cert_path, const std::string& key_path)
    -> core::Result<void>;

}  // namespace solscope::server::detail
