#include "ceiling/serving.hpp"

#include "core/text.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <utility>

namespace solscope::ceiling {
namespace {

/// vLLM's threshold for its larger defaults: 70 GiB of device memory (arg_utils.py).
constexpr double kLargeGpuBytes = 70.0 * 1024 * 1024 * 1024;
constexpr std::int64_t kLargeGpuBudget = 8192;
constexpr std::int64_t kSmallGpuBudget = 2048;
/// Decoding requests are split into this many context groups, spread over [isl, isl + osl - 1).
constexpr std::int64_t kContextGroups = 4;
/// Fixed-point passes over s_p (it only grows, and settles in 2-3 passes).
constexpr int kMaxPasses = 64;

auto out_of_range(std::string_view what, std::int64_t value, std::int64_t min, std::int64_t max)
    -> core::Unexpected<core::Error> {
  return core::fail(core::ErrorCode::InvalidArgument,
                    std::string(what) + " " + std::to_string(value) + " is out of range",
                    "use " + std::to_string(min) + " to " + std::to_string(max));
}

auto validate(const ServeTraffic& t, std::int64_t budget) -> core::Result<void> {
  if (t.input_tokens < 1 || t.input_tokens > kMaxServeSequenceTokens)
    return out_of_range("input length (isl)", t.input_tokens, 1, kMaxServeSequenceTokens);
  if (t.output_tokens < 1 || t.output_tokens > kMaxServeSequenceTokens)
    return out_of_range("output length (osl)", t.output_tokens, 1, kMaxServeSequenceTokens);
  if (t.concurrency < 1 || t.concurrency > kMaxBatch)
    return out_of_range("concurrency", t.concurrency, 1, kMaxBatch);
  if (budget < 1 || budget > kMaxBatchedTokens)
    return out_of_range("max batched tokens", budget, 1, kMaxBatchedTokens);
  return core::ok();
}

auto whole(double v) -> std::int64_t {
  return std::clamp<std::int64_t>(std::llround(v), 0, kMaxTokens);
}

/// `decoders` decoding requests, split into up to kContextGroups groups whose cached tokens spread uniformly
/// over the osl - 1 decode steps of a request (cached before decode step j is isl + j - 1).
void add_decoders(Step& step, std::int64_t decoders, const ServeTraffic& t) {
  if (decoders < 1) return;
  const std::int64_t groups = std::min(kContextGroups, decoders);
  const double span = static_cast<double>(t.output_tokens - 1);
  for (std::int64_t g = 0; g < groups; ++g) {
    const std::int64_t n = decoders / groups + (g < decoders % groups ? 1 : 0);
    const auto offset = static_cast<std::int64_t>(
        std::floor((2.0 * static_cast<double>(g) + 1) * span / (2.0 * static_cast<double>(groups))));
    step.groups.push_back(RequestGroup{n, 1, t.input_tokens + offset, true});
  }
}

/// The steps' notes, once each, and whether every step fits. Steps that do not fit each say so with numbers
/// that differ by their activations: only the note of the step needing the most memory is kept.
void add_step_notes(ServeCeiling& s) {
  std::vector<const Ceiling*> steps{&s.prefill_step};
  if (s.has_decode_step) steps.push_back(&s.decode_step);
  const Ceiling* largest = *std::max_element(
      steps.begin(), steps.end(),
      [](const Ceiling* a, const Ceiling* b) { return a->memory_need_bytes < b->memory_need_bytes; });
  s.fits = std::all_of(steps.begin(), steps.end(), [](const Ceiling* c) { return c->fits; });
  for (const Ceiling* c : steps) {
    for (const std::string& n : c->notes) {
      if (n.starts_with(kDoesNotFitNote) && c != largest) continue;
      if (std::find(s.notes.begin(), s.notes.end(), n) == s.notes.end()) s.notes.push_back(n);
    }
  }
}

}  // namespace

auto default_max_batched_tokens(const GpuSpec& gpu) -> std::int64_t {
  const std::string id = core::to_lower_ascii(gpu.id);
  const bool large = gpu.memory_bytes >= kLargeGpuBytes && id.find("a100") == std::string::npos;
  return large ? kLargeGpuBudget : kSmallGpuBudget;
}

auto plan_serving(const ServeTraffic& t, std::int64_t budget) -> core::Result<ServeMix> {
  if (auto ok = validate(t, budget); !ok) return core::propagate(ok);
  const auto isl = static_cast<double>(t.input_tokens);
  const auto decode_steps = static_cast<double>(t.output_tokens - 1);
  const auto conc = static_cast<double>(t.concurrency);
  const auto b = static_cast<double>(budget);
  ServeMix m;
  // Every step full: lambda (isl + osl - 1) = B.
  const double lambda_budget = b / (isl + decode_steps);
  double sp = 1;
  double lambda = 0;
  for (int pass = 0; pass < kMaxPasses; ++pass) {
    lambda = std::min(conc / (sp + decode_steps), lambda_budget);
    const double spare = std::max(1.0, b - lambda * decode_steps);
    const double need = std::max(1.0, std::ceil(isl / spare));
    if (need <= sp) break;
    sp = need;
  }
  m.requests_per_step = lambda;
  m.budget_bound = lambda_budget < conc / (sp + decode_steps);
  m.decode_batch = lambda * decode_steps;
  m.prefill_tokens_per_step = lambda * isl;
  if (m.budget_bound) {
    // Every step is full: B - n_d prefill tokens, in chunks of at most one prompt.
    m.chunk_tokens = std::min(isl, m.prefill_tokens_per_step);
    m.prefill_steps_per_request = isl / m.chunk_tokens;
    m.prefill_step_fraction = 1;
    m.prefill_requests_per_step = m.prefill_tokens_per_step / m.chunk_tokens;
    m.prefill_step_decoders = m.decode_batch;
    m.decode_step_decoders = m.decode_batch;
  } else {
    // Requests in their prefill phase: lambda s_p; one prompt's chunks run in s_p steps.
    const double prefilling = lambda * sp;
    m.chunk_tokens = isl / sp;
    m.prefill_steps_per_request = sp;
    m.prefill_step_fraction = std::min(1.0, prefilling);
    m.prefill_requests_per_step = std::max(1.0, prefilling);
    m.prefill_step_decoders = prefilling < 1 ? conc - 1 : m.decode_batch;
    m.decode_step_decoders = prefilling < 1 ? conc : m.decode_batch;
  }
  if (decode_steps == 0) {
    m.prefill_step_decoders = 0;
    m.decode_step_decoders = 0;
  }
  m.chunk_cached_tokens = (isl - m.chunk_tokens) / 2;
  m.first_token_steps = std::max(m.prefill_steps_per_request, conc / lambda - decode_steps);
  m.waiting_requests = std::max(0.0, conc - lambda * (m.prefill_steps_per_request + decode_steps));
  return m;
}

auto evaluate_serving(const GpuDatabase& db, const GpuSpec& gpu, const ModelArch& arch, const Workload& base,
                      const ServeTraffic& traffic) -> core::Result<ServeCeiling> {
  ServeCeiling s;
  s.traffic = traffic;
  s.default_budget = traffic.max_batched_tokens == 0;
  if (s.default_budget) s.traffic.max_batched_tokens = default_max_batched_tokens(gpu);
  auto mix = plan_serving(s.traffic, s.traffic.max_batched_tokens);
  if (!mix) return core::propagate(mix);
  s.mix = *mix;
  const ServeMix& m = s.mix;

  Workload w = base;
  w.step = Step{};
  add_decoders(w.step, whole(m.prefill_step_decoders), s.traffic);
  w.step.groups.push_back(RequestGroup{std::max<std::int64_t>(1, whole(m.prefill_requests_per_step)),
                                       std::max<std::int64_t>(1, whole(m.chunk_tokens)),
                                       whole(m.chunk_cached_tokens), m.prefill_steps_per_request <= 1});
  auto prefill = evaluate(db, gpu, arch, w);
  if (!prefill) return core::propagate(prefill);
  s.prefill_step = std::move(*prefill);
  s.has_prefill_step = true;

  w.step = Step{};
  add_decoders(w.step, whole(m.decode_step_decoders), s.traffic);
  s.has_decode_step = !w.step.groups.empty();
  if (s.has_decode_step) {
    auto decode = evaluate(db, gpu, arch, w);
    if (!decode) return core::propagate(decode);
    s.decode_step = std::move(*decode);
  }

  const double fp = s.has_decode_step ? m.prefill_step_fraction : 1.0;
  std::array<WeightedStep, 2> steps{WeightedStep{&s.prefill_step, fp},
                                    WeightedStep{&s.decode_step, 1.0 - fp}};
  auto combined = combine_steps(std::span(steps.data(), s.has_decode_step ? 2U : 1U));
  if (!combined) return core::propagate(combined);
  s.memory_sol_pct = combined->memory_sol_pct;
  s.time_share = combined->time_share;
  s.limiter = combined->limiter;

  const double t_prefill = s.prefill_step.step_time_s;
  const double t_decode = s.has_decode_step ? s.decode_step.step_time_s : 0.0;
  s.mean_step_time_s = fp * t_prefill + (1 - fp) * t_decode;
  // The mix's busy and step times weighted by each step's share (combine_steps, section 6.3).
  s.activity_compute_sol_pct = combined->tensor_activity_pct;
  s.useful_compute_sol_pct = combined->useful_compute_sol_pct;

  const auto isl = static_cast<double>(s.traffic.input_tokens);
  const auto osl = static_cast<double>(s.traffic.output_tokens);
  s.requests_per_s = m.requests_per_step / s.mean_step_time_s;
  s.output_tokens_per_s = s.requests_per_s * osl;
  s.total_tokens_per_s = s.requests_per_s * (isl + osl);
  if (s.traffic.output_tokens > 1) s.tpot_s = s.mean_step_time_s;
  s.ttft_s = m.prefill_steps_per_request * t_prefill +
             (m.first_token_steps - m.prefill_steps_per_request) * s.mean_step_time_s;
  // Prefill work's share: the time a prefill-carrying step takes beyond a decode-only one (section 6.3).
  const double extra = s.has_decode_step ? std::max(0.0, t_prefill - t_decode) : t_prefill;
  s.prefill_time_share = std::clamp(m.prefill_step_fraction * extra / s.mean_step_time_s, 0.0, 1.0);
  s.decode_time_share = 1 - s.prefill_time_share;

  add_step_notes(s);
  return s;
}

}  // namespace solscope::ceiling
