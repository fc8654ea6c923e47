#!/usr/bin/env bash
# Prints the attainable-SOL figures of the issue-13 model set and of Llama-3.1-8B decode at batch 1, 8 and 64,
# the tables the closing notes of ceiling changes compare before and after (docs/design/ceiling-model.md 6).
# Usage: bench/ceiling_set.sh [SOLSCOPE]   (default build/ci/solscope; run from the repository root)
set -euo pipefail
bin=${1:-build/ci/solscope}
cfg=tests/data/hf_configs
field() { python3 -c "import json,sys; d=json.load(sys.stdin); print(' '.join(str(round(d[k],1)) if isinstance(d[k],float) else str(d[k]) for k in sys.argv[1:]))" "$@"; }

echo "serving 1024/256, concurrency 64: model gpu layout | output tok/s, activity %, useful %, Memory SOL %, fits"
while read -r name dir layout; do
  for gpu in H100-SXM5-80GB H200-SXM-141GB; do
    # shellcheck disable=SC2086
    row=$("$bin" ceiling --gpu "$gpu" --model "$cfg/$dir" $layout --serve --isl 1024 --osl 256 --concurrency 64 \
      --json | field output_tokens_per_s compute_sol_pct useful_compute_sol_pct memory_sol_pct fits)
    printf '%-16s %-15s %-18s | %s\n' "$name" "$gpu" "${layout:---tp 1}" "$row"
  done
done <<'SET'
Llama-3.1-8B llama-3.1-8b --tp 1
Qwen3.5-9B qwen3.5-9b-w4a16 --tp 1
Gemma-4-31B gemma-4-31b-it-nvfp4 --tp 1
gpt-oss-120b gpt-oss-120b --tp 4
DeepSeek-R1 deepseek-r1 --tp 8 --ep 8
SET

echo
echo "Llama-3.1-8B decode, context 1024: gpu batch | step ms, activity %, useful %"
for gpu in H100-SXM5-80GB A100-SXM4-80GB; do
  for batch in 1 8 64; do
    row=$("$bin" ceiling --gpu "$gpu" --model "$cfg/llama-3.1-8b" --batch "$batch" --context 1024 --json |
      python3 -c "import json,sys; d=json.load(sys.stdin); print(round(d['step_time_s']*1e3,2), round(d['compute_sol_pct'],1), round(d['useful_compute_sol_pct'],1))")
    printf '%-15s %3s | %s\n' "$gpu" "$batch" "$row"
  done
done
