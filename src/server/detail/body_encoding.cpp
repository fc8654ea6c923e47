#include "server/detail/body_encoding.hpp"

#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <limits>
#include <memory>

namespace solscope::server::detail {
namespace {

/// gzip's header and trailer around the deflate stream (zlib's windowBits 15 + 16).
constexpr int kGzipWindowBits = 15 + 16;
/// zlib's default memory level (8): its speed and ratio for little memory (about 256 KiB per stream).
constexpr int kMemLevel = 8;

auto trim(std::string_view s) -> std::string_view {
  const auto blank = [](char c) { return c == ' ' || c == '\t'; };
  while (!s.empty() && blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && blank(s.back())) s.remove_suffix(1);
  return s;
}

auto iequals(std::string_view a, std::string_view b) -> bool {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

/// The q-value of one Accept-Encoding element's parameters (";q=0.5"): 1 when absent, 0 when malformed.
auto q_value(std::string_view params) -> double {
  while (!params.empty()) {
    const auto semicolon = params.find(';');
    const std::string_view param = trim(params.substr(0, semicolon));
    params = semicolon == std::string_view::npos ? std::string_view() : params.substr(semicolon + 1);
    if (param.size() < 2 || std::tolower(static_cast<unsigned char>(param[0])) != 'q' || param[1] != '=') {
      continue;
    }
    const std::string_view text = trim(param.substr(2));
    double q = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), q);
    if (ec != std::errc() || end != text.data() + text.size() || !(q >= 0.0 && q <= 1.0)) return 0.0;
    return q;
  }
  return 1.0;
}

struct DeflateEnd {
  void operator()(z_stream* z) const { deflateEnd(z); }
};

}  // namespace

auto accepts_gzip(std::string_view accept_encoding) -> bool {
  std::optional<double> gzip_q;
  std::optional<double> any_q;
  while (!accept_encoding.empty()) {
    const auto comma = accept_encoding.find(',');
    const std::string_view element = accept_encoding.substr(0, comma);
    accept_encoding =
        comma == std::string_view::npos ? std::string_view() : accept_encoding.substr(comma + 1);
    const auto semicolon = element.find(';');
    const std::string_view coding = trim(element.substr(0, semicolon));
    const std::string_view params =
        semicolon == std::string_view::npos ? std::string_view() : element.substr(semicolon + 1);
    if (iequals(coding, "gzip") || iequals(coding, "x-gzip")) {
      gzip_q = std::max(gzip_q.value_or(0.0), q_value(params));
    } else if (coding == "*") {
      any_q = q_value(params);
    }
  }
  if (gzip_q) return *gzip_q > 0.0;
  return any_q.value_or(0.0) > 0.0;
}

auto gzip(std::string_view body) -> std::optional<std::string> {
  if (body.size() > std::numeric_limits<uInt>::max()) return std::nullopt;
  z_stream z{};
  if (deflateInit2(&z, kGzipLevel, Z_DEFLATED, kGzipWindowBits, kMemLevel, Z_DEFAULT_STRATEGY) != Z_OK) {
    return std::nullopt;
  }
  const std::unique_ptr<z_stream, DeflateEnd> end(&z);
  std::string out(deflateBound(&z, static_cast<uLong>(body.size())), '\0');
  // zlib's API takes non-const input; deflate only reads it.
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(body.data()));
  z.avail_in = static_cast<uInt>(body.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  if (deflate(&z, Z_FINISH) != Z_STREAM_END) return std::nullopt;  // deflateBound fits it in one call
  out.resize(z.total_out);
  return out;
}

void take_accept_encoding(httplib::Request& req) {
  const bool gzip_ok = accepts_gzip(req.get_header_value("Accept-Encoding"));
  req.headers.erase("Accept-Encoding");
  req.headers.erase(kAcceptsGzipHeader);
  if (gzip_ok) req.headers.emplace(kAcceptsGzipHeader, "1");
}

auto encode_body(const httplib::Request& req, std::string body) -> EncodedBody {
  if (body.size() < kMinCompressedBodyBytes || req.get_header_value(kAcceptsGzipHeader) != "1") {
    return {std::move(body), false};
  }
  auto compressed = gzip(body);
  if (!compressed) return {std::move(body), false};
  return {std::move(*compressed), true};
}

void set_encoded_body(httplib::Response& res, EncodedBody body, const std::string& content_type) {
  res.set_header("Vary", "Accept-Encoding");
  if (body.gzipped) res.set_header("Content-Encoding", "gzip");
  // Response::set_content(), without copying the body.
  res.body = std::move(body.bytes);
  res.headers.erase("Content-Type");
  res.set_header("Content-Type", content_type);
}

}  // namespace solscope::server::detail
