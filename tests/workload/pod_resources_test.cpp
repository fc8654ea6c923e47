// workload::list_gpu_pods against an in-process kubelet: a gRPC server of the generated
// v1.PodResourcesLister service on a Unix socket in a temporary folder, answering List from the SYNTHETIC
// answers in tests/data/synthetic/kubelet-pod-resources (protobuf text format), or hanging, or failing; and
// the socket's own failures (absent, stale, not a socket, no permission).
#include "workload/pod_resources.hpp"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <google/protobuf/text_format.h>
#include <google/protobuf/unknown_field_set.h>
#include <grpcpp/grpcpp.h>

#include "podresources/v1/api.grpc.pb.h"
#include "support/fake_kubelet.hpp"

namespace solscope::workload {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

constexpr std::string_view kGpuA = "GPU-00000000-0000-4000-8000-00000000000a";
constexpr std::string_view kGpuB = "GPU-00000000-0000-4000-8000-00000000000b";
constexpr std::string_view kGpuC = "GPU-00000000-0000-4000-8000-00000000000c";
constexpr std::string_view kGpuInNoPod = "GPU-00000000-0000-4000-8000-00000000000d";
constexpr std::string_view kGpuShared = "GPU-00000000-0000-4000-8000-00000000000e";
constexpr std::string_view kMig1g = "MIG-00000000-0000-4000-8000-000000000101";
constexpr std::string_view kMig3g = "MIG-00000000-0000-4000-8000-000000000301";
/// The short deadline of the tests that wait for one.
constexpr std::chrono::milliseconds kShortDeadline{200};
/// A deadline the tests that must not wait for one never reach.
constexpr std::chrono::milliseconds kLongDeadline{5000};

/// A List answer from tests/data/synthetic/kubelet-pod-resources/<name>.
auto fixture(const std::string& name) -> v1::ListPodResourcesResponse {
  std::ifstream in(std::filesystem::path(SOLSCOPE_TEST_DATA_DIR) / "synthetic" / "kubelet-pod-resources" /
                   name);
  std::ostringstream text;
  text << in.rdbuf();
  v1::ListPodResourcesResponse answer;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text.str(), &answer)) << name;
  return answer;
}

using testing::FakeKubelet;
using testing::FakeLister;
using testing::TempDir;

auto holders(const PodResourcesMap& map, std::string_view device) -> std::vector<PodContainer> {
  const auto it = map.by_device.find(device);
  return it == map.by_device.end() ? std::vector<PodContainer>{} : it->second;
}

auto elapsed_ms(Clock::time_point start) -> long long {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
}

/// A Unix socket file at `path` that nobody listens on: bound, then closed (the file stays, as a kubelet that
/// died leaves it). With `listen_backlog`, the socket listens and is returned open, but never accepts.
auto unix_socket_at(const std::string& path, bool listen_backlog) -> int {
  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::strncpy(address.sun_path, path.c_str(), sizeof(address.sun_path) - 1);
  EXPECT_EQ(::bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address)), 0)
      << std::strerror(errno);
  if (listen_backlog) {
    EXPECT_EQ(::listen(fd, 8), 0);
    return fd;
  }
  ::close(fd);
  return -1;
}

TEST(PodResourcesTest, whole_gpus_map_to_their_pod_and_container) {
  auto answer = fixture("synthetic-whole-gpus.textproto");
  // A newer kubelet also sends a container's cpu_ids (field 3) and memory (field 4), which the restated proto
  // leaves out: the client must skip them.
  auto* trainer = answer.mutable_pod_resources(0)->mutable_containers(0);
  auto* unknown = trainer->GetReflection()->MutableUnknownFields(trainer);
  unknown->AddVarint(3, 7);
  unknown->AddLengthDelimited(4, std::string("\x0a\x06memory\x10\x80\x80\x80\x80\x04", 14));
  FakeLister lister(answer);
  FakeKubelet kubelet(lister);

  const auto map = list_gpu_pods(kubelet.socket(), kLongDeadline);

  ASSERT_TRUE(map.has_value()) << map.error().describe();
  EXPECT_EQ(map->by_device.size(), 3U);
  EXPECT_EQ(holders(*map, kGpuA), (std::vector<PodContainer>{{"trainer-0", "team-a", "trainer"}}));
  EXPECT_EQ(holders(*map, kGpuB), (std::vector<PodContainer>{{"multi-gpu-7f9c", "team-b", "worker"}}));
  EXPECT_EQ(holders(*map, kGpuC), (std::vector<PodContainer>{{"multi-gpu-7f9c", "team-b", "worker"}}));
  EXPECT_FALSE(map->by_device.contains(kGpuInNoPod));
  EXPECT_FALSE(map->by_device.contains("fpga-0"));        // example.com/fpga is no GPU
  EXPECT_FALSE(map->by_device.contains("0000:3b:00.2"));  // nor is an SR-IOV NIC
  EXPECT_EQ(lister.calls(), 1);
}

TEST(PodResourcesTest, mig_devices_are_keyed_by_their_mig_uuid) {
  FakeLister lister(fixture("synthetic-mig.textproto"));
  FakeKubelet kubelet(lister);

  const auto map = list_gpu_pods(kubelet.socket(), kLongDeadline);

  ASSERT_TRUE(map.has_value()) << map.error().describe();
  EXPECT_EQ(map->by_device.size(), 2U);
  EXPECT_EQ(holders(*map, kMig1g), (std::vector<PodContainer>{{"notebook-alice", "research", "jupyter"}}));
  EXPECT_EQ(holders(*map, kMig3g), (std::vector<PodContainer>{{"inference-6b8d", "serving", "vllm"}}));
}

TEST(PodResourcesTest, time_slicing_replicas_list_each_container_once_in_list_order) {
  FakeLister lister(fixture("synthetic-time-slicing.textproto"));
  FakeKubelet kubelet(lister);

  const auto map = list_gpu_pods(kubelet.socket(), kLongDeadline);

  ASSERT_TRUE(map.has_value()) << map.error().describe();
  ASSERT_EQ(map->by_device.size(), 1U);  // "::0", "::1" and "::2" are one GPU
  EXPECT_EQ(holders(*map, kGpuShared),
            (std::vector<PodContainer>{{"batch-1", "team-a", "job"}, {"batch-2", "team-b", "job"}}));
}

TEST(PodResourcesTest, an_answer_larger_than_grpcs_default_4_mib_is_read) {
  auto answer = fixture("synthetic-whole-gpus.textproto");
  const std::string long_name(200, 'p');
  for (int i = 0; i < 30'000; ++i) {
    auto* pod = answer.add_pod_resources();
    pod->set_name(long_name + std::to_string(i));
    pod->set_namespace_("bulk");
    pod->add_containers()->set_name("idle");
  }
  ASSERT_GT(answer.ByteSizeLong(), 4U * 1024U * 1024U);
  FakeLister lister(answer);
  FakeKubelet kubelet(lister);

  const auto map = list_gpu_pods(kubelet.socket(), kLongDeadline);

  ASSERT_TRUE(map.has_value()) << map.error().describe();
  EXPECT_EQ(map->by_device.size(), 3U);
}

TEST(PodResourcesTest, concurrent_calls_each_get_the_whole_map) {
  FakeLister lister(fixture("synthetic-whole-gpus.textproto"));
  FakeKubelet kubelet(lister);
  constexpr int kThreads = 4;
  constexpr int kCallsEach = 5;
  std::atomic<int> right{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kCallsEach; ++i) {
        const auto map = list_gpu_pods(kubelet.socket(), kLongDeadline);
        if (map && map->by_device.size() == 3U &&
            holders(*map, kGpuB) == std::vector<PodContainer>{{"multi-gpu-7f9c", "team-b", "worker"}}) {
          right.fetch_add(1);
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(right.load(), kThreads * kCallsEach);
  EXPECT_EQ(lister.calls(), kThreads * kCallsEach);
}

TEST(PodResourcesTest, an_absent_socket_is_unavailable_at_once_with_the_mount_to_add) {
  const TempDir dir;
  const auto start = Clock::now();

  const auto map = list_gpu_pods(dir.socket(), kLongDeadline);

  EXPECT_LT(elapsed_ms(start), 100);
  ASSERT_FALSE(map.has_value());
  EXPECT_EQ(map.error().code, core::ErrorCode::Unavailable);
  EXPECT_NE(map.error().message.find(dir.socket()), std::string::npos) << map.error().message;
  EXPECT_NE(map.error().message.find("No such file or directory"), std::string::npos) << map.error().message;
  EXPECT_NE(map.error().hint.find("/var/lib/kubelet/pod-resources"), std::string::npos) << map.error().hint;
}

TEST(PodResourcesTest, a_socket_nobody_listens_on_is_unavailable_before_the_deadline) {
  const TempDir dir;
  unix_socket_at(dir.socket(), /*listen_backlog=*/false);
  const auto start = Clock::now();

  const auto map = list_gpu_pods(dir.socket(), kLongDeadline);

  EXPECT_LT(elapsed_ms(start), kLongDeadline.count() / 2);
  ASSERT_FALSE(map.has_value());
  EXPECT_EQ(map.error().code, core::ErrorCode::Unavailable);
  EXPECT_NE(map.error().message.find("nobody answers"), std::string::npos) << map.error().message;
}

TEST(PodResourcesTest, a_file_that_is_no_socket_is_unavailable) {
  const TempDir dir;
  std::ofstream(dir.socket()) << "not a socket\n";

  const auto map = list_gpu_pods(dir.socket(), kLongDeadline);

  ASSERT_FALSE(map.has_value());
  EXPECT_EQ(map.error().code, core::ErrorCode::Unavailable);
  EXPECT_NE(map.error().message.find("not a socket"), std::string::npos) << map.error().message;
}

TEST(PodResourcesTest, a_kubelet_that_never_answers_exceeds_the_deadline) {
  auto lister = FakeLister::hanging();
  FakeKubelet kubelet(*lister);
  const auto start = Clock::now();

  const auto map = list_gpu_pods(kubelet.socket(), kShortDeadline);

  const auto took_ms = elapsed_ms(start);
  EXPECT_GE(took_ms, kShortDeadline.count() - 10);
  EXPECT_LT(took_ms, kShortDeadline.count() + 1000);
  ASSERT_FALSE(map.has_value());
  EXPECT_EQ(map.error().code, core::ErrorCode::DeadlineExceeded);
  EXPECT_NE(map.error().message.find("within 200 ms"), std::string::npos) << map.error().message;
  EXPECT_EQ(lister->calls(), 1);
}

TEST(PodResourcesTest, a_socket_that_accepts_nothing_exceeds_the_deadline) {
  const TempDir dir;
  const int fd = unix_socket_at(dir.socket(), /*listen_backlog=*/true);
  const auto start = Clock::now();

  const auto map = list_gpu_pods(dir.socket(), kShortDeadline);

  const auto took_ms = elapsed_ms(start);
  ::close(fd);
  EXPECT_GE(took_ms, kShortDeadline.count() - 10);
  EXPECT_LT(took_ms, kShortDeadline.count() + 1000);
  ASSERT_FALSE(map.has_value());
  EXPECT_EQ(map.error().code, core::ErrorCode::DeadlineExceeded);
}

TEST(PodResourcesTest, any_other_grpc_status_is_internal_with_its_code_and_message) {
  FakeLister lister(grpc::Status(grpc::StatusCode::UNIMPLEMENTED, "List is switched off"));
  FakeKubelet kubelet(lister);

  const auto map = list_gpu_pods(kubelet.socket(), kLongDeadline);

  ASSERT_FALSE(map.has_value());
  EXPECT_EQ(map.error().code, core::ErrorCode::Internal);
  EXPECT_NE(map.error().message.find("gRPC status 12 (List is switched off)"), std::string::npos)
      << map.error().message;
}

TEST(PodResourcesTest, a_permission_denied_status_is_permission_denied) {
  FakeLister lister(grpc::Status(grpc::StatusCode::PERMISSION_DENIED, "not for you"));
  FakeKubelet kubelet(lister);

  const auto map = list_gpu_pods(kubelet.socket(), kLongDeadline);

  ASSERT_FALSE(map.has_value());
  EXPECT_EQ(map.error().code, core::ErrorCode::PermissionDenied);
  EXPECT_NE(map.error().message.find("not for you"), std::string::npos) << map.error().message;
}

TEST(PodResourcesTest, a_socket_without_write_permission_is_permission_denied) {
  if (::geteuid() == 0) GTEST_SKIP() << "root may connect to any socket";
  FakeLister lister(fixture("synthetic-whole-gpus.textproto"));
  FakeKubelet kubelet(lister);
  ASSERT_EQ(::chmod(kubelet.socket().c_str(), 0400), 0);

  const auto map = list_gpu_pods(kubelet.socket(), kLongDeadline);

  ASSERT_FALSE(map.has_value());
  EXPECT_EQ(map.error().code, core::ErrorCode::PermissionDenied);
  EXPECT_NE(map.error().message.find(kubelet.socket()), std::string::npos) << map.error().message;
  EXPECT_EQ(lister.calls(), 0);
}

TEST(PodResourcesTest, normalize_device_id_removes_the_replica_suffix_only) {
  EXPECT_EQ(normalize_device_id("GPU-00000000-0000-4000-8000-00000000000e::1"),
            "GPU-00000000-0000-4000-8000-00000000000e");
  EXPECT_EQ(normalize_device_id("GPU-00000000-0000-4000-8000-00000000000e::12"),
            "GPU-00000000-0000-4000-8000-00000000000e");
  EXPECT_EQ(normalize_device_id(kMig1g), kMig1g);
  EXPECT_EQ(normalize_device_id(kGpuA), kGpuA);
  EXPECT_EQ(normalize_device_id(""), "");
}

}  // namespace
}  // namespace solscope::workload
