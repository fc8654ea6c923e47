// solscope_make_synthetic_trace: writes a SYNTHETIC trace (tests/data/synthetic/synthetic_trace.hpp).
//
//   solscope_make_synthetic_trace -o FILE [--devices N] [--samples N] [--seed S] [--force]
//
// The committed fixture tests/data/synthetic/synthetic-v1.sqlite was made with
//   solscope_make_synthetic_trace -o tests/data/synthetic/synthetic-v1.sqlite --devices 2 --samples 60 --seed
//   1
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "data/synthetic/synthetic_trace.hpp"

namespace {

struct Args {
  std::string output;
  std::uint32_t devices = 2;
  std::uint64_t samples = 60;
  std::uint64_t seed = 1;
  bool force = false;
};

/// The whole of `text` as an unsigned decimal (no sign, NaN or infinity); false otherwise.
template <typename T>
auto parse_count(const char* text, T& out) -> bool {
  const std::string_view view(text);
  const auto [end, ec] = std::from_chars(view.data(), view.data() + view.size(), out);
  return !view.empty() && ec == std::errc() && end == view.data() + view.size();
}

auto parse(int argc, char** argv, Args& args) -> bool {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--force") {
      args.force = true;
    } else if (arg == "-o" && has_value) {
      args.output = argv[++i];
    } else if (arg == "--devices" && has_value) {
      if (!parse_count(argv[++i], args.devices)) return false;
    } else if (arg == "--samples" && has_value) {
      if (!parse_count(argv[++i], args.samples)) return false;
    } else if (arg == "--seed" && has_value) {
      if (!parse_count(argv[++i], args.seed)) return false;
    } else {
      return false;
    }
  }
  return !args.output.empty() && args.devices > 0;
}

}  // namespace

auto main(int argc, char** argv) -> int {
  Args args;
  if (!parse(argc, argv, args)) {
    std::fprintf(stderr, "usage: %s -o FILE [--devices N] [--samples N] [--seed S] [--force]\n", argv[0]);
    return 2;
  }
  auto written = solscope::synthetic::write_trace(args.output, args.devices, args.samples, args.seed,
                                                  {.overwrite = args.force});
  if (!written) {
    std::fprintf(stderr, "solscope: error: %s\n", written.error().describe().c_str());
    return 1;
  }
  std::printf("wrote %llu synthetic samples to %s\n", static_cast<unsigned long long>(*written),
              args.output.c_str());
  return 0;
}
