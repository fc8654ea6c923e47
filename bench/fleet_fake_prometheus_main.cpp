// Serves the fleet benchmark's fake Prometheus (tests/support/fake_prometheus.hpp, SYNTHETIC 4,096 GPUs) for
// bench/fleet_tui_cpu.sh: prints "port N" on stdout, then serves until SECONDS have passed (default 60, at
// most 300) or it is killed.
//   solscope_fleet_fake_prometheus [HOSTS] [SECONDS]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "support/fake_prometheus.hpp"

auto main(int argc, char** argv) -> int {
  const int hosts = argc > 1 ? std::atoi(argv[1]) : 512;
  const int seconds = argc > 2 ? std::atoi(argv[2]) : 60;
  if (hosts < 1 || hosts > 4096 || seconds < 1 || seconds > 300) {
    std::fprintf(stderr, "usage: solscope_fleet_fake_prometheus [HOSTS 1-4096] [SECONDS 1-300]\n");
    return 2;
  }
  solscope::bench::FakePrometheus server(hosts);
  std::printf("port %d\n", server.port());
  std::fflush(stdout);
  std::this_thread::sleep_for(std::chrono::seconds(seconds));
  return 0;
}
