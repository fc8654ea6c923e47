// read_job_mapping (dcgm-exporter's HPC job mapping files) and the jobs it gives resolve_gpu.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "workload/workload_resolver.hpp"
#include "workload_test_support.hpp"

namespace solscope::workload {
namespace {

namespace fs = std::filesystem;
using core::WorkloadIdentity;
using core::WorkloadOrigin;
using core::WorkloadSharing;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

/// A temporary directory, removed at the end of the test.
class TempDir {
 public:
  explicit TempDir(const std::string& name)
      : path_(fs::temp_directory_path() / (name + "_" + std::to_string(::getpid()))) {
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() { fs::remove_all(path_); }
  TempDir(const TempDir&) = delete;
  auto operator=(const TempDir&) -> TempDir& = delete;
  void write(const std::string& name, const std::string& text) const {
    std::ofstream(path_ / name, std::ios::binary) << text;
  }
  [[nodiscard]] auto path() const -> const fs::path& { return path_; }

 private:
  fs::path path_;
};

TEST(JobMappingTest, reads_one_file_per_gpu_index_and_skips_other_names) {
  const TempDir dir("solscope_jobmap");
  dir.write("0", "1234\n\n5678\r\n1234\n");  // blank line, CRLF, a repeated job
  dir.write("1", "99");                      // no final newline
  dir.write("notes.txt", "42\n");
  dir.write("07", "42\n");  // not written canonically: dcgm-exporter's `gpu` label would never match it
  dir.write("-1", "42\n");
  fs::create_directories(dir.path() / "2");  // a directory named like a GPU
  const auto jobs = read_job_mapping(dir.path());
  ASSERT_TRUE(jobs.has_value()) << jobs.error().describe();
  ASSERT_EQ(jobs->size(), 2u);
  EXPECT_THAT(jobs->at(0), ElementsAre("1234", "5678"));
  EXPECT_THAT(jobs->at(1), ElementsAre("99"));
}

TEST(JobMappingTest, missing_directory_and_oversized_files_are_clear_errors) {
  const auto missing = read_job_mapping("/nonexistent/solscope/job-map");
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().code, core::ErrorCode::NotFound);
  EXPECT_THAT(missing.error().message, HasSubstr("/nonexistent/solscope/job-map"));

  const TempDir dir("solscope_jobmap_big");
  std::string lines;
  for (std::size_t i = 0; i <= kMaxJobsPerMappingFile; ++i) lines += std::to_string(i) + "\n";
  dir.write("3", lines);
  const auto too_many = read_job_mapping(dir.path());
  ASSERT_FALSE(too_many.has_value());
  EXPECT_EQ(too_many.error().code, core::ErrorCode::InvalidArgument);
  EXPECT_THAT(too_many.error().message, HasSubstr("lists more than 64 job IDs"));

  dir.write("3", std::string(kMaxJobMappingFileBytes + 1, '7'));
  const auto too_big = read_job_mapping(dir.path());
  ASSERT_FALSE(too_big.has_value());
  EXPECT_EQ(too_big.error().code, core::ErrorCode::InvalidArgument);
  EXPECT_THAT(too_big.error().message, HasSubstr("is larger than 65536 bytes"));
}

TEST(JobMappingTest, a_single_mapped_job_names_every_process_on_the_gpu) {
  const TempDir proc("solscope_jobmap_proc");
  fs::create_directories(proc.path() / "501");
  proc.write("501/status", "Name:\tsim\nPPid:\t1\nUid:\t1000\t1000\t1000\t1000\n");
  proc.write("501/cmdline", std::string("./sim\0", 6));
  proc.write("501/cgroup", "0::/system.slice/slurmstepd.scope/job_99/step_0/user/task_0\n");
  NodeAttribution node;
  node.jobs_by_gpu = {{0, {"1234", "5678"}}, {1, {"99"}}};
  core::DeviceInfo gpu1;
  gpu1.index = 1;
  gpu1.uuid = "GPU-1111";
  const ResolvedGpu r =
      resolve_gpu(gpu1, {{.pid = 501, .sm_pct = 80.0}}, node, proc.path(), test_support::fake_user_name);
  EXPECT_EQ(r.processes[0].workload, WorkloadIdentity{.hpc_job = "99"});
  EXPECT_EQ(r.processes[0].origin, WorkloadOrigin::kJobMapping);
  EXPECT_EQ(r.workloads.sharing, WorkloadSharing::kExclusive);
  ASSERT_EQ(r.workloads.workloads.size(), 1u);
  EXPECT_THAT(r.workloads.workloads[0].pids, ElementsAre(501));

  // GPU 0 has two jobs: each is an allocation; a process names its own through SLURM_JOB_ID.
  core::DeviceInfo gpu0;
  gpu0.uuid = "GPU-0000";
  const ResolvedGpu idle = resolve_gpu(gpu0, {}, node, proc.path(), test_support::fake_user_name);
  EXPECT_EQ(idle.workloads.sharing, WorkloadSharing::kConcurrent);
  ASSERT_EQ(idle.workloads.workloads.size(), 2u);
  EXPECT_EQ(idle.workloads.workloads[0].id, WorkloadIdentity{.hpc_job = "1234"});
  EXPECT_EQ(idle.workloads.workloads[0].origin, WorkloadOrigin::kJobMapping);
  constexpr char kEnviron[] = "SLURM_JOB_ID=5678\0SLURM_JOB_USER=carol\0";
  proc.write("501/environ", std::string(kEnviron, sizeof kEnviron - 1));
  const ResolvedGpu busy =
      resolve_gpu(gpu0, {{.pid = 501, .sm_pct = 80.0}}, node, proc.path(), test_support::fake_user_name);
  EXPECT_EQ(busy.processes[0].workload, WorkloadIdentity{.hpc_job = "5678"});  // the mapping's workload
  EXPECT_EQ(busy.processes[0].origin, WorkloadOrigin::kSlurm);
  ASSERT_EQ(busy.workloads.workloads.size(), 2u);
  EXPECT_EQ(busy.workloads.sharing, WorkloadSharing::kTimeSliced);
  EXPECT_EQ(busy.workloads.workloads[0].id.hpc_job, "5678");
  EXPECT_EQ(busy.workloads.workloads[0].fraction, 1.0);
  EXPECT_EQ(busy.workloads.workloads[1].id.hpc_job, "1234");
  EXPECT_EQ(busy.workloads.workloads[1].fraction, 0.0);

  // A MIG instance of GPU 1 gets GPU 1's job (the files are named after the physical GPU's index).
  core::DeviceInfo mig;
  mig.index = 9;
  mig.uuid = "MIG-9999";
  mig.gpu_index = 1;
  mig.mig_instance_id = 2;
  const ResolvedGpu on_mig = resolve_gpu(mig, {}, node, proc.path(), test_support::fake_user_name);
  ASSERT_EQ(on_mig.workloads.workloads.size(), 1u);
  EXPECT_EQ(on_mig.workloads.workloads[0].id.hpc_job, "99");
}

}  // namespace
}  // namespace solscope::workload
