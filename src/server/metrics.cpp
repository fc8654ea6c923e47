#include "server/detail/metrics.hpp"

#include <prometheus/collectable.h>
#include <prometheus/text_serializer.h>

#include "server/detail/metric_families.hpp"

namespace solscope::server {
namespace {

/// The scrape-time Collectable: families are built from a snapshot when Collect() is called.
class SnapshotCollectable final : public prometheus::Collectable {
 public:
  SnapshotCollectable(std::span<const core::DeviceSnapshot> devices, const MetricsContext& context,
                      const StreamStats* stream)
      : devices_(devices), context_(context), stream_(stream) {}
  [[nodiscard]] auto Collect() const -> std::vector<prometheus::MetricFamily> override {
    return detail::collect_families(devices_, context_, stream_);
  }

 private:
  std::span<const core::DeviceSnapshot> devices_;
  const MetricsContext& context_;
  const StreamStats* stream_;
};

}  // namespace

auto render_metrics(std::span<const core::DeviceSnapshot> devices, const MetricsContext& context,
                    const StreamStats* stream) -> std::string {
  const SnapshotCollectable collectable(devices, context, stream);
  return prometheus::TextSerializer().Serialize(collectable.Collect());
}

auto render_metrics(const core::LiveState& state, const MetricsContext& context, const StreamStats* stream)
    -> std::string {
  const std::vector<core::DeviceSnapshot> devices = state.snapshot();
  return render_metrics(devices, context, stream);
}

}  // namespace solscope::server
