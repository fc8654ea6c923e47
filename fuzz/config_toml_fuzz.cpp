// libFuzzer target: the config file (cli/config/config_file.hpp), read from a file as `--config FILE` reads
// it (net::read_settings_file's checks, then the TOML parser and the option table's checks).
//
// The first byte picks what FILE is: a regular file holding the rest (most inputs), a FIFO without a writer,
// /dev/zero, or a regular file over kMaxConfigFileBytes. The FIFO and the device are refused at once (a hang
// is a finding: libFuzzer's -timeout), the big file too; a regular file reads as parse_config() of its text
// says, with the same error or the same values.
#include <sys/stat.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "cli/config/config_file.hpp"

namespace {

namespace fs = std::filesystem;
using solscope::app::config::load_config_file;
using solscope::app::config::parse_config;

auto scratch(const char* name) -> std::string {
  return (fs::temp_directory_path() / ("solscope-fuzz-config-" + std::to_string(::getpid()) + "-" + name))
      .string();
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

/// The file is refused with an error that names it, whatever it holds.
void expect_refused(const std::string& path) {
  const auto loaded = load_config_file(path);
  if (loaded || loaded.error().message.find(path) == std::string::npos) std::abort();
}

}  // namespace

extern "C" auto LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) -> int {
  if (size == 0) return 0;
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 8) {
    case 0: {  // a FIFO without a writer: refused, never waited on
      const std::string fifo = scratch("fifo");
      fs::remove(fifo);
      if (::mkfifo(fifo.c_str(), 0600) != 0) return 0;
      expect_refused(fifo);
      fs::remove(fifo);
      return 0;
    }
    case 1:  // a device that never ends
      expect_refused("/dev/zero");
      return 0;
    case 2: {  // a file over the limit, whatever it holds
      const std::string big = scratch("big.toml");
      write_file(big, text + std::string(solscope::app::config::kMaxConfigFileBytes + 1, '#'));
      expect_refused(big);
      fs::remove(big);
      return 0;
    }
    default:
      break;
  }
  const std::string file = scratch("config.toml");
  write_file(file, text);
  const auto loaded = load_config_file(file);
  const auto parsed = parse_config(text, file);
  if (loaded.has_value() != parsed.has_value()) std::abort();
  if (loaded) {
    if (loaded->size() != parsed->size()) std::abort();
    for (std::size_t i = 0; i < loaded->size(); ++i) {
      if ((*loaded)[i].spec != (*parsed)[i].spec || (*loaded)[i].text != (*parsed)[i].text) std::abort();
    }
  } else if (loaded.error().message != parsed.error().message) {
    std::abort();
  }
  return 0;
}
