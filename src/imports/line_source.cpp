#include "imports/line_source.hpp"

#include <cerrno>
#include <cstring>

#include "core/text.hpp"

namespace solscope::imports {
namespace {

auto trimmed(std::string_view line) -> std::string_view {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

}  // namespace

auto TextLines::next() -> core::Result<std::optional<std::string_view>> {
  if (done_ || rest_.empty()) return std::nullopt;
  ++number_;
  const std::size_t eol = rest_.find('\n');
  const std::string_view line = rest_.substr(0, eol);
  if (eol == std::string_view::npos) {
    done_ = true;
  } else {
    rest_.remove_prefix(eol + 1);
  }
  return trimmed(line);
}

auto StreamLines::refill() -> core::Result<bool> {
  if (eof_) return false;
  in_.read(block_.data(), static_cast<std::streamsize>(block_.size()));
  if (in_.bad()) {
    return core::fail(core::ErrorCode::Unavailable,
                      "cannot read past line " + std::to_string(number_) + ": " + std::strerror(errno),
                      "check the file and the disk");
  }
  pos_ = 0;
  end_ = static_cast<std::size_t>(in_.gcount());
  if (end_ == 0) eof_ = true;
  return end_ > 0;
}

auto StreamLines::next() -> core::Result<std::optional<std::string_view>> {
  line_.clear();
  bool any = false;  // bytes of this line were read (a last line without '\n' counts)
  for (;;) {
    if (pos_ == end_) {
      auto more = refill();
      if (!more) return core::propagate(more);
      if (!*more) break;
    }
    const char* start = block_.data() + pos_;
    const auto* eol = static_cast<const char*>(std::memchr(start, '\n', end_ - pos_));
    const std::size_t take = eol != nullptr ? static_cast<std::size_t>(eol - start) : end_ - pos_;
    if (line_.size() + take > kMaxLineBytes) {
      return core::fail(
          core::ErrorCode::DataLoss, "line " + std::to_string(number_ + 1) + ": longer than 1 MiB",
          "no line of a recording is that long: check the file, or force its format with --from");
    }
    line_.append(start, take);
    any = true;
    pos_ += take;
    if (eol != nullptr) {
      ++pos_;
      break;
    }
  }
  if (!any) return std::nullopt;
  ++number_;
  // Where a file's text enters: ill-formed UTF-8 becomes U+FFFD here (as import_text does for a whole text).
  if (!core::is_valid_utf8(line_)) line_ = core::valid_utf8(line_);
  return trimmed(line_);
}

}  // namespace solscope::imports
