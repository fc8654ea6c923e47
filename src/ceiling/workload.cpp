#include "ceiling/workload.hpp"

#include <string>

namespace solscope::ceiling {
namespace {

auto out_of_range(std::string_view what, std::int64_t value, std::int64_t min, std::int64_t max)
    -> core::Unexpected<core::Error> {
  return core::fail(core::ErrorCode::InvalidArgument,
                    std::string(what) + " " + std::to_string(value) + " is out of range",
                    "use " + std::to_string(min) + " to " + std::to_string(max));
}

}  // namespace

auto make_step(Phase phase, std::int64_t batch, std::int64_t context, std::int64_t prompt)
    -> core::Result<Step> {
  if (batch < 1 || batch > kMaxBatch) return out_of_range("batch", batch, 1, kMaxBatch);
  if (context < 0 || context > kMaxTokens) return out_of_range("context", context, 0, kMaxTokens);
  if (prompt < 0 || prompt > kMaxTokens) return out_of_range("prompt", prompt, 0, kMaxTokens);
  Step step;
  switch (phase) {
    case Phase::Decode:
      step.groups.push_back(RequestGroup{batch, 1, context, true});
      break;
    case Phase::Prefill:
    case Phase::Train:
      if (prompt < 1) {
        return core::fail(core::ErrorCode::InvalidArgument,
                          std::string(to_string(phase)) + " needs a prompt of at least 1 token",
                          phase == Phase::Train ? "give the sequence length with --prompt"
                                                : "give the prompt (or chunk) length with --prompt");
      }
      if (phase == Phase::Train && context != 0) {
        return core::fail(core::ErrorCode::InvalidArgument, "train takes no context (KV cache) tokens",
                          "give the sequence length with --prompt and leave --context at 0");
      }
      step.groups.push_back(RequestGroup{batch, prompt, context, true});
      step.training = phase == Phase::Train;
      break;
  }
  return step;
}

auto count_tokens(const Step& step) -> StepTokens {
  StepTokens t;
  for (const RequestGroup& g : step.groups) {
    const auto n = static_cast<double>(g.requests);
    t.requests += n;
    t.computed += n * static_cast<double>(g.new_tokens);
    t.cached_after += n * static_cast<double>(g.cached_tokens + g.new_tokens);
    if (step.training) {
      t.emitted += n * static_cast<double>(g.new_tokens);
    } else if (g.emits_token) {
      t.emitted += n;
    }
    if (g.new_tokens != 1) t.decode_only = false;
  }
  if (step.training) t.decode_only = false;
  return t;
}

auto validate_step(const Step& step) -> core::Result<void> {
  if (step.groups.empty()) {
    return core::fail(core::ErrorCode::InvalidArgument, "the step has no requests", "add a request group");
  }
  for (std::size_t i = 0; i < step.groups.size(); ++i) {
    const RequestGroup& g = step.groups[i];
    const std::string name = "request group " + std::to_string(i) + ": ";
    if (g.requests < 1 || g.requests > kMaxBatch)
      return out_of_range(name + "requests", g.requests, 1, kMaxBatch);
    if (g.new_tokens < 1 || g.new_tokens > kMaxTokens) {
      return out_of_range(name + "new tokens", g.new_tokens, 1, kMaxTokens);
    }
    if (g.cached_tokens < 0 || g.cached_tokens > kMaxTokens) {
      return out_of_range(name + "cached tokens", g.cached_tokens, 0, kMaxTokens);
    }
  }
  return core::ok();
}

}  // namespace solscope::ceiling
