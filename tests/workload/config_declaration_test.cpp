#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "workload/declaration.hpp"
#include "workload/model_config_path.hpp"
#include "workload_test_support.hpp"

namespace solscope::workload {
namespace {

namespace fs = std::filesystem;
using test_support::data_dir;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

auto alice_hub() -> fs::path {
  return data_dir() / "procfs" / "rootfs" / "host" / "home" / "alice" / ".cache" / "huggingface" / "hub";
}

TEST(ModelConfigPathTest, hub_dirs_follow_huggingface_precedence) {
  const std::map<std::string, std::string> env{
      {"HF_HUB_CACHE", "/cache/hub"}, {"HF_HOME", "/hf"}, {"XDG_CACHE_HOME", "/xdg"}, {"HOME", "/home/u"}};
  const auto dirs = hf_hub_dirs([&env](std::string_view name) -> std::optional<std::string> {
    const auto it = env.find(std::string(name));
    return it == env.end() ? std::nullopt : std::optional<std::string>(it->second);
  });
  EXPECT_THAT(dirs, ElementsAre(fs::path("/cache/hub"), fs::path("/hf/hub"), fs::path("/xdg/huggingface/hub"),
                                fs::path("/home/u/.cache/huggingface/hub")));
  EXPECT_TRUE(hf_hub_dirs([](std::string_view) { return std::optional<std::string>{}; }).empty());
}

TEST(ModelConfigPathTest, recognises_repo_ids) {
  EXPECT_TRUE(is_hf_repo_id("meta-llama/Llama-3.1-8B-Instruct"));
  EXPECT_TRUE(is_hf_repo_id("gpt2"));
  EXPECT_FALSE(is_hf_repo_id("/models/llama"));
  EXPECT_FALSE(is_hf_repo_id("a/b/c"));
  EXPECT_FALSE(is_hf_repo_id("../etc"));
  EXPECT_FALSE(is_hf_repo_id("org/.hidden"));
  EXPECT_FALSE(is_hf_repo_id(""));
}

TEST(ModelConfigPathTest, hf_id_resolves_to_the_snapshot_of_refs_main) {
  const ConfigSearch search{.hub_dirs = {"/nonexistent/hub", alice_hub()}, .fs_root = {}, .cwd = {}};
  const auto config = resolve_model_config("meta-llama/Llama-3.1-8B-Instruct", search);
  ASSERT_TRUE(config.has_value()) << config.error().describe();
  EXPECT_EQ(*config, alice_hub() / "models--meta-llama--Llama-3.1-8B-Instruct" / "snapshots" /
                         "0e9e39f249a16976918f6564b8830bc894c89659" / "config.json");
}

TEST(ModelConfigPathTest, without_refs_main_the_newest_snapshot_wins) {
  const fs::path hub = fs::temp_directory_path() / "solscope_workload_hub";
  fs::remove_all(hub);
  const fs::path repo = hub / "models--org--model";
  for (const char* rev : {"aaaa", "bbbb"}) {
    fs::create_directories(repo / "snapshots" / rev);
    std::ofstream(repo / "snapshots" / rev / "config.json") << "{}";
  }
  const auto now = fs::file_time_type::clock::now();
  fs::last_write_time(repo / "snapshots" / "aaaa" / "config.json", now);
  fs::last_write_time(repo / "snapshots" / "bbbb" / "config.json", now - std::chrono::hours(24));
  const auto config =
      resolve_model_config("org/model", ConfigSearch{.hub_dirs = {hub}, .fs_root = {}, .cwd = {}});
  ASSERT_TRUE(config.has_value()) << config.error().describe();
  EXPECT_EQ(*config, repo / "snapshots" / "aaaa" / "config.json");
  fs::remove_all(hub);
}

TEST(ModelConfigPathTest, local_paths_resolve_inside_the_process_root) {
  const fs::path sglang_root = data_dir() / "procfs" / "rootfs" / "sglang";
  const auto dir = resolve_model_config("/models/Qwen2.5-7B",
                                        ConfigSearch{.hub_dirs = {}, .fs_root = sglang_root, .cwd = {}});
  ASSERT_TRUE(dir.has_value()) << dir.error().describe();
  EXPECT_EQ(*dir, sglang_root / "models" / "Qwen2.5-7B" / "config.json");
  const auto file =
      resolve_model_config((sglang_root / "models/Qwen2.5-7B/config.json").string(), ConfigSearch{});
  ASSERT_TRUE(file.has_value());
  const auto relative = resolve_model_config("models/Qwen2.5-7B",
                                             ConfigSearch{.hub_dirs = {}, .fs_root = {}, .cwd = sglang_root});
  ASSERT_TRUE(relative.has_value()) << relative.error().describe();
}

TEST(ModelConfigPathTest, explains_what_it_could_not_find) {
  const auto missing = resolve_model_config(
      "Qwen/Qwen2.5-7B-Instruct", ConfigSearch{.hub_dirs = {alice_hub()}, .fs_root = {}, .cwd = {}});
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().code, core::ErrorCode::NotFound);
  EXPECT_THAT(missing.error().message, HasSubstr("Qwen/Qwen2.5-7B-Instruct"));
  EXPECT_THAT(missing.error().message, HasSubstr(alice_hub().string()));
  EXPECT_THAT(missing.error().hint,
              HasSubstr("huggingface-cli download Qwen/Qwen2.5-7B-Instruct config.json"));
  EXPECT_EQ(resolve_model_config("", ConfigSearch{}).error().code, core::ErrorCode::InvalidArgument);
  EXPECT_EQ(resolve_model_config("/no/such/dir", ConfigSearch{}).error().code, core::ErrorCode::NotFound);
}

TEST(DeclarationTest, parses_entries_with_defaults) {
  const auto parsed = parse_workload_declarations(R"(
[server]
port = 9464

[[workload]]
gpus = [1, 0]
model = "/path/or/hf-id"
engine = "vllm"
tp = 2
phase = "decode"
batch = 32
context = 2048

[[workload]]
gpus = [2]
model = "org/train-me"
phase = "train"
prompt = 4096
)",
                                                  "solscope.toml");
  ASSERT_TRUE(parsed.has_value()) << parsed.error().describe();
  ASSERT_EQ(parsed->size(), 2u);
  const WorkloadDeclaration& first = (*parsed)[0];
  EXPECT_THAT(first.gpus, ElementsAre(0u, 1u));
  EXPECT_EQ(first.model, "/path/or/hf-id");
  EXPECT_EQ(first.engine, EngineKind::Vllm);
  EXPECT_EQ(first.tensor_parallel, 2);
  EXPECT_EQ(first.shape.phase, Phase::Decode);
  EXPECT_EQ(first.shape.batch, 32);
  EXPECT_EQ(first.shape.context, 2048);
  EXPECT_EQ(first.line, 5);
  const WorkloadDeclaration& second = (*parsed)[1];
  EXPECT_EQ(second.engine, EngineKind::None);
  EXPECT_EQ(second.tensor_parallel, 1);  // default: the number of GPUs
  EXPECT_EQ(second.shape.phase, Phase::Train);
  EXPECT_EQ(second.shape.batch, 1);
  EXPECT_EQ(second.shape.prompt, 4096);
  EXPECT_EQ(find_declaration(*parsed, 1), &first);
  EXPECT_EQ(find_declaration(*parsed, 3), nullptr);
  EXPECT_TRUE(parse_workload_declarations("title = \"no workloads\"\n", "x.toml")->empty());
}

auto error_of(const std::string& text) -> std::string {
  const auto parsed = parse_workload_declarations(text, "w.toml");
  EXPECT_FALSE(parsed.has_value()) << text;
  if (parsed) return {};
  EXPECT_EQ(parsed.error().code, core::ErrorCode::InvalidArgument);
  return parsed.error().message + " | " + parsed.error().hint;
}

TEST(DeclarationTest, errors_name_the_line) {
  EXPECT_THAT(error_of("[[workload]]\ngpus = [0]\nmodel = \"m\"\nbacth = 4\n"),
              HasSubstr("w.toml:4: unknown workload key 'bacth' | known keys: gpus, model"));
  EXPECT_THAT(error_of("[[workload]]\ngpus = [0]\nmodel = \"m\"\n\nbatch = 0\n"),
              HasSubstr("w.toml:5: workload key 'batch' must be an integer from 1 to 1000000"));
  EXPECT_THAT(error_of("[[workload]]\ngpus = [0, \"1\"]\nmodel = \"m\"\n"),
              HasSubstr("w.toml:2: workload key 'gpus'"));
  EXPECT_THAT(error_of("[[workload]]\ngpus = [0, 0]\nmodel = \"m\"\n"),
              HasSubstr("w.toml:2: workload key 'gpus' lists"));
  EXPECT_THAT(error_of("\n[[workload]]\nmodel = \"m\"\n"),
              HasSubstr("w.toml:2: workload entry has no 'gpus'"));
  EXPECT_THAT(error_of("[[workload]]\ngpus = [0]\n"), HasSubstr("w.toml:1: workload entry has no 'model'"));
  EXPECT_THAT(error_of("[[workload]]\ngpus = [0]\nmodel = \"m\"\nengine = \"ollama\"\n"),
              HasSubstr("w.toml:4: unknown engine 'ollama' | use vllm, sglang or tgi"));
  EXPECT_THAT(error_of("[[workload]]\ngpus = [0]\nmodel = \"m\"\nphase = \"prefill\"\n"),
              HasSubstr("w.toml:1: a prefill workload needs prompt >= 1"));
  EXPECT_THAT(
      error_of("[[workload]]\ngpus = [0]\nmodel = \"a\"\n[[workload]]\ngpus = [1, 0]\nmodel = \"b\"\n"),
      HasSubstr("w.toml:4: GPU 0 is already declared by the entry on line 1"));
  EXPECT_THAT(error_of("workload = 3\n"), HasSubstr("w.toml:1: 'workload' must be an array of tables"));
  EXPECT_THAT(error_of("[[workload]]\ngpus = [0\nmodel = \"m\"\n"), HasSubstr("w.toml:3:"));
  EXPECT_THAT(error_of("[[workload]]\ngpus = [0]\nmodel = \"m\"\ntp = 2000\n"),
              HasSubstr("w.toml:4: workload key 'tp'"));
}

}  // namespace
}  // namespace solscope::workload
