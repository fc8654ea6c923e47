// libFuzzer target: the Hugging Face config.json reader (ceiling/model_arch.hpp parse_model_config).
//
// The input is the file's text. A config it accepts goes on through what `solscope ceiling` does with it:
// parameter and KV-cache counts, and one decode and one prefill step at TP 1 and 2 on the built-in H100 row,
// so that every shape the reader lets through is one the model can evaluate without overflow.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <tuple>
#include <utility>

#include "ceiling/ceiling.hpp"
#include "ceiling/default_gpu_specs.hpp"
#include "ceiling/gpu_spec.hpp"
#include "ceiling/model_arch.hpp"
#include "ceiling/workload.hpp"

namespace {

using namespace solscope::ceiling;

auto gpu_db() -> const GpuDatabase& {
  static const GpuDatabase db = [] {
    auto parsed = parse_gpu_database(default_gpu_specs_json(), "built-in GPU specs");
    if (!parsed) std::abort();
    return std::move(*parsed);
  }();
  return db;
}

void evaluate_steps(const ModelArch& arch) {
  const GpuDatabase& db = gpu_db();
  const auto gpu = find_gpu(db, "H100-SXM");
  if (!gpu) std::abort();
  for (const auto& [phase, batch, context, prompt] :
       {std::tuple{Phase::Decode, 8, 1024, 0}, std::tuple{Phase::Prefill, 1, 0, 512}}) {
    auto step = make_step(phase, batch, context, prompt);
    if (!step) std::abort();
    for (const int tp : {1, 2}) {
      Workload workload{.step = *step, .tensor_parallel = tp};
      if (auto ceiling = evaluate(db, **gpu, arch, workload)) (void)mfu_pct(*ceiling, 1000.0);
    }
  }
}

}  // namespace

extern "C" auto LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) -> int {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto arch = parse_model_config(text, "config.json");
  if (!arch) {
    (void)arch.error().describe();
    return 0;
  }
  (void)count_params(*arch);
  (void)kv_bytes_per_token(*arch, 2.0);
  (void)kv_bytes_per_sequence(*arch, 4096.0, 2.0);
  evaluate_steps(*arch);
  return 0;
}
