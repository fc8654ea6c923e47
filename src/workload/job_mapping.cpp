// read_job_mapping (workload_resolver.hpp): dcgm-exporter's HPC job mapping files.
#include <algorithm>
#include <system_error>
#include <utility>

#include "workload/detail/file_read.hpp"
#include "workload/workload_resolver.hpp"

namespace solscope::workload {
namespace {

constexpr std::string_view kJobMappingHint =
    "write one file per GPU index into the directory, one job ID a line (dcgm-exporter's HPC job mapping)";

/// The GPU index a file name gives: decimal digits, written canonically; nullopt for any other name.
auto gpu_index_of(const std::string& name) -> std::optional<std::uint32_t> {
  std::int64_t value = 0;
  if (!detail::parse_int(name, 0, UINT32_MAX, value) || std::to_string(value) != name) return std::nullopt;
  return static_cast<std::uint32_t>(value);
}

auto directory_error(const std::filesystem::path& dir, const std::error_code& ec) -> core::Error {
  const std::string message = "cannot read the job mapping directory " + dir.string() + ": " + ec.message();
  if (ec == std::errc::no_such_file_or_directory || ec == std::errc::not_a_directory)
    return {core::ErrorCode::NotFound, message, "check --job-mapping-dir"};
  if (ec == std::errc::permission_denied || ec == std::errc::operation_not_permitted)
    return {core::ErrorCode::PermissionDenied, message, "let solscope's user read the directory"};
  return {core::ErrorCode::Unavailable, message, {}};
}

/// The job IDs of one file; nullopt when the file vanished since the directory was listed.
auto read_jobs(const std::filesystem::path& file) -> core::Result<std::optional<std::vector<std::string>>> {
  auto text = detail::read_file(file, kMaxJobMappingFileBytes + 1);
  if (!text) {
    if (text.error().code == core::ErrorCode::NotFound) return std::optional<std::vector<std::string>>{};
    return core::fail(text.error());
  }
  if (text->size() > kMaxJobMappingFileBytes) {
    return core::fail(core::ErrorCode::InvalidArgument,
                      "job mapping file " + file.string() + " is larger than " +
                          std::to_string(kMaxJobMappingFileBytes) + " bytes",
                      std::string(kJobMappingHint));
  }
  std::vector<std::string> jobs;
  std::string_view rest = *text;
  while (!rest.empty()) {
    const std::string_view job = detail::trim(detail::next_line(rest));
    if (job.empty() || std::find(jobs.begin(), jobs.end(), job) != jobs.end()) continue;
    if (jobs.size() == kMaxJobsPerMappingFile) {
      return core::fail(core::ErrorCode::InvalidArgument,
                        "job mapping file " + file.string() + " lists more than " +
                            std::to_string(kMaxJobsPerMappingFile) + " job IDs",
                        std::string(kJobMappingHint));
    }
    jobs.emplace_back(job);
  }
  return std::optional<std::vector<std::string>>{std::move(jobs)};
}

}  // namespace

auto read_job_mapping(const std::filesystem::path& dir)
    -> core::Result<std::map<std::uint32_t, std::vector<std::string>>> {
  std::error_code ec;
  std::filesystem::directory_iterator it(dir, ec);
  if (ec) return core::fail(directory_error(dir, ec));
  std::map<std::uint32_t, std::vector<std::string>> out;
  for (const std::filesystem::directory_iterator end; it != end; it.increment(ec)) {
    if (ec) return core::fail(directory_error(dir, ec));
    const auto index = gpu_index_of(it->path().filename().string());
    if (!index || !detail::is_regular_file(it->path())) continue;  // dcgm-exporter skips these too
    auto jobs = read_jobs(it->path());
    if (!jobs) return core::fail(jobs.error());
    if (*jobs) out[*index] = std::move(**jobs);
  }
  if (ec) return core::fail(directory_error(dir, ec));
  return out;
}

}  // namespace solscope::workload
