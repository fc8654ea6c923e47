// Loading the TLS certificate and key of `solscope serve` into an OpenSSL context, with a message that names
// the failing file and the reason (private to src/server).
#pragma once

#include <openssl/ssl.h>

#include <string>

#include "core/result.hpp"

namespace solscope::server::detail {

/// Loads the PEM certificate chain `cert_path` and the PEM private key `key_path` into `ctx`, checks that
/// they match, and sets TLS 1.2 as the oldest protocol. Never prompts for a pass phrase (the context's
/// password callback refuses). Errors: NotFound "cannot read TLS certificate|key PATH: REASON" (missing,
/// unreadable); InvalidArgument "TLS certificate PATH is not a PEM certificate", "TLS key PATH is not a PEM
/// private key", "TLS key KEY does not match certificate CERT"; Unimplemented "TLS key PATH is encrypted
/// (pass phrase)".
[[nodiscard]] auto load_tls_files(SSL_CTX& ctx, const std::string& cert_path, const std::string& key_path)
    -> core::Result<void>;

}  // namespace solscope::server::detail
