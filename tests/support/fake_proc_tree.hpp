// FakeProcTree: a SYNTHETIC procfs root in a temporary directory, one `<pid>/` folder per process with the
// files workload attribution reads (proc(5)): `status` (Name, PPid, Uid as Linux prints them), `cmdline` and
// `environ` (NUL-separated) and `cgroup` (one "hierarchy-id:controllers:path" line per hierarchy). Removed on
// destruction. Used by the process refresh tests and bench/workload_refresh_bench.cpp.
#pragma once

#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>
#include <vector>

namespace solscope::testing {

/// One SYNTHETIC process.
struct FakeProc {
  std::int32_t pid = 0;
  std::uint32_t uid = 0;
  std::string name = "python3";                                             ///< status `Name`
  std::vector<std::string> args{"python3", "train.py"};                     ///< cmdline
  std::string cgroup = "0::/user.slice/user-1000.slice/session-1.scope\n";  ///< cgroup v2, a host session
  std::vector<std::string> environ{"HOME=/home/user", "PATH=/usr/bin:/bin"};
};

class FakeProcTree {
 public:
  FakeProcTree() {
    static std::atomic<int> counter{0};
    root_ = std::filesystem::temp_directory_path() /
            ("solscope-proc-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    std::filesystem::create_directories(root_);
  }
  ~FakeProcTree() {
    std::error_code ignored;
    std::filesystem::remove_all(root_, ignored);
  }
  FakeProcTree(const FakeProcTree&) = delete;
  auto operator=(const FakeProcTree&) -> FakeProcTree& = delete;

  [[nodiscard]] auto root() const -> const std::filesystem::path& { return root_; }

  /// Writes `<root>/<pid>/{status,cmdline,environ,cgroup}`.
  void add(const FakeProc& p) const {
    const std::filesystem::path dir = root_ / std::to_string(p.pid);
    std::filesystem::create_directories(dir);
    const std::string uid = std::to_string(p.uid);
    std::ofstream(dir / "status") << "Name:\t" << p.name << "\nUmask:\t0022\nState:\tS (sleeping)\nTgid:\t"
                                  << p.pid << "\nPid:\t" << p.pid << "\nPPid:\t1\nUid:\t" << uid << '\t'
                                  << uid << '\t' << uid << '\t' << uid << "\nGid:\t" << uid << '\t' << uid
                                  << '\t' << uid << '\t' << uid << "\nThreads:\t8\n";
    std::ofstream(dir / "cmdline", std::ios::binary) << nul_joined(p.args);
    std::ofstream(dir / "environ", std::ios::binary) << nul_joined(p.environ);
    std::ofstream(dir / "cgroup") << p.cgroup;
  }

 private:
  static auto nul_joined(const std::vector<std::string>& parts) -> std::string {
    std::string out;
    for (const auto& part : parts) {
      out += part;
      out += '\0';
    }
    return out;
  }

  std::filesystem::path root_;
};

}  // namespace solscope::testing
