// Where a source looks for a vendor's profiling library beyond the fixed system paths: the values of the
// environment variables that name places. The app reads them (src/runtime/environment.hpp) and passes them
// in: the sources layer reads no environment. Vendor-neutral, so that the app fills it without a vendor
// header.
#pragma once

#include <string>

namespace solscope::sources {

/// Each member is a variable's value; empty = unset (that place is not searched).
struct LibrarySearch {
  std::string override_dir;  ///< $SOLSCOPE_CUPTI_DIR: a directory holding the library, searched first
  std::string toolkit_home;  ///< $CUDA_HOME: its lib64 and extras/CUPTI/lib64
  std::string home;          ///< $HOME: ~/.local/lib/python3* pip wheels
  std::string virtual_env;   ///< $VIRTUAL_ENV: the active venv's pip wheels
};

}  // namespace solscope::sources
