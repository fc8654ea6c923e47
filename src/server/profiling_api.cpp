#include "server/detail/profiling_api.hpp"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <limits>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "wire/json_text.hpp"

namespace solscope::server {
namespace {

using Json = nlohmann::ordered_json;

constexpr std::int64_t kNsPerS = 1'000'000'000;
constexpr double kMinPauseS = 1.0;
constexpr double kMaxPauseS = static_cast<double>(core::kMaxPmPauseNs) / static_cast<double>(kNsPerS);

auto bad(std::string message, std::string hint = {}) -> core::Unexpected<core::Error> {
  return core::fail(core::ErrorCode::InvalidArgument, std::move(message), std::move(hint));
}

/// The body as a JSON object ({} when empty), or the 400 that says why not.
auto body_object(std::string_view body) -> core::Result<nlohmann::json> {
  if (body.find_first_not_of(" \t\r\n") == std::string_view::npos) return nlohmann::json::object();
  auto json = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) {
    return bad("the body is not JSON", "send a JSON object, e.g. {\"for_s\": 600}");
  }
  if (!json.is_object()) return bad("the body must be a JSON object", "e.g. {\"for_s\": 600}");
  return json;
}

auto unknown_field(const nlohmann::json& object, std::initializer_list<std::string_view> known)
    -> std::optional<std::string> {
  for (const auto& [key, value] : object.items()) {
    if (std::find(known.begin(), known.end(), key) == known.end()) return key;
  }
  return std::nullopt;
}

auto pause_ns(const nlohmann::json& object) -> core::Result<std::int64_t> {
  const auto it = object.find("for_s");
  if (it == object.end()) return core::kDefaultPmPauseNs;
  const std::string rule =
      fmt::format("field for_s must be a number of seconds from {} to {}", kMinPauseS, kMaxPauseS);
  if (!it->is_number()) return bad(rule);
  const double s = it->get<double>();
  if (!std::isfinite(s) || s < kMinPauseS || s > kMaxPauseS) return bad(rule);
  return static_cast<std::int64_t>(std::llround(s * static_cast<double>(kNsPerS)));
}

auto pause_devices(const nlohmann::json& object, const std::vector<std::uint32_t>& known)
    -> core::Result<std::vector<std::uint32_t>> {
  const auto it = object.find("devices");
  if (it == object.end()) return std::vector<std::uint32_t>{};
  const std::string rule = "field devices must be a non-empty array of device indices";
  if (!it->is_array() || it->empty() || it->size() > kMaxPauseDevices) {
    return bad(rule, "leave it out to pause every device");
  }
  std::vector<std::uint32_t> devices;
  for (const auto& d : *it) {
    if (!d.is_number_unsigned() || d.get<std::uint64_t>() > std::numeric_limits<std::uint32_t>::max()) {
      return bad(rule, "leave it out to pause every device");
    }
    const auto index = d.get<std::uint32_t>();
    if (!known.empty() && std::find(known.begin(), known.end(), index) == known.end()) {
      std::string here;
      for (const auto k : known) here += (here.empty() ? "" : ", ") + std::to_string(k);
      return bad("field devices: no GPU " + std::to_string(index) + " here", "this daemon has GPUs " + here);
    }
    devices.push_back(index);
  }
  std::sort(devices.begin(), devices.end());
  devices.erase(std::unique(devices.begin(), devices.end()), devices.end());
  return devices;
}

auto pause_by(const nlohmann::json& object, std::string_view client) -> core::Result<std::string> {
  const auto it = object.find("by");
  if (it == object.end()) return std::string(client);
  const std::string rule = fmt::format("field by must be text of 1 to {} bytes", kMaxPauseByBytes);
  if (!it->is_string()) return bad(rule);
  std::string by = it->get<std::string>();
  if (by.empty() || by.size() > kMaxPauseByBytes) return bad(rule);
  // A control character would reach the terminals of `solscope profile status` (escape sequences).
  if (std::any_of(by.begin(), by.end(),
                  [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; })) {
    return bad("field by must not hold control characters", "e.g. \"alice@node1\"");
  }
  return by;
}

/// `ns` as RFC 3339 text, or null (0 = none).
auto time_or_null(std::int64_t ns) -> Json {
  return ns > 0 ? Json(rfc3339_utc(ns)) : Json(nullptr);
}
auto ns_or_null(std::int64_t ns) -> Json {
  return ns > 0 ? Json(ns) : Json(nullptr);
}

auto manual_json(const std::optional<core::ManualPause>& manual) -> Json {
  if (!manual) return nullptr;
  return Json{{"by", manual->by},
              {"since", rfc3339_utc(manual->since_ns)},
              {"since_ns", manual->since_ns},
              {"until", rfc3339_utc(manual->until_ns)},
              {"until_ns", manual->until_ns},
              {"devices", manual->devices}};
}

}  // namespace

auto parse_pause_request(std::string_view body, std::string_view client, std::int64_t now_ns,
                         const std::vector<std::uint32_t>& known) -> core::Result<core::ManualPause> {
  auto object = body_object(body);
  if (!object) return core::propagate(std::move(object));
  if (auto field = unknown_field(*object, {"for_s", "devices", "by"})) {
    return bad("unknown field '" + *field + "'", "the fields are for_s, devices and by");
  }
  auto length_ns = pause_ns(*object);
  if (!length_ns) return core::propagate(std::move(length_ns));
  auto devices = pause_devices(*object, known);
  if (!devices) return core::propagate(std::move(devices));
  auto by = pause_by(*object, client);
  if (!by) return core::propagate(std::move(by));
  return core::ManualPause{.by = std::move(*by),
                           .since_ns = now_ns,
                           .until_ns = now_ns + *length_ns,
                           .devices = std::move(*devices)};
}

auto parse_resume_request(std::string_view body) -> core::Result<void> {
  auto object = body_object(body);
  if (!object) return core::propagate(std::move(object));
  if (auto field = unknown_field(*object, {})) {
    return bad("unknown field '" + *field + "'", "resume takes no fields: send {}");
  }
  return core::ok();
}

auto profiling_status_json(const core::PmYieldBoard& board, const std::vector<std::uint32_t>& devices,
                           std::int64_t now_ns, std::optional<bool> resumed) -> std::string {
  Json json{{"policy", core::to_string(board.policy())},
            {"now", rfc3339_utc(now_ns)},
            {"now_ns", now_ns},
            {"manual", manual_json(board.manual(now_ns))},
            {"devices", Json::array()},
            {"profilers", Json::array()}};
  for (const auto index : devices) {
    const core::PmDecision d = board.decide(index, now_ns);
    json["devices"].push_back(Json{{"index", index},
                                   {"paused", d.paused},
                                   {"reason", core::to_string(d.reason)},
                                   {"detail", d.detail},
                                   {"until", time_or_null(d.until_ns)},
                                   {"until_ns", ns_or_null(d.until_ns)}});
  }
  for (const auto& seen : board.last_seen()) {
    json["profilers"].push_back(
        Json{{"reason", core::to_string(seen.reason)}, {"what", seen.what}, {"devices", seen.devices}});
  }
  if (resumed) json["resumed"] = *resumed;
  return wire::json_text(json);
}

auto rfc3339_utc(std::int64_t unix_ns) -> std::string {
  const std::time_t seconds = static_cast<std::time_t>(unix_ns / kNsPerS);
  std::tm tm{};
  if (unix_ns < 0 || gmtime_r(&seconds, &tm) == nullptr || tm.tm_year + 1900 > 9999) return {};
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                     tm.tm_hour, tm.tm_min, tm.tm_sec);
}

}  // namespace solscope::server
