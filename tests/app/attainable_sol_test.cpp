// AttainableSol over fakes: a PID function, the workload stub HTTP server, a copy of the fake procfs tree of
// tests/data/procfs (SYNTHETIC) whose Llama config.json is replaced by the real one of tests/data/hf_configs,
// and the GPU spec database built into the binary. Expected figures come from direct ceiling::evaluate calls.
#include "attainable/attainable_sol.hpp"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "attainable/attainable_wiring.hpp"
#include "ceiling/default_gpu_specs.hpp"
#include "core/derive.hpp"
#include "core/live_state.hpp"
#include "server/detail/api.hpp"
#include "tui/detail/views.hpp"
#include "workload/workload_test_support.hpp"

namespace solscope::app {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;
using workload::test_support::engine_fixture;
using workload::test_support::PortMappedClient;
using workload::test_support::StubServer;

constexpr const char* kH100Name = "NVIDIA H100 80GB HBM3";  // the NVML name; an alias in data/gpu_specs.json
constexpr const char* kLlamaSnapshot =
    "rootfs/host/home/alice/.cache/huggingface/hub/models--meta-llama--Llama-3.1-8B-Instruct/snapshots/"
    "0e9e39f249a16976918f6564b8830bc894c89659/config.json";

auto data_dir() -> fs::path {
  return fs::path(SOLSCOPE_TEST_DATA_DIR);
}

auto read_text(const fs::path& path) -> std::string {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// A sample of `device` at an SM clock, as the engine hands it to the annotator.
auto sample_of(std::uint32_t device, double sm_clock_mhz) -> core::RawSample {
  core::RawSample s;
  s.device_index = device;
  s.set(core::MetricId::SmClockMhz, sm_clock_mhz);
  return s;
}

/// The ceiling computed directly, for comparison.
auto direct_ceiling(std::string_view gpu_name, const fs::path& config, workload::WorkloadShape shape, int tp,
                    double sm_clock_mhz) -> ceiling::Ceiling {
  auto db = ceiling::parse_gpu_database(ceiling::default_gpu_specs_json(), "built-in");
  EXPECT_TRUE(db.has_value());
  auto gpu = ceiling::find_gpu(*db, gpu_name);
  EXPECT_TRUE(gpu.has_value());
  auto arch = ceiling::parse_model_config(read_text(config), config.string());
  EXPECT_TRUE(arch.has_value()) << arch.error().describe();
  auto step =
      ceiling::make_step(static_cast<ceiling::Phase>(shape.phase), shape.batch, shape.context, shape.prompt);
  EXPECT_TRUE(step.has_value());
  ceiling::Workload w{.step = *step, .tensor_parallel = tp};
  w.sm_clock_mhz = sm_clock_mhz;
  auto c = ceiling::evaluate(*db, **gpu, *arch, w);
  EXPECT_TRUE(c.has_value()) << c.error().describe();
  return *c;
}

/// The serving ceiling computed directly, for comparison.
auto direct_serving(std::string_view gpu_name, const fs::path& config, ceiling::ServeTraffic traffic, int tp,
                    double sm_clock_mhz) -> ceiling::ServeCeiling {
  auto db = ceiling::parse_gpu_database(ceiling::default_gpu_specs_json(), "built-in");
  auto gpu = ceiling::find_gpu(*db, gpu_name);
  EXPECT_TRUE(gpu.has_value());
  auto arch = ceiling::parse_model_config(read_text(config), config.string());
  EXPECT_TRUE(arch.has_value()) << arch.error().describe();
  ceiling::Workload base{.tensor_parallel = tp};
  base.sm_clock_mhz = sm_clock_mhz;
  auto s = ceiling::evaluate_serving(*db, **gpu, *arch, base, traffic);
  EXPECT_TRUE(s.has_value()) << s.error().describe();
  return *s;
}

/// PIDs per GPU that a test can change between passes.
struct FakePids {
  std::map<std::uint32_t, std::vector<std::int32_t>> pids;
  auto lister() -> PidLister {
    return [this](std::uint32_t device) -> core::Result<std::vector<std::int32_t>> { return pids[device]; };
  }
};

class AttainableSolTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("solscope-attainable-" + std::to_string(::getpid()) + "-" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::copy(data_dir() / "procfs", root_, fs::copy_options::recursive | fs::copy_options::copy_symlinks);
    // The fixture tree's config.json is a stub; the ceiling needs the real Llama-3.1-8B architecture.
    fs::copy_file(data_dir() / "hf_configs/llama-3.1-8b/config.json", root_ / kLlamaSnapshot,
                  fs::copy_options::overwrite_existing);
    stub_.set("/8000/v1/models", 200, engine_fixture("vllm_models.json"));
    stub_.set("/8000/metrics", 200, engine_fixture("vllm_metrics_t0.txt"));
  }
  void TearDown() override { fs::remove_all(root_); }

  /// AttainableSol over two H100s running the fake host's vLLM (TP 2, GPUs 0 and 1).
  auto make(std::vector<core::DeviceInfo> devices, std::vector<workload::WorkloadDeclaration> declared = {})
      -> std::unique_ptr<AttainableSol> {
    AttainableSolDeps deps = fake_host_deps([] { return 100.0; });
    deps.declared = std::move(declared);
    return std::make_unique<AttainableSol>(std::move(devices), std::move(deps));
  }
  /// The fake host's pids, engines (through the stub server) and procfs, with `now_s` as the clock.
  auto fake_host_deps(std::function<double()> now_s) -> AttainableSolDeps {
    AttainableSolDeps deps;
    deps.pids = pids_.lister();
    deps.http = std::make_unique<PortMappedClient>(stub_.port());
    deps.discovery.procfs_root = root_ / "host";
    deps.discovery.user_name = workload::test_support::fake_user_name;
    deps.now_s = std::move(now_s);
    return deps;
  }
  static auto two_h100() -> std::vector<core::DeviceInfo> {
    return {core::DeviceInfo{.index = 0, .name = kH100Name}, core::DeviceInfo{.index = 1, .name = kH100Name}};
  }

  fs::path root_;
  StubServer stub_;
  FakePids pids_;
};

TEST_F(AttainableSolTest, annotates_the_ceiling_of_a_discovered_vllm_workload) {
  pids_.pids = {{0, {1002}}, {1, {1003}}};
  auto attainable = make(two_h100());
  core::RawSample before = sample_of(0, 1755.0);
  attainable->annotate(before);  // no pass yet: unknown, but the clock is remembered
  EXPECT_TRUE(std::isnan(before.attainable_compute_sol_pct));
  attainable->refresh_now();

  core::RawSample s = sample_of(0, 1755.0);
  attainable->annotate(s);
  // vllm_metrics_t0.txt: 12 running + 3 waiting requests, lifetime means 9000 / 10 prompt and 4500 / 10
  // generated tokens -> the serving mix of isl 900, osl 450, concurrency 15 (vLLM's default budget on H100).
  const ceiling::ServeCeiling expected =
      direct_serving(kH100Name, root_ / kLlamaSnapshot, ceiling::ServeTraffic{900, 450, 15, 0}, 2, 1755.0);
  EXPECT_DOUBLE_EQ(s.attainable_compute_sol_pct, expected.activity_compute_sol_pct);
  EXPECT_GT(s.attainable_compute_sol_pct, expected.useful_compute_sol_pct)
      << "the GEMM kernel families pad tokens (docs/design/ceiling-model.md 2.7)";
  EXPECT_DOUBLE_EQ(s.attainable_memory_sol_pct, expected.memory_sol_pct);
  EXPECT_GT(s.attainable_memory_sol_pct, s.attainable_compute_sol_pct)
      << "small-batch decode is memory bound";
  EXPECT_GT(s.attainable_compute_sol_pct, 0.0);
  EXPECT_LT(s.attainable_memory_sol_pct, 100.0);

  const std::string description = attainable->description_of(0);
  EXPECT_THAT(description, HasSubstr("found vLLM serving meta-llama/Llama-3.1-8B-Instruct on :8000; serving "
                                     "isl 900 osl 450 concurrency 15, budget 8192 (vLLM default), TP 2 on "
                                     "H100-SXM5-80GB at 1755 MHz: attainable compute "));
  EXPECT_THAT(description, Not(HasSubstr("engine's own FLOP estimate"))) << "the fixture exports none";
  EXPECT_THAT(description, HasSubstr("limited by memory"));
  core::RawSample other = sample_of(1, std::nan(""));
  attainable->annotate(other);
  EXPECT_FALSE(std::isnan(other.attainable_compute_sol_pct)) << "GPU 1 is the other rank of the same engine";
  core::RawSample unknown_device = sample_of(7, 1000.0);
  attainable->annotate(unknown_device);
  EXPECT_TRUE(std::isnan(unknown_device.attainable_compute_sol_pct));
}

TEST_F(AttainableSolTest, clears_the_figures_when_the_workload_disappears) {
  pids_.pids = {{0, {1002}}, {1, {1003}}};
  auto attainable = make(two_h100());
  attainable->refresh_now();
  core::RawSample s = sample_of(0, 1980.0);
  attainable->annotate(s);
  ASSERT_FALSE(std::isnan(s.attainable_compute_sol_pct));

  pids_.pids = {{0, {}}, {1, {}}};  // the engine exited
  attainable->refresh_now();
  core::RawSample after = sample_of(0, 1980.0);
  after.attainable_compute_sol_pct = 42.0;  // whatever was there is replaced
  attainable->annotate(after);
  EXPECT_TRUE(std::isnan(after.attainable_compute_sol_pct));
  EXPECT_TRUE(std::isnan(after.attainable_memory_sol_pct));
  EXPECT_EQ(attainable->description_of(0), "no processes on GPU 0");
  EXPECT_EQ(attainable->snapshot()->pass, 2u);
}

TEST_F(AttainableSolTest, evaluates_a_declared_workload_at_the_spec_clock_without_samples) {
  const fs::path file = root_ / "workloads.toml";
  const fs::path model = data_dir() / "hf_configs/llama-3.1-8b";
  std::ofstream(file) << "# mine\n[[workload]]\ngpus = [0]\nmodel = \"" << model.string()
                      << "\"\nbatch = 64\ncontext = 1024\n";
  auto declared = load_workload_declarations(WorkloadOptions{.file = file.string()},
                                             [](std::string_view) { return std::optional<std::string>{}; });
  ASSERT_TRUE(declared.has_value()) << declared.error().describe();
  pids_.pids = {{0, {4000}}};
  auto attainable = make({core::DeviceInfo{.index = 0, .name = "NVIDIA A100-SXM4-80GB"}}, *declared);
  attainable->refresh_now();
  core::RawSample s = sample_of(0, std::nan(""));
  attainable->annotate(s);
  const ceiling::Ceiling expected = direct_ceiling("A100-SXM4-80GB", model / "config.json",
                                                   {workload::Phase::Decode, 64, 1024, 0}, 1, std::nan(""));
  EXPECT_DOUBLE_EQ(s.attainable_compute_sol_pct, expected.compute_sol_pct);
  EXPECT_DOUBLE_EQ(s.attainable_memory_sol_pct, expected.memory_sol_pct);
  EXPECT_THAT(attainable->description_of(0),
              HasSubstr("declared in the config file (line 2): " + model.string() +
                        " on GPUs 0; decode batch 64 context 1024, TP 1 on A100-SXM4-80GB at "));
}

TEST_F(AttainableSolTest, says_why_there_is_no_ceiling) {
  // The fixture's own config.json is a stub without the layer count.
  fs::copy_file(data_dir() / "procfs" / kLlamaSnapshot, root_ / kLlamaSnapshot,
                fs::copy_options::overwrite_existing);
  pids_.pids = {{0, {1002}}, {1, {1003}}, {5, {4000}}};
  std::vector<core::DeviceInfo> devices = two_h100();
  devices[1].name = "NVIDIA Imaginary GPU";
  devices.push_back(core::DeviceInfo{.index = 5, .name = kH100Name});
  devices.push_back(core::DeviceInfo{.index = 6, .name = kH100Name});
  auto attainable = make(devices);
  attainable->refresh_now();
  const auto snapshot = attainable->snapshot();
  ASSERT_EQ(snapshot->devices.size(), 4u);
  EXPECT_THAT(snapshot->devices[0].ceiling_note, HasSubstr("no ceiling: model config"));
  EXPECT_THAT(snapshot->devices[1].ceiling_note,
              HasSubstr("no ceiling: GPU 1 ('NVIDIA Imaginary GPU') is not in the GPU spec database"));
  EXPECT_THAT(snapshot->devices[2].description, HasSubstr("no serving engine: pid 4000 (bob)"));
  EXPECT_EQ(snapshot->devices[2].ceiling_note, "");
  EXPECT_EQ(snapshot->devices[3].description, "no processes on GPU 6");
  for (const auto& f : snapshot->devices) EXPECT_TRUE(std::isnan(f.compute_sol_pct));
}

TEST_F(AttainableSolTest, reports_a_pid_listing_failure_per_gpu) {
  AttainableSolDeps deps;
  deps.pids = [](std::uint32_t device) -> core::Result<std::vector<std::int32_t>> {
    if (device == 1) return core::fail(core::ErrorCode::Unavailable, "GPU 1 is lost");
    return std::vector<std::int32_t>{};
  };
  deps.http = std::make_unique<PortMappedClient>(stub_.port());
  deps.discovery.procfs_root = root_ / "host";
  AttainableSol attainable(two_h100(), std::move(deps));
  attainable.refresh_now();
  EXPECT_EQ(attainable.description_of(0), "no processes on GPU 0");
  EXPECT_EQ(attainable.description_of(1), "cannot list the processes of GPU 1: GPU 1 is lost");
}

TEST_F(AttainableSolTest, refreshes_on_its_own_thread_and_stops) {
  pids_.pids = {{0, {1002}}, {1, {1003}}};
  auto attainable = make(two_h100());
  attainable->start();
  // Bounded wait for the first pass (a few HTTP requests to the local stub); no timing is asserted.
  for (int i = 0; i < 3000 && attainable->snapshot()->pass == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  attainable->stop();
  const auto snapshot = attainable->snapshot();
  ASSERT_GE(snapshot->pass, 1u);
  EXPECT_FALSE(std::isnan(snapshot->devices.at(0).compute_sol_pct));
  attainable->stop();  // idempotent
}

TEST_F(AttainableSolTest, formats_the_devices_workloads_view) {
  pids_.pids = {{0, {1002}}, {1, {1003}}, {5, {4000}}};
  std::vector<core::DeviceInfo> devices = two_h100();
  devices.push_back(core::DeviceInfo{.index = 5, .name = kH100Name});
  auto attainable = make(devices);
  attainable->refresh_now();
  const std::string text = format_devices_workloads(*attainable->snapshot());
  EXPECT_THAT(text, HasSubstr("\nWorkloads (discovered on this machine; nothing leaves it)\n"
                              "GPU 0: found vLLM serving meta-llama/Llama-3.1-8B-Instruct on :8000\n"
                              "  process 1002 (alice) VLLM::Worker_TP0\n"));
  EXPECT_THAT(text, HasSubstr("  step shape: decode batch 12 context 1333 prompt 0\n"
                              "  serving: isl 900 osl 450 concurrency 15, token budget engine default\n"));
  EXPECT_THAT(text,
              HasSubstr("  ceiling: serving isl 900 osl 450 concurrency 15, budget 8192 (vLLM default), TP 2 "
                        "on H100-SXM5-80GB at "));
  EXPECT_THAT(text, HasSubstr("GPU 5: no serving engine: pid 4000 (bob) runs python train.py --epochs 3;"));
}

// From a discovered engine to what the user reads: the limiter and the gap in points between the live and the
// attainable figures, in the API's JSON (/api/v1/devices' latest window) and in the terminal's detail view.
TEST_F(AttainableSolTest, the_api_and_the_detail_view_say_the_limiter_and_the_gap) {
  pids_.pids = {{0, {1002}}, {1, {1003}}};
  auto attainable = make(two_h100());
  core::RawSample clock = sample_of(0, 1755.0);
  attainable->annotate(clock);  // the next pass evaluates at this clock
  attainable->refresh_now();
  core::RawSample raw = sample_of(0, 1755.0);
  raw.t_start_ns = 1'000'000'000;
  raw.t_end_ns = 1'100'000'000;
  raw.source = core::SourceKind::PmSampling;
  raw.set(core::MetricId::TensorPipe, 1.5);       // live Compute SOL
  raw.set(core::MetricId::DramThroughput, 40.0);  // live Memory SOL
  attainable->annotate(raw);
  const ceiling::ServeCeiling expected =
      direct_serving(kH100Name, root_ / kLlamaSnapshot, ceiling::ServeTraffic{900, 450, 15, 0}, 2, 1755.0);
  ASSERT_EQ(expected.limiter, ceiling::Limiter::Memory) << "small-batch decode is memory bound";
  EXPECT_EQ(raw.attainable_limiter, core::Limiter::Memory);
  EXPECT_THAT(attainable->description_of(0),
              HasSubstr("; weights bf16, activations bf16, KV cache bf16, GEMM math bf16"))
      << "the dtypes in brief";
  core::LiveState state;
  state.set_devices({core::DeviceState{.info = {.index = 0, .name = kH100Name}}});
  state.add(core::derive(raw, core::DeviceInfo{}));

  const auto body = nlohmann::json::parse(server::devices_json(state, {.hostname = "node-1"}));
  const auto& window = body.at("devices").at(0).at("latest_window");
  EXPECT_EQ(window.at("attainable_limiter"), "memory");
  // The window's means of one sample: equal to it up to rounding.
  EXPECT_NEAR(window.at("attainable_compute_gap_pts").get<double>(), expected.activity_compute_sol_pct - 1.5,
              1e-9);
  EXPECT_NEAR(window.at("attainable_memory_gap_pts").get<double>(), expected.memory_sol_pct - 40.0, 1e-9);

  tui::ScreenModel model;
  model.devices = state.snapshot();
  tui::UiState ui;
  ui.view = tui::View::Detail;
  tui::Frame frame(50, 200);
  tui::render(model, ui, tui::compute_layout(tui::layout_request(model, ui, 50, 200)), frame);
  const std::string line = fmt::format(
      " attainable compute {:.1f}% ({:+.1f} pts), memory {:.1f}% ({:+.1f} pts), limited by memory "
      "bandwidth\n",
      expected.activity_compute_sol_pct, expected.activity_compute_sol_pct - 1.5, expected.memory_sol_pct,
      expected.memory_sol_pct - 40.0);
  EXPECT_NE(frame.text().find(line), std::string::npos) << line << frame.text();
}

// Two scrapes 5 s apart of SYNTHETIC serving metrics: isl 1024, osl 256, concurrency 60 + 4 from the
// window's histogram deltas, and the engine's FLOP estimate rising by 5e14 -> 1e14 FLOP/s per GPU, shown as
// an MFU against the same peak as solscope's useful figure.
TEST_F(AttainableSolTest, serving_mix_from_live_histograms_and_the_engines_flop_estimate) {
  pids_.pids = {{0, {1002}}, {1, {1003}}};
  double now = 100.0;
  AttainableSolDeps deps = fake_host_deps([&now] { return now; });
  // The engine was started with a token budget of its own: it replaces vLLM's default.
  {
    std::ofstream cmdline(root_ / "host/1000/cmdline", std::ios::binary | std::ios::app);
    cmdline << std::string(
        "--max-num-batched-tokens\0"
        "2048\0",
        30);
  }
  AttainableSol attainable(two_h100(), std::move(deps));
  stub_.set("/8000/metrics", 200, engine_fixture("synthetic_vllm_serve_t0.txt"));
  attainable.refresh_now();
  core::RawSample first = sample_of(0, 1755.0);
  attainable.annotate(first);
  now = 105.0;
  stub_.set("/8000/metrics", 200, engine_fixture("synthetic_vllm_serve_t1.txt"));
  attainable.refresh_now();
  core::RawSample s = sample_of(0, 1755.0);
  attainable.annotate(s);

  const ceiling::ServeCeiling expected = direct_serving(
      kH100Name, root_ / kLlamaSnapshot, ceiling::ServeTraffic{1024, 256, 64, 2048}, 2, 1755.0);
  EXPECT_DOUBLE_EQ(s.attainable_compute_sol_pct, expected.activity_compute_sol_pct);
  EXPECT_DOUBLE_EQ(s.attainable_memory_sol_pct, expected.memory_sol_pct);
  const AttainableFigures& f = attainable.snapshot()->devices.at(0);
  EXPECT_DOUBLE_EQ(f.useful_compute_sol_pct, expected.useful_compute_sol_pct);
  // 1e14 FLOP/s over the BF16 peak at 1755 MHz: 132 SMs x 4096 FLOP/clock x 1.755 GHz = 948.9 TFLOP/s.
  EXPECT_NEAR(f.engine_mfu_pct, 1e14 / (132 * 4096 * 1.755e9) * 100, 1e-9);
  EXPECT_THAT(f.description, HasSubstr("serving isl 1024 osl 256 concurrency 64, budget 2048, TP 2 on "));
  EXPECT_THAT(f.description, HasSubstr("; engine's own FLOP estimate 100.0 TFLOP/s per GPU = MFU 10.5%"));
}

// SGLang's live traffic sets the serving ceiling too: two SYNTHETIC scrapes 4 s apart whose histogram deltas
// give isl 2048 (+8192 prompt tokens over +4 requests) and osl 128 (+512 over +4), with 30 running and 2
// queued requests: the ceiling is the one of exactly that traffic, at SGLang's TP 1 and no budget on its
// command line.
TEST_F(AttainableSolTest, sglang_histograms_and_queue_set_the_serving_ceiling) {
  constexpr const char* kQwenConfig = "rootfs/sglang/models/Qwen2.5-7B/config.json";
  fs::copy_file(data_dir() / "hf_configs/qwen2.5-7b/config.json", root_ / kQwenConfig,
                fs::copy_options::overwrite_existing);
  pids_.pids = {{2, {2001}}};
  double now = 100.0;
  AttainableSolDeps deps = fake_host_deps([&now] { return now; });
  AttainableSol attainable({core::DeviceInfo{.index = 2, .name = kH100Name}}, std::move(deps));
  stub_.set("/30000/get_server_info", 200, engine_fixture("sglang_server_info.json"));
  stub_.set("/30000/metrics", 200, engine_fixture("synthetic_sglang_serve_t0.txt"));
  attainable.refresh_now();
  core::RawSample first = sample_of(2, 1755.0);
  attainable.annotate(first);  // the next pass evaluates at this clock
  now = 104.0;
  stub_.set("/30000/metrics", 200, engine_fixture("synthetic_sglang_serve_t1.txt"));
  attainable.refresh_now();
  core::RawSample s = sample_of(2, 1755.0);
  attainable.annotate(s);

  const ceiling::ServeCeiling expected =
      direct_serving(kH100Name, root_ / kQwenConfig, ceiling::ServeTraffic{2048, 128, 32, 0}, 1, 1755.0);
  EXPECT_DOUBLE_EQ(s.attainable_compute_sol_pct, expected.activity_compute_sol_pct);
  EXPECT_DOUBLE_EQ(s.attainable_memory_sol_pct, expected.memory_sol_pct);
  EXPECT_EQ(s.attainable_limiter, expected.limiter);
  EXPECT_THAT(attainable.description_of(2), HasSubstr("serving isl 2048 osl 128 concurrency 32, budget "));
}

}  // namespace
}  // namespace solscope::app
