#include <iostream>

#include "cli/cli.hpp"
#include "runtime/crash_report.hpp"

int main(int argc, char** argv) {
  solscope::app::install_crash_report();
  return solscope::app::run(argc, argv, std::cout, std::cerr);
}
