#!/usr/bin/env bash
# Builds the libFuzzer targets (CMake preset `fuzz`: clang, ASan + UBSan) and runs each over its seed corpus
# (fuzz/corpus/<target>) for a bounded time, one after the other. Exit 1 on any finding (crash, sanitizer
# report, leak, timeout, out of memory), 2 when clang's libFuzzer is missing. Prints one summary line per target.
#   scripts/fuzz.sh [seconds per target]     (default 45; 0 only replays the corpus)
# Environment: FUZZ_TARGETS (names to run, default all), FUZZ_TIMEOUT_S (per input, 10), FUZZ_RSS_MB (2048).
# New inputs go to build/fuzz/corpus/<target> (kept between runs); findings to build/fuzz/findings/, each
# replayable with `build/fuzz/fuzz/solscope_fuzz_<target> FILE`.
set -euo pipefail
seconds="${1:-45}"
cd "$(dirname "$0")/.."
[[ "$seconds" =~ ^[0-9]+$ ]] || { echo "fuzz: seconds must be a whole number, not '$seconds'" >&2; exit 2; }

if ! command -v clang++ >/dev/null 2>&1 ||
   ! ls "$(clang++ -print-runtime-dir 2>/dev/null)"/libclang_rt.fuzzer-*.a >/dev/null 2>&1; then
  echo "fuzz: clang++ with libFuzzer is missing: apt-get install clang libclang-rt-dev (scripts/setup.sh does)" >&2
  exit 2
fi
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz

build=build/fuzz
targets=${FUZZ_TARGETS:-$(cd fuzz/corpus && echo *)}
mkdir -p "$build/findings" "$build/logs"
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:${UBSAN_OPTIONS:-}"
failed=0
summary=()
for target in $targets; do
  binary="$build/fuzz/solscope_fuzz_$target"
  [[ -x "$binary" && -d "fuzz/corpus/$target" ]] || { echo "fuzz: no target or corpus '$target'" >&2; exit 2; }
  work="$build/corpus/$target"
  log="$build/logs/$target.log"
  mkdir -p "$work"
  rm -f "$build/findings/$target"-*
  args=(-timeout="${FUZZ_TIMEOUT_S:-10}" -rss_limit_mb="${FUZZ_RSS_MB:-2048}" -print_final_stats=1
        -artifact_prefix="$build/findings/$target-")
  if ((seconds > 0)); then
    args+=(-max_total_time="$seconds" "$work" "fuzz/corpus/$target")
  else
    args+=(-runs=0 "fuzz/corpus/$target")
  fi
  echo "fuzz: $target for ${seconds} s (log: $log)"
  rc=0
  "$binary" "${args[@]}" >"$log" 2>&1 || rc=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  added=$(sed -n 's/^stat::new_units_added: *//p' "$log" | tail -1)
  rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log" | tail -1)
  findings=$(find "$build/findings" -name "$target-*" \( -name "$target-crash-*" -o -name "$target-leak-*" \
             -o -name "$target-timeout-*" -o -name "$target-oom-*" \) | wc -l)
  if ((rc != 0 && findings == 0)); then findings=1; fi
  line="fuzz: $target: ${runs:-?} executions, ${rate:-?}/s, ${added:-?} new inputs, peak RSS ${rss:-?} MB, $findings findings"
  summary+=("$line")
  if ((findings > 0)); then
    failed=1
    echo "$line (exit $rc); the end of $log:" >&2
    tail -n 40 "$log" >&2
    find "$build/findings" -name "$target-*" -printf 'fuzz: finding %p\n' >&2
  fi
done
printf '%s\n' "${summary[@]}"
exit "$failed"
