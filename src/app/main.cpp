#include <iostream>

#include "app/cli.hpp"

int main(int argc, char** argv) {
  return solscope::app::run(argc, argv, std::cout, std::cerr);
}
