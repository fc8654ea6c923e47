// Compression of the server's answers (private to src/server): gzip at a fast level, only for bodies worth
// it, done by the route itself so that it counts inside the route's limits (docs/http-api.md "Compression").
//
// cpp-httplib compresses on its own when it is built with zlib or brotli: after the handler has returned (so
// outside /api/v1/samples' limit of answers at once), for any size, and with brotli at its default quality
// 11, about 1 s of CPU for one 1.5 MB samples answer. take_accept_encoding() hides the request's
// Accept-Encoding from it, so that it never does.
#pragma once

#include <httplib.h>

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace solscope::server::detail {

/// Smallest body sent compressed: 1,400 bytes, about one TCP segment (Ethernet MSS 1,460 bytes less
/// headers). A smaller body costs the same round trip either way, so compressing it only costs CPU.
inline constexpr std::size_t kMinCompressedBodyBytes = 1400;

/// zlib level of the gzip answers: 1 (Z_BEST_SPEED). A 1.57 MB samples answer took 26-31 ms of CPU and shrank
/// 5.3 times; level 6 (zlib's default, what cpp-httplib used) took 100 ms for 6.4 times, brotli's default
/// quality about 3 s (measured on a loaded 2-core VM, issue 18).
inline constexpr int kGzipLevel = 1;

/// The request header that take_accept_encoding() leaves for the routes: "1" when the client accepts gzip.
/// Any such header a client sends is removed first.
inline constexpr const char* kAcceptsGzipHeader = "Solscope-Accepts-Gzip";

/// True when an Accept-Encoding value (RFC 9110 section 12.5.3) accepts gzip: "gzip" or "x-gzip" with a
/// q-value above 0, or else "*" with a q-value above 0. Codings are case-insensitive; a q-value that is not a
/// number from 0 to 1 counts as 0.
[[nodiscard]] auto accepts_gzip(std::string_view accept_encoding) -> bool;

/// gzip (RFC 1952) of `body` at kGzipLevel; nullopt when zlib fails (no memory) or the body is over 4 GiB.
[[nodiscard]] auto gzip(std::string_view body) -> std::optional<std::string>;

/// Request setup (GuardedServer, before routing): removes Accept-Encoding, so that cpp-httplib never
/// compresses an answer itself, and sets kAcceptsGzipHeader when accepts_gzip().
void take_accept_encoding(httplib::Request& req);

/// An answer's body as it goes out.
struct EncodedBody {
  std::string bytes;
  bool gzipped = false;  ///< bytes are gzip: sent with Content-Encoding: gzip
};

/// `body` gzip-compressed when the request accepts gzip (kAcceptsGzipHeader) and the body has at least
/// kMinCompressedBodyBytes; else as it is. Runs where it is called (a route under its limit).
[[nodiscard]] auto encode_body(const httplib::Request& req, std::string body) -> EncodedBody;

/// How a route encodes its bodies: encode_body, or a stand-in in tests.
using BodyEncoder = std::function<EncodedBody(const httplib::Request&, std::string)>;

/// Sets `res`'s body and Content-Type, with Content-Encoding: gzip when gzipped and Vary: Accept-Encoding
/// (the answer depends on it).
void set_encoded_body(httplib::Response& res, EncodedBody body, const std::string& content_type);

}  // namespace solscope::server::detail
