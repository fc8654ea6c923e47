// How views name a device: a whole GPU by its index, a MIG instance by its parent, profile and GPU-instance
// id.
#include "core/device_info.hpp"

#include <gtest/gtest.h>

namespace solscope::core {
namespace {

TEST(DeviceLabel, a_whole_gpu_is_named_by_its_index) {
  DeviceInfo d;
  d.index = 3;
  EXPECT_EQ(device_label(d), "GPU 3");
  EXPECT_FALSE(d.is_mig());
  EXPECT_EQ(d.gpu_number(), 3U);
}

TEST(DeviceLabel, a_mig_instance_names_its_parent_profile_and_instance) {
  DeviceInfo d;
  d.index = 9;
  d.gpu_index = 0;
  d.mig_profile = "3g.40gb";
  d.mig_instance_id = 1;
  EXPECT_EQ(device_label(d), "GPU 0 \u00b7 MIG 3g.40gb #1");
  EXPECT_EQ(d.gpu_number(), 0U);
  d.mig_profile.clear();
  EXPECT_EQ(device_label(d), "GPU 0 \u00b7 MIG #1");
  d.mig_profile = "1g.10gb";
  d.mig_instance_id = -1;
  EXPECT_EQ(device_label(d), "GPU 0 \u00b7 MIG 1g.10gb");
}

}  // namespace
}  // namespace solscope::core
