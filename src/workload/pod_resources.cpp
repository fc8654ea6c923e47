// The kubelet PodResources client (pod_resources.hpp): one List call on the kubelet's Unix socket through the
// C++ client that protoc and grpc_cpp_plugin generate at build time from proto/podresources/v1/api.proto
// (src/workload/CMakeLists.txt), and the GPU devices of its answer mapped to pods and containers with
// dcgm-exporter's resource rule (NVIDIA/dcgm-exporter pkg/dcgmexporter/kubernetes/kubernetes.go,
// toDeviceToPod; the names in its variables.go).
#include "workload/pod_resources.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <utility>

#include <fmt/format.h>
#include <grpcpp/grpcpp.h>

#include "podresources/v1/api.grpc.pb.h"

namespace solscope::workload {
namespace {

/// The whole-GPU resource of the NVIDIA device plugin (dcgm-exporter's nvidiaResourceName).
constexpr std::string_view kNvidiaGpuResource = "nvidia.com/gpu";
/// The prefix of its MIG resources, "nvidia.com/mig-<profile>" under the mixed MIG strategy
/// (dcgm-exporter's nvidiaMigResourcePrefix).
constexpr std::string_view kNvidiaMigResourcePrefix = "nvidia.com/mig-";
/// What the device plugin appends to a device ID for each time-slicing replica: "GPU-<uuid>::<n>"
/// (dcgm-exporter keys such an ID by the part before it).
constexpr std::string_view kReplicaSeparator = "::";
/// The largest List answer read, 16 MiB: the size Kubernetes' own PodResources clients allow
/// (defaultPodResourcesMaxSize, passed to k8s.io/kubernetes/pkg/kubelet/apis/podresources GetV1Client);
/// gRPC's default of 4 MiB is too small for a node with many pods.
constexpr int kMaxListAnswerBytes = 16 * 1024 * 1024;
/// The kubelet's folder of the socket, which a container mounts from the host.
constexpr std::string_view kPodResourcesFolder =
    kKubeletPodResourcesSocket.substr(0, kKubeletPodResourcesSocket.rfind('/'));

/// What to do when solscope cannot reach the socket.
auto mount_hint() -> std::string {
  return fmt::format(
      "mount the host's {} into solscope's pod (hostPath, read-only, as deploy/kubernetes/daemonset.yaml "
      "does), or run solscope on the node itself; until then pods are known only by the UID in the cgroup "
      "path",
      kPodResourcesFolder);
}

auto is_gpu_resource(std::string_view resource_name) -> bool {
  return resource_name == kNvidiaGpuResource || resource_name.starts_with(kNvidiaMigResourcePrefix);
}

auto unreachable(std::string_view socket_path, std::string_view why) -> core::Error {
  return core::Error{core::ErrorCode::Unavailable,
                     fmt::format("kubelet PodResources socket {}: {}", socket_path, why), mount_hint()};
}

auto not_permitted(std::string_view socket_path, std::string_view why) -> core::Error {
  return core::Error{
      core::ErrorCode::PermissionDenied, fmt::format("kubelet PodResources socket {}: {}", socket_path, why),
      "run solscope as root, or as a user that may write the socket (the kubelet's socket and folder are "
      "root's); in Kubernetes, run solscope's container as user 0 with the folder mounted"};
}

/// Checks the socket file before gRPC sees it, so that an absent socket or a missing permission is answered
/// at once with its own code (gRPC reports both as UNAVAILABLE, and only after its connect attempt).
auto check_socket(const std::string& socket_path) -> core::Result<void> {
  struct stat info {};
  if (::stat(socket_path.c_str(), &info) != 0) {
    const int err = errno;
    if (err == EACCES) return core::fail(not_permitted(socket_path, std::strerror(err)));
    return core::fail(unreachable(socket_path, std::strerror(err)));
  }
  if (!S_ISSOCK(info.st_mode)) return core::fail(unreachable(socket_path, "not a socket"));
  // connect(2) on a Unix socket needs write permission on its file (unix(7)).
  if (::access(socket_path.c_str(), W_OK) != 0 && errno == EACCES) {
    return core::fail(not_permitted(socket_path, "no write permission, which connecting needs"));
  }
  return core::ok();
}

/// gRPC's name for a Unix socket: "unix:///abs/path" for an absolute path, "unix:rel/path" for a relative one
/// (gRPC docs, "gRPC Name Resolution", https://grpc.github.io/grpc/core/md_doc_naming.html).
auto grpc_target(std::string_view socket_path) -> std::string {
  if (socket_path.starts_with('/')) return fmt::format("unix://{}", socket_path);
  return fmt::format("unix:{}", socket_path);
}

auto status_error(const grpc::Status& status, std::string_view socket_path,
                  std::chrono::milliseconds deadline) -> core::Error {
  switch (status.error_code()) {
    case grpc::StatusCode::UNAVAILABLE:
      return unreachable(socket_path, fmt::format("nobody answers ({})", status.error_message()));
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      return core::Error{core::ErrorCode::DeadlineExceeded,
                         fmt::format("kubelet PodResources socket {}: List did not answer within {} ms",
                                     socket_path, deadline.count()),
                         "check that the kubelet on this node is running and healthy; until it answers, pods "
                         "are known only by "
                         "the UID in the cgroup path"};
    case grpc::StatusCode::PERMISSION_DENIED:
      return not_permitted(socket_path, status.error_message());
    default:
      return core::Error{
          core::ErrorCode::Internal,
          fmt::format("kubelet PodResources socket {}: List failed with gRPC status {} ({})", socket_path,
                      static_cast<int>(status.error_code()), status.error_message()),
          "the kubelet may not serve PodResources v1 (kubelets of Kubernetes 1.20 and newer do)"};
  }
}

void add_holder(std::vector<PodContainer>& holders, PodContainer holder) {
  if (std::find(holders.begin(), holders.end(), holder) == holders.end())
    holders.push_back(std::move(holder));
}

auto map_gpu_devices(const v1::ListPodResourcesResponse& answer) -> PodResourcesMap {
  PodResourcesMap map;
  for (const auto& pod : answer.pod_resources()) {
    for (const auto& container : pod.containers()) {
      for (const auto& devices : container.devices()) {
        if (!is_gpu_resource(devices.resource_name())) continue;
        for (const auto& id : devices.device_ids()) {
          add_holder(map.by_device[normalize_device_id(id)], PodContainer{.pod = pod.name(),
                                                                          .pod_namespace = pod.namespace_(),
                                                                          .container = container.name()});
        }
      }
    }
  }
  return map;
}

}  // namespace

auto normalize_device_id(std::string_view device_id) -> std::string {
  return std::string(device_id.substr(0, device_id.find(kReplicaSeparator)));
}

auto list_gpu_pods(std::string_view socket_path, std::chrono::milliseconds deadline)
    -> core::Result<PodResourcesMap> {
  const std::string path(socket_path);
  if (auto usable = check_socket(path); !usable) return core::propagate(std::move(usable));

  grpc::ChannelArguments arguments;
  arguments.SetMaxReceiveMessageSize(kMaxListAnswerBytes);
  const auto channel =
      grpc::CreateCustomChannel(grpc_target(socket_path), grpc::InsecureChannelCredentials(), arguments);
  const auto stub = v1::PodResourcesLister::NewStub(channel);

  grpc::ClientContext context;  // not wait_for_ready: a refused connection fails at once, not at the deadline
  context.set_deadline(std::chrono::system_clock::now() + deadline);
  v1::ListPodResourcesResponse answer;
  const grpc::Status status = stub->List(&context, v1::ListPodResourcesRequest{}, &answer);
  if (!status.ok()) return core::fail(status_error(status, socket_path, deadline));
  return map_gpu_devices(answer);
}

}  // namespace solscope::workload
