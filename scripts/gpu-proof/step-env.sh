# shellcheck shell=bash
# Step 1 of the GPU proof kit (sourced by scripts/gpu-proof.sh): the environment. nvidia-smi, solscope --version,
# solscope devices as this user and as an unprivileged one. Sets GPU_NAME, DRIVER_VER and CUDA_VER.

# devices_row LABEL NAME JSON(0/1) UNPRIV(0/1): judges one `solscope devices` run (RC set)
devices_row() {
  local label=$1 name=$2 json=$3 unpriv=$4 text n msg
  msg=$(grep -v '^[[:space:]]*$' "$W/logs/$name.err" 2>/dev/null | tail -n 1 | one_line | cut -c1-240)
  if [ "$DRIVER_OK" != 1 ]; then
    if [ "$RC" = 3 ]; then
      row 1 "$label" SKIP "$NO_DRIVER; it says what is missing (exit 3): $msg"
    else
      row 1 "$label" FAIL "$NO_DRIVER, but exit $RC (3 expected): $msg"
    fi
    return
  fi
  if [ "$json" = 1 ] && { [ "$RC" = 0 ] || [ "$RC" = 4 ]; }; then
    text=$(summarise devices "$W/logs/$name.out")
    n=${text%%$'\t'*}
    text=${text#*$'\t'}
    if [ "${n:-0}" = 0 ]; then text="$text; $msg"; fi
  else
    n=1
    text=$(grep -m 3 -i 'source\|GPU' "$W/logs/$name.out" 2>/dev/null | one_line | cut -c1-300)
  fi
  if [ "$RC" = 0 ] && [ "${n:-0}" != 0 ]; then
    row 1 "$label" PASS "exit 0; $text"
  elif [ "$RC" = 4 ] && [ "$unpriv" = 1 ]; then
    row 1 "$label" PASS "exit 4 (counters not permitted), says why and the fix: ${text:-$msg}"
  else
    row 1 "$label" FAIL "exit $RC; ${text:-} $msg"
  fi
}

step_env() {
  say ""
  say "== 1 environment"
  GPU_NAME=n/a DRIVER_VER=n/a CUDA_VER=n/a
  if [ "$DRIVER_OK" = 1 ]; then
    run_cmd nvidia-smi-q 45 "$W/nvidia-smi-q.txt" "$NVSMI" -q
    if [ "$RC" = 0 ]; then
      DRIVER_VER=$(sed -n 's/^Driver Version *: *//p' "$W/nvidia-smi-q.txt" | head -n 1 | one_line)
      CUDA_VER=$(sed -n 's/^CUDA Version *: *//p' "$W/nvidia-smi-q.txt" | head -n 1 | one_line)
      GPU_NAME=$(sed -n 's/^ *Product Name *: *//p' "$W/nvidia-smi-q.txt" | head -n 1 | one_line)
      row 1 "nvidia-smi -q" PASS "$(grep -c . "$W/nvidia-smi-q.txt") lines; driver $DRIVER_VER, CUDA $CUDA_VER, $GPU_NAME"
    else
      row 1 "nvidia-smi -q" FAIL "$(why_failed nvidia-smi-q)"
    fi
    run_cmd nvidia-smi-clocks 30 "$W/nvidia-smi-clocks-start.txt" "$NVSMI" -q -d CLOCK,PERFORMANCE
    QUERY=name,driver_version,clocks.sm,clocks.mem,clocks.max.sm,persistence_mode,mig.mode.current
    run_cmd nvidia-smi-query 30 "$W/nvidia-smi-query.csv" "$NVSMI" --query-gpu=$QUERY --format=csv
    if [ "$RC" != 0 ]; then
      run_cmd nvidia-smi-query 30 "$W/nvidia-smi-query.csv" "$NVSMI" --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv
    fi
    if [ "$RC" = 0 ]; then
      row 1 "GPU at rest" INFO "$(summarise nvsmi "$W/nvidia-smi-query.csv" | paste -sd '|' - || head -n 3 "$W/nvidia-smi-query.csv")"
    else
      row 1 "GPU at rest" FAIL "nvidia-smi --query-gpu: $(why_failed nvidia-smi-query)"
    fi
  else
    row 1 "nvidia-smi" SKIP "$NO_DRIVER"
  fi

  if [ -n "$SOLSCOPE" ]; then
    case "$SOLSCOPE_VERSION" in
      solscope*) row 1 "solscope --version" PASS "$SOLSCOPE_VERSION; $SOLSCOPE (from $SOLSCOPE_HOW)" ;;
      *) row 1 "solscope --version" FAIL "$SOLSCOPE_VERSION; $SOLSCOPE" ;;
    esac
  else
    row 1 "solscope binary" FAIL "not found: set SOLSCOPE, or run the kit from the unpacked bundle or a checkout with dist/ or build/release/"
  fi

  if [ -n "$SOLSCOPE" ]; then
    run_cmd devices-root 40 "$W/logs/devices-root.out" "$SOLSCOPE" devices
    devices_row "devices as $(id -un 2>/dev/null || id -u)" devices-root 0 0
    run_cmd devices-root-json 40 "$W/logs/devices-root-json.out" "$SOLSCOPE" devices --json
    cp "$W/logs/devices-root-json.out" "$W/devices-$(id -u).json" 2>/dev/null
    devices_row "devices --json as $(id -un 2>/dev/null || id -u)" devices-root-json 1 0

    # The no-root path: a copy of the binary (and its bundle's lib/) that uid 65534 can read.
    UNPRIV=()
    UNPRIV_WHO=
    if [ "$(id -u)" = 0 ]; then
      U=$TMP/unpriv
      mkdir -p "$U/bin" "$U/home"
      bindir=$(dirname "$SOLSCOPE")
      cp -L "$SOLSCOPE" "$U/bin/solscope" 2>/dev/null
      if [ "$(basename "$bindir")" = bin ]; then
        for d in lib lib64 libexec; do
          [ -d "$bindir/../$d" ] && cp -RL "$bindir/../$d" "$U/$d" 2>/dev/null
        done
        cp -L "$bindir"/* "$U/bin/" 2>/dev/null
      else
        cp -L "$bindir"/*.so* "$U/bin/" 2>/dev/null
      fi
      chmod 755 "$TMP" "$U" "$U/home"
      chmod -R a+rX "$U"
      if command -v setpriv >/dev/null 2>&1; then
        UNPRIV=(setpriv --reuid=65534 --regid=65534 --clear-groups --)
        UNPRIV_WHO="uid 65534 (setpriv)"
      elif command -v runuser >/dev/null 2>&1 && id nobody >/dev/null 2>&1; then
        UNPRIV=(runuser -u nobody --)
        UNPRIV_WHO="nobody (runuser)"
      fi
      if [ ${#UNPRIV[@]} -gt 0 ]; then
        for j in 0 1; do
          name=devices-unpriv$([ "$j" = 1 ] && echo -json)
          args=(devices)
          [ "$j" = 1 ] && args=(devices --json)
          (cd "$U/home" && run_cmd "$name" 40 "$W/logs/$name.out" "${UNPRIV[@]}" env HOME="$U/home" \
            XDG_CONFIG_HOME="$U/home/.config" "$U/bin/solscope" "${args[@]}" && echo "$RC" >"$TMP/rc")
          RC=$(cat "$TMP/rc" 2>/dev/null || echo 1)
          devices_row "devices${args[1]:+ ${args[1]}} as $UNPRIV_WHO" "$name" "$j" 1
        done
        cp "$W/logs/devices-unpriv-json.out" "$W/devices-65534.json" 2>/dev/null
      else
        row 1 "devices as an unprivileged user" SKIP "neither setpriv nor runuser (with a user nobody) is installed"
      fi
    else
      row 1 "devices as an unprivileged user" SKIP "the kit runs as uid $(id -u): the runs above are the unprivileged ones"
    fi
  fi
}
