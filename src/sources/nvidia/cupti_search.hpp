// Where load_cupti() looks for libcupti beyond the fixed system paths: the values of the environment
// variables that name places, read by the app (the sources layer reads no environment) and passed in.
#pragma once

#include <string>

namespace solscope::nvidia {

/// Each member is the variable's value; empty = unset (that place is not searched).
struct CuptiSearch {
  std::string cupti_dir;    ///< $SOLSCOPE_CUPTI_DIR: a directory holding libcupti.so.13/.12, searched first
  std::string cuda_home;    ///< $CUDA_HOME: its lib64 and extras/CUPTI/lib64
  std::string home;         ///< $HOME: ~/.local/lib/python3* pip wheels
  std::string virtual_env;  ///< $VIRTUAL_ENV: the active venv's pip wheels
};

}  // namespace solscope::nvidia
