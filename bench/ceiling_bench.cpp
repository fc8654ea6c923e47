// Cost of one attainable-SOL evaluation (goal: well under 1 ms, issue 5) and of one 30-point capacity sweep
// (goal: under 50 ms, issue 22), with a baseline measured in the same run: copying the Workload that each
// evaluation takes (the least any evaluation must do). Report figures as ratios.
#include <benchmark/benchmark.h>

#include <fstream>
#include <sstream>
#include <string>

#include "ceiling/capacity.hpp"
#include "ceiling/ceiling.hpp"
#include "ceiling/default_gpu_specs.hpp"
#include "ceiling/serving.hpp"

namespace {

using namespace solscope::ceiling;

auto read_fixture(const std::string& model) -> std::string {
  std::ifstream in(std::string(SOLSCOPE_TEST_DATA_DIR) + "/hf_configs/" + model + "/config.json");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

struct Setup {
  GpuDatabase db;
  const GpuSpec* gpu = nullptr;
  ModelArch arch;
  Workload workload;
};

auto setup(const std::string& model, Phase phase, std::int64_t batch, std::int64_t context,
           std::int64_t prompt, int tp) -> Setup {
  Setup s;
  s.db = *parse_gpu_database(default_gpu_specs_json(), "built-in");
  s.gpu = *find_gpu(s.db, "H100");
  s.arch = *parse_model_config(read_fixture(model), model);
  s.workload.step = *make_step(phase, batch, context, prompt);
  s.workload.tensor_parallel = tp;
  return s;
}

void BM_baseline_copy_workload(benchmark::State& state) {
  const Setup s = setup("llama-3.1-8b", Phase::Decode, 64, 1024, 0, 1);
  for (auto _ : state) {
    Workload copy = s.workload;
    benchmark::DoNotOptimize(copy);
  }
}
BENCHMARK(BM_baseline_copy_workload);

void run_evaluate(benchmark::State& state, const Setup& s) {
  for (auto _ : state) {
    auto result = evaluate(s.db, *s.gpu, s.arch, s.workload);
    benchmark::DoNotOptimize(result);
  }
}

void BM_evaluate_llama8b_decode_b64(benchmark::State& state) {
  run_evaluate(state, setup("llama-3.1-8b", Phase::Decode, 64, 1024, 0, 1));
}
BENCHMARK(BM_evaluate_llama8b_decode_b64);

void BM_evaluate_deepseek_v3_decode_ep8_dp_attention(benchmark::State& state) {
  Setup s = setup("deepseek-v3", Phase::Decode, 256, 1024, 0, 1);
  s.workload.expert_parallel = 8;
  s.workload.dp_attention = true;
  run_evaluate(state, s);
}
BENCHMARK(BM_evaluate_deepseek_v3_decode_ep8_dp_attention);

void BM_evaluate_llama8b_prefill_8192(benchmark::State& state) {
  run_evaluate(state, setup("llama-3.1-8b", Phase::Prefill, 1, 0, 8192, 1));
}
BENCHMARK(BM_evaluate_llama8b_prefill_8192);

void BM_evaluate_mixtral_decode_b32_tp2(benchmark::State& state) {
  run_evaluate(state, setup("mixtral-8x7b-v0.1", Phase::Decode, 32, 1024, 0, 2));
}
BENCHMARK(BM_evaluate_mixtral_decode_b32_tp2);

void BM_evaluate_gpt_oss_prefill_32k(benchmark::State& state) {
  run_evaluate(state, setup("gpt-oss-20b", Phase::Prefill, 1, 0, 32768, 1));
}
BENCHMARK(BM_evaluate_gpt_oss_prefill_32k);

void BM_evaluate_deepseek_v3_train(benchmark::State& state) {
  run_evaluate(state, setup("deepseek-v3", Phase::Train, 4, 0, 4096, 8));
}
BENCHMARK(BM_evaluate_deepseek_v3_train);

/// The serving mode (issue 13 item 6): one evaluate_serving() = the mix arithmetic plus two evaluate() calls.
/// Compare with BM_evaluate_llama8b_decode_b64 of the same run (the single-step evaluation).
void run_serving(benchmark::State& state, const Setup& s, ServeTraffic traffic) {
  for (auto _ : state) {
    auto result = evaluate_serving(s.db, *s.gpu, s.arch, s.workload, traffic);
    benchmark::DoNotOptimize(result);
  }
}

void BM_serving_llama8b_1024_256_c64(benchmark::State& state) {
  run_serving(state, setup("llama-3.1-8b", Phase::Decode, 1, 0, 0, 1), ServeTraffic{1024, 256, 64, 0});
}
BENCHMARK(BM_serving_llama8b_1024_256_c64);

void BM_serving_deepseek_v3_1024_256_c64_tp8(benchmark::State& state) {
  run_serving(state, setup("deepseek-v3", Phase::Decode, 1, 0, 0, 8), ServeTraffic{1024, 256, 64, 0});
}
BENCHMARK(BM_serving_deepseek_v3_1024_256_c64_tp8);

void BM_serving_plan_only(benchmark::State& state) {
  for (auto _ : state) {
    auto mix = plan_serving(ServeTraffic{4096, 1024, 256, 0}, 8192);
    benchmark::DoNotOptimize(mix);
  }
}
BENCHMARK(BM_serving_plan_only);

/// Capacity planning (issue 22 item 4; goal: one 30-point sweep under 50 ms in-process): the memory-limit
/// bisection (about 20 evaluate_serving() calls) plus the 30 points. Read it as a ratio to
/// BM_baseline_copy_workload and to BM_serving_llama8b_1024_256_c64 of the same run (one point).
void BM_sweep_llama8b_30_points(benchmark::State& state) {
  const Setup s = setup("llama-3.1-8b", Phase::Decode, 1, 0, 0, 1);
  const ServeTraffic traffic{1024, 256, 1, 0};
  for (auto _ : state) {
    auto sweep = sweep_concurrency(s.db, *s.gpu, s.arch, s.workload, traffic, {}, kDefaultSweepPoints);
    benchmark::DoNotOptimize(sweep);
  }
}
BENCHMARK(BM_sweep_llama8b_30_points)->Unit(benchmark::kMillisecond);

void BM_parse_model_config(benchmark::State& state) {
  const std::string text = read_fixture("deepseek-v3");
  for (auto _ : state) {
    auto arch = parse_model_config(text, "deepseek-v3");
    benchmark::DoNotOptimize(arch);
  }
}
BENCHMARK(BM_parse_model_config);

void BM_parse_builtin_gpu_specs(benchmark::State& state) {
  for (auto _ : state) {
    auto db = parse_gpu_database(default_gpu_specs_json(), "built-in");
    benchmark::DoNotOptimize(db);
  }
}
BENCHMARK(BM_parse_builtin_gpu_specs);

}  // namespace
