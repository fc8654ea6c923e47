// libsolscope_inject.so as the CUDA driver sees it (dlopen, InitializeInjection), and its libcupti function
// table against the real libcupti when the machine has one (skipped otherwise). No GPU is needed or used.
#include <dlfcn.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "fake_activity_buffer.hpp"
#include "inject/detail/activity_parse.hpp"
#include "inject/detail/cupti_activity_api.hpp"

namespace solscope::inject {
namespace {

TEST(CuptiActivityApi, AMissingLibraryIsNamed) {
  CuptiActivityApi api;
  const std::string why = api.load("/nonexistent/libcupti.so.13");
  EXPECT_EQ(why.rfind("libcupti not found (/nonexistent/libcupti.so.13: ", 0), 0U) << why;
  EXPECT_EQ(api.register_callbacks, nullptr);
  EXPECT_EQ(api.describe(CUPTI_ERROR_MAX_LIMIT_REACHED), "CUPTI error 12");
}

TEST(CuptiActivityApi, ResolvesEveryFunctionFromTheRealLibcupti) {
  CuptiActivityApi api;
  const std::string why = api.load("");
  if (!why.empty()) {
    GTEST_SKIP() << why;
  }
  EXPECT_NE(api.register_callbacks, nullptr);
  EXPECT_NE(api.enable, nullptr);
  EXPECT_NE(api.flush_all, nullptr);
  EXPECT_NE(api.get_timestamp, nullptr);
  EXPECT_NE(api.get_next_record, nullptr);
  EXPECT_NE(api.get_num_dropped, nullptr);
  EXPECT_NE(api.flush_period, nullptr);
  EXPECT_EQ(api.describe(CUPTI_ERROR_MAX_LIMIT_REACHED), "CUPTI_ERROR_MAX_LIMIT_REACHED");
  std::uint32_t version = 0;
  ASSERT_NE(api.get_version, nullptr);
  ASSERT_EQ(api.get_version(&version), CUPTI_SUCCESS);
  EXPECT_GE(version, 18U);  // CUPTI_API_VERSION 18 = CUDA 12.0; 130001 = CUDA 13.0
}

// The fake's protocol checked against the real cuptiActivityGetNextRecord, where libcupti walks a buffer
// without a GPU (it needs no driver to iterate); skipped when it refuses.
TEST(CuptiActivityApi, RealLibcuptiWalksASyntheticBufferAsTheFakeDoes) {
  CuptiActivityApi api;
  const std::string why = api.load("");
  if (!why.empty()) {
    GTEST_SKIP() << why;
  }
  test::ActivityBuffer buf;
  buf.add(test::device_record(0, 0x20));
  buf.add(test::kernel_record("_Z6vecAddPfS_S_i", 100, 200));
  buf.add(test::kernel_record("k2", 300, 400, 1));
  CUpti_Activity* record = nullptr;
  const CUptiResult first = api.get_next_record(buf.bytes(), buf.size(), &record);
  if (first != CUPTI_SUCCESS) {
    GTEST_SKIP() << "libcupti does not walk buffers here: " << api.describe(first);
  }
  NameCache real_names;
  NameCache fake_names;
  struct Collect final : RecordSink {
    void on_record(const RecordBody& body) override { records.push_back(body); }
    std::vector<RecordBody> records;
  } real, fake;
  const auto real_counts =
      parse_activity_buffer(buf.bytes(), buf.size(), api.get_next_record, real_names, real);
  const auto fake_counts =
      parse_activity_buffer(buf.bytes(), buf.size(), test::fake_next_record, fake_names, fake);
  EXPECT_EQ(real_counts.stop, CUPTI_ERROR_MAX_LIMIT_REACHED);
  EXPECT_EQ(real_counts.kernels, 2U);
  EXPECT_EQ(real_counts.devices, 1U);
  EXPECT_EQ(fake_counts.kernels, real_counts.kernels);
  EXPECT_EQ(real.records, fake.records);
}

#ifdef SOLSCOPE_INJECT_LIBRARY
TEST(InjectionLibrary, LoadsWithoutCudaAndNeverFailsTheWorkload) {
  void* lib = ::dlopen(SOLSCOPE_INJECT_LIBRARY, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(lib, nullptr) << ::dlerror();
  using Entry = int (*)();
  auto init = reinterpret_cast<Entry>(::dlsym(lib, "InitializeInjection"));
  ASSERT_NE(init, nullptr);
  EXPECT_EQ(
      ::dlsym(lib,
              "_ZN8solscope6inject12StreamDecoder4feedESt4spanIKhLm18446744073709551615EERSt6vectorINS0_"
              "10WireRecordESaIS7_EE"),
      nullptr);  // only the entry point is exported

  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  ::setenv(kKernelFdEnv, std::to_string(fds[1]).c_str(), 1);
  ::setenv(kCuptiLibraryEnv, "/nonexistent/libcupti.so.13", 1);
  testing::internal::CaptureStderr();
  EXPECT_EQ(init(), 1);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(err.rfind("solscope-inject: libcupti not found (/nonexistent/libcupti.so.13: ", 0), 0U) << err;
  EXPECT_NE(err.find("kernel records are not collected for pid " + std::to_string(::getpid())),
            std::string::npos);
  ::fcntl(fds[0], F_SETFL, O_NONBLOCK);
  char byte = 0;
  EXPECT_EQ(::read(fds[0], &byte, 1), -1);  // nothing was written: the library switched itself off
  ::unsetenv(kKernelFdEnv);
  ::unsetenv(kCuptiLibraryEnv);
  ::close(fds[0]);
  ::close(fds[1]);
}

// NVTX_INJECTION64_PATH names the library: NVTX calls InitializeInjectionNvtx2 at the first NVTX call.
// Without a libcupti it answers 0 (NVTX then stays off) and says why once; outside `solscope run` (no kernel
// pipe) it answers 0 without opening anything.
TEST(InjectionLibrary, TheNvtxEntryPointStaysOffWithoutLibcupti) {
  void* lib = ::dlopen(SOLSCOPE_INJECT_LIBRARY, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(lib, nullptr) << ::dlerror();
  using NvtxEntry = int (*)(NvtxGetExportTable);
  auto nvtx = reinterpret_cast<NvtxEntry>(::dlsym(lib, "InitializeInjectionNvtx2"));
  ASSERT_NE(nvtx, nullptr) << "exported for NVTX's dlsym";
  const NvtxGetExportTable no_table = [](std::uint32_t) -> const void* { return nullptr; };

  ::unsetenv(kKernelFdEnv);
  testing::internal::CaptureStderr();
  EXPECT_EQ(nvtx(no_table), 0);
  EXPECT_NE(testing::internal::GetCapturedStderr().find(std::string(kKernelFdEnv) + " is not set"),
            std::string::npos);

  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  ::setenv(kKernelFdEnv, std::to_string(fds[1]).c_str(), 1);
  ::setenv(kCuptiLibraryEnv, "/nonexistent/libcupti.so.13", 1);
  testing::internal::CaptureStderr();
  EXPECT_EQ(nvtx(no_table), 0);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(err.rfind("solscope-inject: libcupti not found (/nonexistent/libcupti.so.13: ", 0), 0U) << err;
  EXPECT_NE(err.find("NVTX ranges are not collected for pid " + std::to_string(::getpid())),
            std::string::npos);
  ::unsetenv(kKernelFdEnv);
  ::unsetenv(kCuptiLibraryEnv);
  ::close(fds[0]);
  ::close(fds[1]);
}
#endif

}  // namespace
}  // namespace solscope::inject
