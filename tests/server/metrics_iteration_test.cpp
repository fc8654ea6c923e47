// /metrics with training iterations (issue 25 item 4): per GPU, only while its iteration is periodic, the
// period, jitter, confidence, communication and exposed communication ratios and the communication offset,
// under the GPU's labels and its workload's. A GPU that is "not periodic" has none of them. Before, /metrics
// had no solscope_iteration_* series at all.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "core/workload.hpp"
#include "server/detail/metrics.hpp"
#include "server_test_support.hpp"

namespace solscope::server {
namespace {

using testing::lines_starting;

/// GPU 0: pod ml/train-0/trainer, a 0.5 s iteration (communication 25 %, exposed 12.5 %); GPU 1: no workload,
/// a 0.625 s iteration without communication; GPU 2: not periodic.
class MetricsIterationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (std::uint32_t d = 0; d < 3; ++d) {
      core::DeviceSnapshot snap;
      snap.state = testing::synthetic_device(d);
      devices_.push_back(std::move(snap));
    }
    const std::vector<core::ProcessWorkload> train{
        {.pid = 100,
         .id = {.pod = "train-0", .pod_namespace = "ml", .container = "trainer"},
         .origin = core::WorkloadOrigin::kKubelet}};
    devices_[0].state.workloads = core::attribute_gpu(train, {});
    devices_[0].iteration = testing::periodic_iteration(0.5, {0.375, 0.125, 0.25, 0.0, 0.25}, 0.25, 0.125);
    devices_[1].iteration = testing::periodic_iteration(0.625, {0.75, 0.25, 0.0, 0.0, 0.0}, 0.0, 0.0);
    devices_[1].iteration.communication_offset_s = core::kUnknown;  // no communication: no offset
    devices_[2].iteration.confidence = 0.25;
    devices_[2].iteration.note = "no repeat found";
    text_ = render_metrics(devices_, {.hostname = "node-17", .version = "0.1.0"});
  }
  static auto gpu(int index) -> std::string {
    return "gpu=\"" + std::to_string(index) + "\",UUID=\"GPU-SYNTHETIC-" + std::to_string(index) +
           "\",modelName=\"SYNTHETIC test GPU\",hostname=\"node-17\"";
  }
  std::vector<core::DeviceSnapshot> devices_;
  std::string text_;
};

const std::string kPod = ",pod=\"train-0\",namespace=\"ml\",container=\"trainer\"";

TEST_F(MetricsIterationTest, a_periodic_gpu_exports_its_iteration_under_its_gpu_and_workload_labels) {
  EXPECT_EQ(lines_starting(text_, "solscope_iteration_seconds{"),
            (std::vector<std::string>{"solscope_iteration_seconds{" + gpu(0) + kPod + "} 0.5",
                                      "solscope_iteration_seconds{" + gpu(1) + "} 0.625"}))
      << text_;
  EXPECT_EQ(lines_starting(text_, "solscope_iteration_jitter_seconds{"),
            (std::vector<std::string>{"solscope_iteration_jitter_seconds{" + gpu(0) + kPod + "} 0.00390625",
                                      "solscope_iteration_jitter_seconds{" + gpu(1) + "} 0.00390625"}));
  EXPECT_EQ(lines_starting(text_, "solscope_iteration_confidence_ratio{"),
            (std::vector<std::string>{"solscope_iteration_confidence_ratio{" + gpu(0) + kPod + "} 0.875",
                                      "solscope_iteration_confidence_ratio{" + gpu(1) + "} 0.875"}));
  // The SMs' share: the compute, memory and latency parts (0.375 + 0.125 + 0; 0.75 + 0.25 + 0).
  EXPECT_EQ(lines_starting(text_, "solscope_iteration_compute_ratio{"),
            (std::vector<std::string>{"solscope_iteration_compute_ratio{" + gpu(0) + kPod + "} 0.5",
                                      "solscope_iteration_compute_ratio{" + gpu(1) + "} 1"}));
  EXPECT_EQ(lines_starting(text_, "solscope_iteration_communication_ratio{"),
            (std::vector<std::string>{"solscope_iteration_communication_ratio{" + gpu(0) + kPod + "} 0.25",
                                      "solscope_iteration_communication_ratio{" + gpu(1) + "} 0"}));
  EXPECT_EQ(
      lines_starting(text_, "solscope_iteration_exposed_communication_ratio{"),
      (std::vector<std::string>{"solscope_iteration_exposed_communication_ratio{" + gpu(0) + kPod + "} 0.125",
                                "solscope_iteration_exposed_communication_ratio{" + gpu(1) + "} 0"}));
  // The offset only where the iteration communicates (NaN is left out, never written as 0).
  EXPECT_EQ(lines_starting(text_, "solscope_iteration_communication_offset_seconds{"),
            (std::vector<std::string>{"solscope_iteration_communication_offset_seconds{" + gpu(0) + kPod +
                                      "} 0.0625"}));
}

TEST_F(MetricsIterationTest, the_series_are_gauges_with_help_that_names_the_offsets_use) {
  for (const char* name :
       {"solscope_iteration_seconds", "solscope_iteration_jitter_seconds",
        "solscope_iteration_confidence_ratio", "solscope_iteration_compute_ratio",
        "solscope_iteration_communication_ratio", "solscope_iteration_exposed_communication_ratio",
        "solscope_iteration_communication_offset_seconds"}) {
    EXPECT_NE(text_.find(std::string("# TYPE ") + name + " gauge\n"), std::string::npos) << name;
  }
  EXPECT_NE(
      text_.find("# HELP solscope_iteration_communication_offset_seconds The communication start's offset "
                 "within the period, epoch-anchored"),
      std::string::npos)
      << text_;
  EXPECT_NE(text_.find("Cassini-style scheduler shifts"), std::string::npos);
}

TEST_F(MetricsIterationTest, a_gpu_that_is_not_periodic_has_no_iteration_series) {
  for (const std::string& line : lines_starting(text_, "solscope_iteration_")) {
    EXPECT_EQ(line.find("gpu=\"2\""), std::string::npos) << line;
  }
  // Its other series are there as before.
  EXPECT_EQ(lines_starting(text_, "solscope_gpu_lost{" + gpu(2) + "}").size(), 1U);
}

TEST_F(MetricsIterationTest, no_periodic_gpu_means_no_iteration_family_at_all) {
  for (core::DeviceSnapshot& d : devices_) d.iteration = core::IterationEstimate{};
  const std::string text = render_metrics(devices_, {.hostname = "node-17", .version = "0.1.0"});
  EXPECT_EQ(text.find("solscope_iteration_"), std::string::npos) << text;
}

}  // namespace
}  // namespace solscope::server
