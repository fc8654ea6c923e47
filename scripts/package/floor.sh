# The glibc floor of the release bundle (docs/release.md section 2): the oldest glibc every shipped ELF file
# runs on. Ubuntu 22.04 has 2.35, RHEL 9 2.34, Debian 12 2.36, Amazon Linux 2023 2.34. Sourced by
# scripts/package.sh (launcher, .deb Depends) and tests/release/check_bundle.sh (the proof).
SOLSCOPE_GLIBC_FLOOR=2.34
