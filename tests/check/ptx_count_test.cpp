// The instruction counts the expected figures use (KernelSpec::instructions_per_iteration) match the PTX
// loops they describe, and every kernel keeps the uniform parameter list of check/kernels.hpp.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "check/detail/embedded_ptx.hpp"
#include "check/kernels.hpp"

namespace solscope::check {
namespace {

/// The first token of a PTX instruction line, without a leading "@%p" predicate; "" for other lines.
auto mnemonic(std::string line) -> std::string {
  std::istringstream in(line);
  std::string token;
  in >> token;
  if (!token.empty() && token.front() == '@') in >> token;
  if (!token.empty() && token.back() == ';') token.pop_back();
  return token;
}

/// How often `instruction` opens a line between "// counted: begin" and "// counted: end"; -1 without the
/// markers.
auto counted(std::string_view ptx, std::string_view instruction) -> int {
  const auto begin = ptx.find("// counted: begin");
  const auto end = ptx.find("// counted: end");
  if (begin == std::string_view::npos || end == std::string_view::npos || end < begin) return -1;
  std::istringstream in{std::string(ptx.substr(begin, end - begin))};
  int n = 0;
  for (std::string line; std::getline(in, line);) {
    if (mnemonic(line) == instruction) ++n;
  }
  return n;
}

TEST(PtxCount, EachLoopExecutesTheCountTheMathUses) {
  for (const KernelSpec& k : kernel_specs()) {
    SCOPED_TRACE(std::string(k.name));
    if (k.counted_instruction.empty()) {
      EXPECT_EQ(k.instructions_per_iteration, 0U);
      continue;
    }
    EXPECT_EQ(counted(k.ptx, k.counted_instruction), static_cast<int>(k.instructions_per_iteration));
  }
}

TEST(PtxCount, FiguresAreTheDocumentedOnes) {
  // The figures of docs/accuracy.md; a change to a loop must change the docs too.
  const auto per_iteration = [](std::string_view name) {
    for (const KernelSpec& k : kernel_specs()) {
      if (k.name == name) return k.instructions_per_iteration;
    }
    return 0U;
  };
  EXPECT_EQ(per_iteration("fma"), 128U);
  EXPECT_EQ(per_iteration("fma_half_sms"), 128U);
  EXPECT_EQ(per_iteration("mma_bf16"), 32U);
  EXPECT_EQ(per_iteration("wgmma_bf16"), 4U);
  EXPECT_EQ(per_iteration("alu"), 128U);
  EXPECT_EQ(per_iteration("dfma"), 64U);
  EXPECT_EQ(per_iteration("dram_copy"), 4U);
}

TEST(PtxCount, CountingSeesPredicatesAndIgnoresOtherMnemonics) {
  constexpr std::string_view kText =
      "fma.rn.f32 %f0, %f0, %f1, %f2;\n// counted: begin\n  fma.rn.f32 %f0, %f0, %f1, %f2;\n"
      "  @%p1 fma.rn.f32 %f3, %f3, %f1, %f2;\n  fma.rn.f64 %fd0, %fd0, %fd1, %fd2;\n"
      "  // fma.rn.f32 in a comment\n// counted: end\nfma.rn.f32 %f0, %f0, %f1, %f2;\n";
  EXPECT_EQ(counted(kText, "fma.rn.f32"), 2);
  EXPECT_EQ(counted(kText, "fma.rn.f64"), 1);
  EXPECT_EQ(counted("fma.rn.f32 %f0;", "fma.rn.f32"), -1);
}

TEST(PtxCount, EveryKernelHasTheUniformParametersAndTheSink) {
  for (const KernelSpec& k : kernel_specs()) {
    SCOPED_TRACE(std::string(k.name));
    ASSERT_FALSE(k.ptx.empty());
    EXPECT_EQ(k.ptx, embedded_ptx(k.ptx_file));
    const std::string entry = ".visible .entry " + std::string(k.entry) +
                              "(\n    .param .u64 buffer_a,\n    .param .u64 buffer_b,\n"
                              "    .param .u64 elements,\n    .param .u32 iterations\n)";
    EXPECT_NE(k.ptx.find(entry), std::string_view::npos);
    const bool hopper_only = k.phase == PhaseKind::TensorWgmma;  // wgmma needs PTX ISA 8.0 and sm_90a
    EXPECT_NE(k.ptx.find(hopper_only ? ".version 8.0\n.target sm_90a\n" : ".version 7.0\n.target sm_80\n"),
              std::string_view::npos);
    if (k.phase != PhaseKind::DramCopy && k.phase != PhaseKind::L2Copy) {
      // Compute kernels store only for the reserved iteration count, so ptxas keeps the chains.
      EXPECT_NE(k.ptx.find("setp.ne.u32 %p_sink, %iters, -1;"), std::string_view::npos);
    }
  }
  EXPECT_TRUE(embedded_ptx("missing.ptx").empty());
}

}  // namespace
}  // namespace solscope::check
