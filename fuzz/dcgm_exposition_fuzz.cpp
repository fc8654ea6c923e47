// libFuzzer target: dcgm-exporter's exposition read as samples (net/dcgm_exposition.hpp), as one scrape
// (the live source) and as concatenated scrapes (an import). Checks the promises: a GPU appears only with a
// DCGM_FI_* line of its own, device indices stay below the index's size, and every sample says source dcgm.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "net/dcgm_exposition.hpp"

namespace {

using namespace solscope;

void check(const net::DcgmScrape& scrape, const net::DcgmDeviceIndex& index) {
  if (scrape.gpus.size() > scrape.lines_used + [&scrape] {
        std::size_t n = 0;
        for (const auto& [name, count] : scrape.unknown_names) n += count;
        return n;
      }()) {
    std::abort();  // a GPU appears only with a line of its own
  }
  for (const auto& g : scrape.gpus) {
    if (g.device.index >= index.size() || g.sample.device_index != g.device.index) std::abort();
    if (g.sample.source != core::SourceKind::Dcgm) std::abort();
  }
}

}  // namespace

extern "C" auto LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) -> int {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  net::DcgmDeviceIndex index;
  if (auto one = net::parse_dcgm_scrape(input, index)) check(*one, index);
  net::DcgmDeviceIndex many_index;
  if (auto many = net::parse_dcgm_scrapes(input, many_index)) {
    for (const auto& scrape : *many) check(scrape, many_index);
  }
  return 0;
}
