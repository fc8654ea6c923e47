// Kubernetes attribution from the kubelet's PodResources API: which pod and container each GPU device ID is
// allocated to, as dcgm-exporter maps it (its pkg/dcgmexporter kubernetes.go). The gRPC service
// `v1.PodResourcesLister`, method `List`, on the kubelet's Unix socket
// (/var/lib/kubelet/pod-resources/kubelet.sock; Kubernetes docs, "Monitor Device Plugin Resources"). The
// client is generated from proto/podresources/v1/api.proto, which restates the API's messages (field names
// and numbers from the kubelet's k8s.io/kubelet/pkg/apis/podresources/v1/api.proto).
#pragma once

#include <chrono>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"

namespace solscope::workload {

/// The kubelet's PodResources socket.
inline constexpr std::string_view kKubeletPodResourcesSocket = "/var/lib/kubelet/pod-resources/kubelet.sock";
/// A List call gives up after this long (the kubelet answers from memory in milliseconds).
inline constexpr std::chrono::milliseconds kPodResourcesDeadline{2000};

/// One container that holds a device.
struct PodContainer {
  std::string pod;            ///< pod name
  std::string pod_namespace;  ///< namespace
  std::string container;      ///< container name
  friend auto operator==(const PodContainer&, const PodContainer&) -> bool = default;
};

/// GPU device IDs and who holds them. Keys are the IDs the NVIDIA device plugin hands out: a GPU UUID
/// ("GPU-..."), a MIG device UUID ("MIG-..."), with a time-slicing replica suffix "::<n>" removed. Only the
/// resources `nvidia.com/gpu` and `nvidia.com/mig-*` are read. A device shared by time-slicing replicas lists
/// every container that holds one of them, in List order, each once.
struct PodResourcesMap {
  std::map<std::string, std::vector<PodContainer>, std::less<>> by_device;
};

/// Calls List on the kubelet's PodResources socket at `socket_path` (a filesystem path; gRPC target
/// "unix://<path>") and maps the GPU devices. Errors: Unavailable when the socket is absent or nobody answers
/// (with the path and what to do: mount /var/lib/kubelet/pod-resources into the pod), PermissionDenied when
/// the socket cannot be opened, DeadlineExceeded after `deadline`, Internal for any other gRPC status (its
/// code and message). Thread-safe; each call opens its own channel.
[[nodiscard]] auto list_gpu_pods(std::string_view socket_path,
                                 std::chrono::milliseconds deadline = kPodResourcesDeadline)
    -> core::Result<PodResourcesMap>;

/// A device ID as the map keys it: the "::<n>" replica suffix of time-slicing removed.
[[nodiscard]] auto normalize_device_id(std::string_view device_id) -> std::string;

}  // namespace solscope::workload
