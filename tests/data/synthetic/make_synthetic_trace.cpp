// solscope_make_synthetic_trace: the one generator of SYNTHETIC traces (tests, benchmarks, the bundled demo).
//
//   solscope_make_synthetic_trace -o FILE [--force] [--devices N]
//       [--samples N] [--seed S]                                   random profile (synthetic_trace.hpp)
//       [--profile random|demo|phases|constant] [--hz N] [--seconds S] [--start-ns NS] [--attainable-gpu G]
//       [--kernels]                 also a SYNTHETIC kernels table following the phases (not with random)
//       [--profile training [--period S] [--jitter-pct P] [--drift-pct P] [--noise-pct P]]  iterations
//       [--profile serving]         random request bursts (not periodic); both iteration_trace.hpp
//   solscope_make_synthetic_trace -o FILE [--force] --workloads
//                                   the workloads scenario (workloads.hpp): 2 GPUs, 20 s, a workloads table
//   solscope_make_synthetic_trace -o FILE [--force] --dp-step
//                                   the 4-rank data-parallel step (dp_step.hpp): samples, kernels, NVTX
//                                   markers
//
// The committed fixtures were made with
//   solscope_make_synthetic_trace -o tests/data/synthetic/synthetic-v1.sqlite --devices 2 --samples 60 --seed
//   1 solscope_make_synthetic_trace -o tests/data/demo-trace.sqlite --profile demo --devices 4 --hz 10
//   --seconds 120
// (the demo trace by the former tools/make_demo_trace.cpp, whose demo profile this is).
#include <charconv>
#include <cstdio>
#include <string>
#include <string_view>

#include "data/synthetic/dp_step_trace.hpp"
#include "data/synthetic/profiles.hpp"
#include "data/synthetic/synthetic_trace.hpp"
#include "data/synthetic/workloads_trace.hpp"

namespace {

using solscope::synthetic::Profile;

struct Args {
  std::string output;
  std::uint64_t samples = 0;  ///< random profile: samples per device (0 = seconds x hz)
  solscope::synthetic::ProfileOptions profile{.profile = Profile::Random, .seconds = 0.6};
  bool workloads = false;  ///< --workloads: the workloads scenario instead of a profile
  bool dp_step = false;    ///< --dp-step: the 4-rank data-parallel step instead of a profile
};

/// The whole of `text` as a number (no sign for unsigned types); false otherwise. NaN and infinity parse for
/// doubles and fail the generator's range check.
template <typename T>
auto parse_value(const char* text, T& out) -> bool {
  const std::string_view view(text);
  const auto [end, ec] = std::from_chars(view.data(), view.data() + view.size(), out);
  return !view.empty() && ec == std::errc() && end == view.data() + view.size();
}

auto parse_one(std::string_view arg, const char* value, Args& args) -> bool {
  auto& p = args.profile;
  if (arg == "-o") {
    args.output = value;
    return true;
  }
  if (arg == "--profile") {
    const auto profile = solscope::synthetic::parse_profile(value);
    if (profile) p.profile = *profile;
    return profile.has_value();
  }
  if (arg == "--devices") return parse_value(value, p.devices);
  if (arg == "--samples") return parse_value(value, args.samples);
  if (arg == "--seed") return parse_value(value, p.seed);
  if (arg == "--hz") return parse_value(value, p.hz);
  if (arg == "--seconds") return parse_value(value, p.seconds);
  if (arg == "--start-ns") return parse_value(value, p.start_ns) && p.start_ns >= 0;
  if (arg == "--attainable-gpu") return parse_value(value, p.attainable_device);
  if (arg == "--period") return parse_value(value, p.iteration.period_s);
  if (arg == "--jitter-pct") return parse_value(value, p.iteration.jitter_pct);
  if (arg == "--drift-pct") return parse_value(value, p.iteration.drift_pct);
  if (arg == "--noise-pct") return parse_value(value, p.iteration.noise_pct);
  return false;
}

auto parse(int argc, char** argv, Args& args) -> bool {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--force") {
      args.profile.overwrite = true;
    } else if (arg == "--kernels") {
      args.profile.kernels = true;
    } else if (arg == "--workloads") {
      args.workloads = true;
    } else if (arg == "--dp-step") {
      args.dp_step = true;
    } else if (i + 1 >= argc || !parse_one(arg, argv[++i], args)) {
      return false;
    }
  }
  return !args.output.empty();
}

}  // namespace

auto main(int argc, char** argv) -> int {
  Args args;
  if (!parse(argc, argv, args)) {
    std::fprintf(
        stderr,
        "usage: %s -o FILE [--force] [--devices N] [--samples N] [--seed S] [--profile "
        "random|demo|phases|constant|training|serving] [--hz N] [--seconds S] [--start-ns NS] "
        "[--attainable-gpu G] [--kernels] [--period S] [--jitter-pct P] [--drift-pct P] [--noise-pct P] "
        "| -o FILE [--force] --workloads | -o FILE [--force] --dp-step\n",
        argv[0]);
    return 2;
  }
  if (args.profile.profile == Profile::Random && args.samples > 0) {
    args.profile.seconds = static_cast<double>(args.samples) / args.profile.hz;
  }
  auto written = args.dp_step ? solscope::synthetic::write_dp_step_trace(args.output, args.profile.overwrite)
                 : args.workloads
                     ? solscope::synthetic::write_workloads_trace(args.output, args.profile.overwrite)
                     : solscope::synthetic::write_profile_trace(args.output, args.profile);
  if (!written) {
    std::fprintf(stderr, "solscope: error: %s\n", written.error().describe().c_str());
    return written.error().code == solscope::core::ErrorCode::InvalidArgument ? 2 : 1;
  }
  std::printf("wrote %llu synthetic samples to %s\n", static_cast<unsigned long long>(*written),
              args.output.c_str());
  return 0;
}
