// The injection library's activity-buffer parsing, on SYNTHETIC buffers of real CUPTI record structs walked
// by a fake cuptiActivityGetNextRecord that follows the documented protocol (fake_activity_buffer.hpp).
#include "inject/detail/activity_parse.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <vector>

#include "fake_activity_buffer.hpp"

namespace solscope::inject {
namespace {

using test::ActivityBuffer;
using test::device_record;
using test::fake_next_record;
using test::kernel_record;

class Collect final : public RecordSink {
 public:
  void on_record(const RecordBody& body) override { records.push_back(body); }
  std::vector<RecordBody> records;
};

// CUDA 12's newest record versions keep every field solscope reads at the offset CUDA 13's have, so one
// parser reads both libraries' buffers.
#define SOLSCOPE_SAME_OFFSET(old_type, new_type, field) \
  static_assert(offsetof(old_type, field) == offsetof(new_type, field), #field " moved")
SOLSCOPE_SAME_OFFSET(CUpti_ActivityKernel9, CUpti_ActivityKernel10, kind);
SOLSCOPE_SAME_OFFSET(CUpti_ActivityKernel9, CUpti_ActivityKernel10, start);
SOLSCOPE_SAME_OFFSET(CUpti_ActivityKernel9, CUpti_ActivityKernel10, end);
SOLSCOPE_SAME_OFFSET(CUpti_ActivityKernel9, CUpti_ActivityKernel10, deviceId);
SOLSCOPE_SAME_OFFSET(CUpti_ActivityKernel9, CUpti_ActivityKernel10, streamId);
SOLSCOPE_SAME_OFFSET(CUpti_ActivityKernel9, CUpti_ActivityKernel10, gridX);
SOLSCOPE_SAME_OFFSET(CUpti_ActivityKernel9, CUpti_ActivityKernel10, blockZ);
SOLSCOPE_SAME_OFFSET(CUpti_ActivityKernel9, CUpti_ActivityKernel10, correlationId);
SOLSCOPE_SAME_OFFSET(CUpti_ActivityKernel9, CUpti_ActivityKernel10, name);
SOLSCOPE_SAME_OFFSET(CUpti_ActivityDevice4, CUpti_ActivityDevice5, id);
SOLSCOPE_SAME_OFFSET(CUpti_ActivityDevice4, CUpti_ActivityDevice5, uuid);
#undef SOLSCOPE_SAME_OFFSET

TEST(ActivityParse, KernelsAndDevicesBecomeWireRecords) {
  const char* mangled = "_Z6vecAddPfS_S_i";
  ActivityBuffer buf;
  buf.add(device_record(0, 0x10));
  buf.add(kernel_record(mangled, 1'000, 4'500));
  CUpti_ActivityMemcpy6 copy{};
  copy.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
  buf.add(copy);
  buf.add(kernel_record("plain_c_kernel", 0, 0));  // no timestamps: CUPTI lacked device memory for them
  auto second = kernel_record(mangled, 5'000, 5'100, 1);
  second.kind = CUPTI_ACTIVITY_KIND_KERNEL;
  buf.add(second);

  NameCache names;
  Collect sink;
  const auto counts = parse_activity_buffer(buf.bytes(), buf.size(), fake_next_record, names, sink);
  EXPECT_EQ(counts.kernels, 2U);
  EXPECT_EQ(counts.devices, 1U);
  EXPECT_EQ(counts.untimed, 1U);
  EXPECT_EQ(counts.other, 1U);
  EXPECT_EQ(counts.stop, CUPTI_ERROR_MAX_LIMIT_REACHED);
  ASSERT_EQ(sink.records.size(), 3U);

  const auto& device = std::get<Device>(sink.records[0]);
  EXPECT_EQ(device.cuda_device, 0U);
  EXPECT_EQ(gpu_uuid_string(device.uuid), "GPU-10111213-1415-1617-1819-1a1b1c1d1e1f");

  const auto& k = std::get<Kernel>(sink.records[1]);
  EXPECT_EQ(k.name, "vecAdd(float*, float*, float*, int)");
  EXPECT_EQ(k.start_cupti_ns, 1'000U);
  EXPECT_EQ(k.end_cupti_ns, 4'500U);
  EXPECT_EQ(k.cuda_device, 0U);
  EXPECT_EQ(k.stream, 7U);
  EXPECT_EQ(k.correlation, 99U);
  EXPECT_EQ(k.grid, (std::array<std::uint32_t, 3>{1024, 4, 1}));
  EXPECT_EQ(k.block, (std::array<std::uint32_t, 3>{128, 2, 1}));
  EXPECT_EQ(std::get<Kernel>(sink.records[2]).cuda_device, 1U);
  EXPECT_EQ(names.size(), 1U);  // one demangling for both records of vecAdd
}

TEST(ActivityParse, ARecordCutShortStopsTheWalkAndKeepsWhatCameBefore) {
  ActivityBuffer buf;
  buf.add(kernel_record("k1", 10, 20));
  buf.add(kernel_record("k2", 30, 40));
  NameCache names;
  Collect sink;
  const auto counts = parse_activity_buffer(buf.bytes(), buf.size() - 8, fake_next_record, names, sink);
  EXPECT_EQ(counts.kernels, 1U);
  EXPECT_EQ(counts.stop, CUPTI_ERROR_INVALID_KIND);
  ASSERT_EQ(sink.records.size(), 1U);
  EXPECT_EQ(std::get<Kernel>(sink.records[0]).name, "k1");
}

TEST(ActivityParse, EmptyOrMissingBufferGivesNothing) {
  NameCache names;
  Collect sink;
  ActivityBuffer buf;
  buf.add(kernel_record("k", 1, 2));
  EXPECT_EQ(parse_activity_buffer(nullptr, 64, fake_next_record, names, sink).kernels, 0U);
  EXPECT_EQ(parse_activity_buffer(buf.bytes(), 0, fake_next_record, names, sink).kernels, 0U);
  EXPECT_EQ(parse_activity_buffer(buf.bytes(), buf.size(), nullptr, names, sink).kernels, 0U);
  EXPECT_TRUE(sink.records.empty());
}

TEST(ActivityParse, Demangling) {
  EXPECT_EQ(demangle("_Z6vecAddPfS_S_i"), "vecAdd(float*, float*, float*, int)");
  EXPECT_EQ(demangle("_ZN7cutlass6KernelINS_4gemmEEEvNT_6ParamsE"),
            "void cutlass::Kernel<cutlass::gemm>(cutlass::gemm::Params)");
  EXPECT_EQ(demangle("triton_poi_fused_add_0"), "triton_poi_fused_add_0");  // C linkage: as is
  EXPECT_EQ(demangle("_Z!!bogus"), "_Z!!bogus");                            // not demanglable: as is
  EXPECT_EQ(demangle(nullptr), "");
}

TEST(ActivityParse, NameCacheIsBounded) {
  NameCache names(2);
  const char* a = "a";
  const char* b = "b";
  const char* c = "c";
  EXPECT_EQ(names.demangled(a), "a");
  EXPECT_EQ(names.demangled(b), "b");
  EXPECT_EQ(names.size(), 2U);
  EXPECT_EQ(names.demangled(c), "c");  // full: starts over
  EXPECT_EQ(names.size(), 1U);
}

}  // namespace
}  // namespace solscope::inject
