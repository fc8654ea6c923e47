#!/usr/bin/env bash
# Proves a release tree's promises (docs/release.md section 2) and prints the figures:
#  - every ELF file needs no glibc symbol version above the floor (scripts/package/floor.sh) and no C++ runtime
#    (GLIBCXX/CXXABI) version at all;
#  - everything ldd resolves is glibc's own or a file inside the tree;
#  - libsolscope_inject.so exports InitializeInjection and InitializeInjectionNvtx2 and nothing else.
#   tests/release/check_bundle.sh TREE        (exit 0 when all hold, 1 with each broken promise named)
set -uo pipefail
tree="$(realpath "${1:?usage: check_bundle.sh TREE}")"
. "$(dirname "$0")/../../scripts/package/floor.sh"
glibc_own='^(linux-vdso\.so\.1|ld-linux-x86-64\.so\.2|libc\.so\.6|libm\.so\.6|libdl\.so\.2|libpthread\.so\.0|librt\.so\.1|libresolv\.so\.2|libutil\.so\.1)$'
version_key() { printf '%05d%05d' "${1%%.*}" "${1#*.}"; }
floor_key="$(version_key "$SOLSCOPE_GLIBC_FLOOR")"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

while IFS= read -r -d '' file; do
  [ "$(head -c 4 "$file" | od -An -c | tr -d ' ')" = "177ELF" ] || continue
  rel="${file#"$tree"/}"
  symbols="$(objdump -T "$file")"
  highest="$(grep -o 'GLIBC_[0-9]*\.[0-9]*' <<<"$symbols" | sed 's/GLIBC_//' | sort -t. -k1,1n -k2,2n | tail -1)"
  if [ -n "$highest" ] && [ "$(version_key "$highest")" \> "$floor_key" ]; then
    fail "$rel needs GLIBC_$highest (floor $SOLSCOPE_GLIBC_FLOOR): $(grep "GLIBC_$highest" <<<"$symbols" | awk '{print $NF}' | tr '\n' ' ')"
  fi
  if grep -q 'GLIBCXX_\|CXXABI_' <<<"$symbols"; then fail "$rel needs the C++ runtime (libstdc++.so)"; fi
  needed=()
  while read -r lib _ path _; do
    [ -n "$lib" ] || continue
    [[ "$lib" == /* ]] && { path="$lib"; lib="$(basename "$lib")"; }  # the loader: "/lib64/ld-linux... (0x...)"
    if [[ "$lib" =~ $glibc_own ]] || [[ "$path" == "$tree"/* ]]; then needed+=("$lib"); continue; fi
    fail "$rel needs $lib ($path): neither glibc's nor in the bundle"
  done < <(ldd "$file" 2>&1 | sed -n 's/^[[:space:]]*//p' | grep -v 'statically linked')
  echo "$rel: highest GLIBC_${highest:-none}; needs ${needed[*]:-nothing}"
  if [[ "$rel" == */libsolscope_inject.so ]]; then
    exported="$(awk '$2 == "g" && $4 != "*UND*" {print $NF}' <<<"$symbols" | sort -u | tr '\n' ' ')"
    [ "$exported" = "InitializeInjection InitializeInjectionNvtx2 " ] ||
      fail "$rel exports other than InitializeInjection and InitializeInjectionNvtx2: $exported"
  fi
done < <(find "$tree" -type f -print0)

echo "bundle size: $(du -sh "$tree" | cut -f1) unpacked"
if ((failures)); then echo "check_bundle: $failures broken promise(s)"; exit 1; fi
echo "check_bundle: every ELF file within GLIBC_$SOLSCOPE_GLIBC_FLOOR, glibc and the bundle only"
