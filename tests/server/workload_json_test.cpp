// Workloads over the JSON API (issue 24): each process's workload, each device's `workloads` and the node's
// per-workload roll-up of /api/v1/devices, read back by the view attached to a daemon (RemoteFeed).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/workload.hpp"
#include "server/detail/api.hpp"
#include "server/remote_feed.hpp"
#include "server_test_support.hpp"
#include "wire/device_json.hpp"
#include "wire/json_text.hpp"

namespace solscope::server {
namespace {

auto pod(std::string ns, std::string name, std::string container) -> core::WorkloadIdentity {
  return {.pod = std::move(name), .pod_namespace = std::move(ns), .container = std::move(container)};
}

auto gpu_process(std::int32_t pid, core::WorkloadIdentity id, std::optional<double> sm_pct)
    -> core::GpuProcess {
  return {.pid = pid,
          .user = "root",
          .command = "python serve.py",
          .workload = std::move(id),
          .origin = core::WorkloadOrigin::kKubelet,
          .sm_pct = sm_pct};
}

/// The workloads attribute_gpu() finds for `processes` and `allocations` (as the runtime's refresher sets
/// them).
auto workloads_of(const std::vector<core::GpuProcess>& processes,
                  const std::vector<core::WorkloadAllocation>& allocations = {}) -> core::GpuWorkloads {
  std::vector<core::ProcessWorkload> list;
  for (const core::GpuProcess& p : processes)
    list.push_back({.pid = p.pid, .id = p.workload, .origin = p.origin, .sm_pct = p.sm_pct, .mps = p.mps});
  return core::attribute_gpu(list, allocations, "kubelet PodResources");
}

/// GPU 0: pod ml/train-0 alone; GPU 1: ml/infer-a (SM 30 %) and web/front (SM 10 %) time-sliced; GPU 2:
/// ml/train-0 again (a pod with two GPUs) and an allocation-only pod; GPU 3: nothing.
auto node() -> std::vector<core::DeviceState> {
  std::vector<core::DeviceState> devices;
  for (std::uint32_t d = 0; d < 4; ++d) devices.push_back(testing::synthetic_device(d));
  devices[0].processes = {gpu_process(100, pod("ml", "train-0", "trainer"), 80.0)};
  devices[1].processes = {gpu_process(200, pod("ml", "infer-a", "server"), 30.0),
                          gpu_process(201, pod("web", "front", "srv"), 10.0)};
  devices[2].processes = {gpu_process(101, pod("ml", "train-0", "trainer"), std::nullopt)};
  devices[0].workloads = workloads_of(devices[0].processes);
  devices[1].workloads = workloads_of(devices[1].processes);
  devices[2].workloads = workloads_of(devices[2].processes, {{.id = pod("ml", "notebook", "jupyter")}});
  return devices;
}

TEST(WorkloadJsonTest, a_device_writes_its_workloads_and_each_process_its_workload) {
  const std::vector<core::DeviceState> devices = node();
  const nlohmann::json json = nlohmann::json::parse(wire::json_text(wire::device_state_to_json(devices[1])));
  EXPECT_EQ(json.at("workloads"), nlohmann::json::parse(R"j({"sharing": "time_sliced",
      "sharing_label": "shared (time-sliced)", "note": "kubelet PodResources", "items": [
      {"pod": "infer-a", "namespace": "ml", "container": "server", "hpc_job": "", "user": "",
       "display": "ml/infer-a/server", "origin": "kubelet", "pids": [200], "sm_pct": 30.0, "fraction": 0.75},
      {"pod": "front", "namespace": "web", "container": "srv", "hpc_job": "", "user": "",
       "display": "web/front/srv", "origin": "kubelet", "pids": [201], "sm_pct": 10.0, "fraction": 0.25}]
})j"));
  const nlohmann::json& p = json.at("processes").at(0);
  EXPECT_EQ(p.at("user"), "root");  // the owner; the workload's user is inside `workload`
  EXPECT_EQ(p.at("workload"), nlohmann::json::parse(R"j({"pod": "infer-a", "namespace": "ml",
      "container": "server", "hpc_job": "", "user": "", "display": "ml/infer-a/server"})j"));
  EXPECT_EQ(p.at("origin"), "kubelet");
  EXPECT_EQ(p.at("sm_pct"), 30.0);
  EXPECT_EQ(p.at("mps"), false);
  // Unknown figures are null, never 0; a GPU with no workload says so.
  const nlohmann::json gpu2 = nlohmann::json::parse(wire::json_text(wire::device_state_to_json(devices[2])));
  EXPECT_TRUE(gpu2.at("processes").at(0).at("sm_pct").is_null());
  EXPECT_EQ(gpu2.at("workloads").at("sharing"), "concurrent");
  EXPECT_TRUE(gpu2.at("workloads").at("items").at(0).at("fraction").is_null());
  const nlohmann::json gpu3 = nlohmann::json::parse(wire::json_text(wire::device_state_to_json(devices[3])));
  EXPECT_EQ(gpu3.at("workloads"),
            nlohmann::json::parse(R"j({"sharing": "none", "sharing_label": "", "note": "", "items": []})j"));
}

TEST(WorkloadJsonTest, workloads_survive_a_round_trip) {
  for (const core::DeviceState& d : node()) {
    auto back =
        wire::device_state_from_json(nlohmann::json::parse(wire::json_text(wire::device_state_to_json(d))));
    ASSERT_TRUE(back) << back.error().describe();
    EXPECT_EQ(back->workloads, d.workloads) << d.info.index;
    EXPECT_EQ(back->processes, d.processes) << d.info.index;
  }
  // A daemon from before the field: no workloads, processes without one.
  auto old = wire::device_state_from_json(
      nlohmann::json::parse(R"j({"index": 0, "processes": [{"pid": 7, "user": "bob"}]})j"));
  ASSERT_TRUE(old);
  EXPECT_EQ(old->workloads, core::GpuWorkloads{});
  EXPECT_EQ(old->processes.at(0).origin, core::WorkloadOrigin::kNone);
  EXPECT_FALSE(old->processes.at(0).sm_pct.has_value());
}

TEST(WorkloadJsonTest, devices_json_rolls_the_node_up_per_workload) {
  core::LiveState state;
  state.set_devices(node());
  const auto body = nlohmann::json::parse(devices_json(state, {.hostname = "node-17", .version = "0.1.0"}));
  const nlohmann::json want = nlohmann::json::parse(R"j([
    {"pod": "train-0", "namespace": "ml", "container": "trainer", "hpc_job": "", "user": "",
     "display": "ml/train-0/trainer", "origin": "kubelet", "sharing": "exclusive, shared (concurrent)",
     "gpus": [{"device": 0, "label": "GPU 0", "sharing": "exclusive", "fraction": 1.0, "sm_pct": 80.0,
               "pids": [100]},
              {"device": 2, "label": "GPU 2", "sharing": "concurrent", "fraction": null, "sm_pct": null,
               "pids": [101]}],
     "steps": {"ranks": [], "not_periodic": [0, 2], "straggler": null, "spread_pct": null,
               "iteration_spread_pct": null}},
    {"pod": "infer-a", "namespace": "ml", "container": "server", "hpc_job": "", "user": "",
     "display": "ml/infer-a/server", "origin": "kubelet", "sharing": "shared (time-sliced)",
     "gpus": [{"device": 1, "label": "GPU 1", "sharing": "time_sliced", "fraction": 0.75, "sm_pct": 30.0,
               "pids": [200]}], "steps": null},
    {"pod": "front", "namespace": "web", "container": "srv", "hpc_job": "", "user": "",
     "display": "web/front/srv", "origin": "kubelet", "sharing": "shared (time-sliced)",
     "gpus": [{"device": 1, "label": "GPU 1", "sharing": "time_sliced", "fraction": 0.25, "sm_pct": 10.0,
               "pids": [201]}], "steps": null},
    {"pod": "notebook", "namespace": "ml", "container": "jupyter", "hpc_job": "", "user": "",
     "display": "ml/notebook/jupyter", "origin": "kubelet", "sharing": "shared (concurrent)",
     "gpus": [{"device": 2, "label": "GPU 2", "sharing": "concurrent", "fraction": null, "sm_pct": 0.0,
               "pids": []}], "steps": null}])j");
  EXPECT_EQ(body.at("workloads"), want) << body.at("workloads").dump(2);
}

// The terminal view attached to a daemon mirrors each GPU's workloads.
class WorkloadRemoteFeedTest : public testing::LiveServerTest {};

TEST_F(WorkloadRemoteFeedTest, the_mirror_keeps_the_workloads) {
  state_.set_devices(node());
  start();
  core::LiveState mirror;
  RemoteOptions options;
  options.address = "127.0.0.1:" + std::to_string(server_->port());
  auto feed = RemoteFeed::connect(options, mirror);
  ASSERT_TRUE(feed) << feed.error().describe();
  const auto devices = mirror.devices();
  const auto original = state_.devices();
  ASSERT_EQ(devices.size(), original.size());
  for (std::size_t i = 0; i < devices.size(); ++i) {
    EXPECT_EQ(devices[i].workloads, original[i].workloads) << i;
    EXPECT_EQ(devices[i].processes, original[i].processes) << i;
  }
}

}  // namespace
}  // namespace solscope::server
