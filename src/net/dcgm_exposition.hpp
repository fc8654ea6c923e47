// dcgm-exporter's text exposition (its /metrics page) as solscope samples: one GPU (or MIG slice) per
// distinct (Hostname, gpu, GPU_I_ID) label set, its DCGM fields mapped through core/dcgm_fields.hpp.
//
// Used by `solscope import` (a saved scrape, or many scrapes concatenated, each sample line with its
// timestamp) and by the live source `--dcgm-exporter URL` (one scrape per interval). Pure: no I/O. The
// device texts taken from labels (UUID, modelName, host, MIG profile, pod) are valid UTF-8: ill-formed bytes
// become U+FFFD where the exposition text is read (prometheus_text.hpp).
//
// SOL definition of these samples (SourceKind::Dcgm, docs/design/sol-metrics.md section 8): Compute SOL = the
// busiest of tensor / FP64 / FP32 / FP16 pipe active; Memory SOL = DRAM active; L2, L1 and issue unknown
// (NaN).
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "core/device_info.hpp"
#include "core/raw_sample.hpp"
#include "core/result.hpp"
#include "net/time_limits.hpp"

namespace solscope::net {

/// The labels dcgm-exporter puts on every series of one device (empty = absent). The same names serve
/// solscope's own /metrics series, which keep dcgm-exporter's spelling (docs/design/style.md section 5).
struct DcgmDeviceLabels {
  std::string host;         ///< `Hostname` (up to 4.x) or `hostname`
  std::string gpu;          ///< `gpu`: the physical GPU's NVML index
  std::string uuid;         ///< `UUID`: the physical GPU's "GPU-..." UUID, also on a MIG instance's series
  std::string model;        ///< `modelName`
  std::string pci_bus_id;   ///< `pci_bus_id`
  std::string mig_profile;  ///< `GPU_I_PROFILE`, e.g. "3g.40gb"; empty for a whole GPU
  std::string mig_id;       ///< `GPU_I_ID`; empty for a whole GPU
};

/// The device that `labels` name, numbered `index`: gpu_index from `gpu`, name from `modelName`. A MIG
/// instance (a `GPU_I_ID` or `GPU_I_PROFILE`) gets mig_instance_id and mig_profile, parent_uuid = `UUID`
/// (dcgm-exporter labels an instance with its parent's "GPU-..." UUID and exports no "MIG-..." UUID, so
/// `uuid` stays empty; a `UUID` that is already "MIG-..." is kept as `uuid`), and the shares of its profile
/// name (core::mig_shares_from_profile: N of the GPU's compute slices, M GB of its memory). Attribution is
/// not set here.
[[nodiscard]] auto dcgm_device_identity(const DcgmDeviceLabels& labels, std::uint32_t index)
    -> core::DeviceInfo;

/// Identity of one GPU or MIG slice across scrapes: (Hostname, gpu label, GPU_I_ID or "").
using DcgmGpuKey = std::tuple<std::string, std::string, std::string>;

/// Gives each GPU seen in a stream of scrapes a stable device index (0, 1, ... in first-seen order).
class DcgmDeviceIndex {
 public:
  /// The index of `key`, assigning the next one when it is new.
  [[nodiscard]] auto index_of(const DcgmGpuKey& key) -> std::uint32_t;
  [[nodiscard]] auto size() const -> std::size_t { return indices_.size(); }

 private:
  std::map<DcgmGpuKey, std::uint32_t> indices_;
};

/// One GPU's values at one scrape. `sample.t_start_ns`/`t_end_ns` are left for the caller (the live source
/// knows its scrape times; an import uses the lines' timestamps), except when the scrape's lines carry
/// timestamps: then t_end_ns = the timestamp and t_start_ns = 0 (the caller sets it from the previous
/// scrape).
struct DcgmGpuSample {
  core::DeviceInfo
      device;              ///< index from the DcgmDeviceIndex; uuid, name (modelName), host, MIG, attribution
  core::RawSample sample;  ///< source = SourceKind::Dcgm, device_index = device.index; unmapped metrics NaN
};

/// One scrape.
struct DcgmScrape {
  std::vector<DcgmGpuSample> gpus;  ///< in device-index order
  std::int64_t timestamp_ms =
      std::numeric_limits<std::int64_t>::min();      ///< the lines' timestamp when they carry one, else
                                                     ///< std::numeric_limits<std::int64_t>::min()
  std::size_t lines_used = 0;                        ///< sample lines mapped to a known DCGM field
  std::map<std::string, std::size_t> unknown_names;  ///< DCGM_FI_* series with no mapping, and how many lines
  /// Lines that gave a GPU's field a second, different value at this time (the first is kept). The same
  /// value again (one line per pod sharing the GPU) is not counted: nothing is lost.
  std::size_t repeated_values = 0;
};

/// Parses one scrape. A sample line's timestamp outside 1970-2200 (0-kMaxTimestampMs) is DataLoss "line N:
/// ...". Lines of series other than `DCGM_FI_*` are ignored; placeholder values (2^47, 0x7ff..f2,
/// ...) are unknown. Errors: DataLoss "line N: ..." naming the first line that is not exposition text, and
/// InvalidArgument "no DCGM_FI_* series" when the text holds none (not a dcgm-exporter scrape).
[[nodiscard]] auto parse_dcgm_scrape(std::string_view text, DcgmDeviceIndex& index)
    -> core::Result<DcgmScrape>;

/// Splits a text of many scrapes (sample lines with timestamps; a scrape = the lines sharing one timestamp)
/// into scrapes in time order, each parsed as parse_dcgm_scrape() does. A text without timestamps is one
/// scrape. Errors: as parse_dcgm_scrape(); DataLoss "line N: ..." when some lines carry a timestamp and
/// others do not.
[[nodiscard]] auto parse_dcgm_scrapes(std::string_view text, DcgmDeviceIndex& index)
    -> core::Result<std::vector<DcgmScrape>>;

}  // namespace solscope::net
