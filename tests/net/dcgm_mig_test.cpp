// MIG instances in dcgm-exporter scrapes (issue 23, part 3): real scrapes with MIG series (pasted in
// NVIDIA/dcgm-exporter issues #317 and #512, tests/data/real/README.md) become instance devices named by
// core::device_label, with their parent's UUID, the physical GPU index from `gpu`, and the shares of their
// profile name (core/mig_profile.hpp). Before, every instance of a GPU was "GPU N" with the parent's UUID as
// its own, so two devices shared one UUID.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/device_info.hpp"
#include "net/dcgm_exposition.hpp"

namespace solscope::net {
namespace {

auto parse_fixture(const std::string& relative, DcgmDeviceIndex& index) -> DcgmScrape {
  std::ifstream in(std::string(SOLSCOPE_TEST_DATA_DIR) + "/" + relative, std::ios::binary);
  EXPECT_TRUE(in.good()) << relative;
  std::ostringstream text;
  text << in.rdbuf();
  auto scrape = parse_dcgm_scrape(text.str(), index);
  EXPECT_TRUE(scrape.has_value()) << (scrape ? "" : scrape.error().message);
  return scrape ? *scrape : DcgmScrape{};
}

auto labels_of(const DcgmScrape& s) -> std::vector<std::string> {
  std::vector<std::string> out;
  for (const DcgmGpuSample& g : s.gpus) out.push_back(core::device_label(g.device));
  return out;
}

TEST(DcgmMigTest, a30_instances_of_two_gpus_from_dcgm_exporter_issue_317) {
  DcgmDeviceIndex index;
  const DcgmScrape s = parse_fixture("real/dcgm-exporter/a30-mig-issue317.prom", index);
  EXPECT_EQ(labels_of(s),
            (std::vector<std::string>{"GPU 0 \u00b7 MIG 1g.6gb #3", "GPU 0 \u00b7 MIG 1g.6gb #4",
                                      "GPU 0 \u00b7 MIG 1g.6gb #5", "GPU 0 \u00b7 MIG 1g.6gb #6",
                                      "GPU 1 \u00b7 MIG 1g.6gb #3"}));
  ASSERT_EQ(s.gpus.size(), 5u);
  for (std::size_t i = 0; i < s.gpus.size(); ++i) {
    const core::DeviceInfo& d = s.gpus[i].device;
    EXPECT_EQ(d.index, i);
    EXPECT_TRUE(d.is_mig());
    EXPECT_EQ(d.name, "NVIDIA A30");
    EXPECT_EQ(d.uuid, "");  // dcgm-exporter exports no MIG- UUID: unknown, not the parent's
    EXPECT_EQ(d.parent_uuid, i < 4 ? "GPU-265c9814-6156-355b-e589-ff2064894f16"
                                   : "GPU-2d20791a-b4a6-ba59-97f1-e95b99fe5b49");
    EXPECT_EQ(d.gpu_number(), i < 4 ? 0u : 1u);
    EXPECT_EQ(d.mig_compute_instance_id, -1);  // dcgm-exporter has no compute-instance label
    // A30: 4 compute slices, 24 GB (MIG User Guide): 1g.6gb is a quarter of both.
    EXPECT_DOUBLE_EQ(d.mig_sm_share, 0.25);
    EXPECT_DOUBLE_EQ(d.mig_memory_share, 0.25);
  }
}

TEST(DcgmMigTest, h100_instances_from_dcgm_exporter_issue_512) {
  DcgmDeviceIndex index;
  const DcgmScrape s = parse_fixture("real/dcgm-exporter/h100-mig-issue512.prom", index);
  EXPECT_EQ(labels_of(s),
            (std::vector<std::string>{"GPU 0 \u00b7 MIG 1g.10gb #7", "GPU 0 \u00b7 MIG 1g.10gb #8",
                                      "GPU 0 \u00b7 MIG 1g.10gb #9"}));
  ASSERT_EQ(s.gpus.size(), 3u);
  const core::DeviceInfo& d = s.gpus[0].device;
  EXPECT_EQ(d.parent_uuid, "GPU-58e8f5ea-13cc-013a-d88f-2bcf5ae8bc77");
  EXPECT_EQ(d.pci_bus_id, "00000000:1A:00.0");
  EXPECT_EQ(d.host, "gsrh100-074");
  EXPECT_EQ(d.attribution,
            "model-playground-stg/text-embedding-predictor-00008-deployment-57946f6c67-vdtjl/"
            "kserve-container");
  EXPECT_DOUBLE_EQ(d.mig_sm_share, 1.0 / 7.0);
  EXPECT_DOUBLE_EQ(d.mig_memory_share, 10.0 / 80.0);
}

TEST(DcgmMigTest, identity_of_whole_gpus_and_instances) {
  const core::DeviceInfo whole = dcgm_device_identity(
      {.gpu = "2", .uuid = "GPU-aaaa", .model = "NVIDIA H100 80GB HBM3", .mig_profile = "", .mig_id = ""}, 5);
  EXPECT_FALSE(whole.is_mig());
  EXPECT_EQ(whole.uuid, "GPU-aaaa");
  EXPECT_EQ(whole.parent_uuid, "");
  EXPECT_EQ(core::device_label(whole), "GPU 2");  // the `gpu` label, not the import's numbering
  EXPECT_TRUE(std::isnan(whole.mig_sm_share));
  // A UUID that is already the instance's own is kept as its UUID.
  const core::DeviceInfo own =
      dcgm_device_identity({.gpu = "0", .uuid = "MIG-bbbb", .mig_profile = "3g.40gb", .mig_id = "2"}, 0);
  EXPECT_EQ(own.uuid, "MIG-bbbb");
  EXPECT_EQ(own.parent_uuid, "");
  EXPECT_TRUE(std::isnan(own.mig_sm_share));  // no modelName: the GPU's slice count is unknown
  const core::DeviceInfo bad = dcgm_device_identity({.gpu = "x", .mig_id = "-3"}, 4);
  EXPECT_EQ(bad.gpu_index, -1);
  EXPECT_EQ(bad.mig_instance_id, -1);
}

}  // namespace
}  // namespace solscope::net
