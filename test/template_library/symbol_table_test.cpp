// The table of the template library: sorted, unique, every family complete with the names that
// compiled IR links against, every symbol exported from the runtime under its name.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "tdist/template_library.h"
#include "test/template_library/ciface.h"

namespace tdist {
namespace {

namespace tl = tdist::template_library;

TEST(SymbolTable, SortedUniqueAndFound) {
  auto symbols = tl::symbols();
  ASSERT_FALSE(symbols.empty());
  for (std::size_t i = 1; i < symbols.size(); ++i) {
    EXPECT_LT(symbols[i - 1].name, symbols[i].name) << "at " << i;
  }
  for (const tl::Symbol &symbol : symbols) {
    EXPECT_NE(symbol.address, nullptr) << symbol.name;
    EXPECT_EQ(tl::find(symbol.name), &symbol) << symbol.name;
  }
  EXPECT_EQ(tl::find(""), nullptr);
  EXPECT_EQ(tl::find("_mlir_ciface_aclshmem_ptr_float"), nullptr);  // a prefix only
  EXPECT_EQ(tl::find("aclshmem_ptr_float_m1_m1"), nullptr);         // the link name
  EXPECT_EQ(tl::find("_mlir_ciface_aclshmem_zzz"), nullptr);        // past the end
}

// The JIT binds these addresses by name; a program linked against the runtime finds the same.
TEST(SymbolTable, EverySymbolIsExportedUnderItsName) {
  for (const tl::Symbol &symbol : tl::symbols()) {
    const std::string name(symbol.name);
    EXPECT_EQ(dlsym(RTLD_DEFAULT, name.c_str()), symbol.address) << name;
  }
}

// Which family a name belongs to, by patterns written from the link-name rule (not from the
// generator's table).
std::string familyOf(const std::string &name) {
  static const std::string every = "(bfloat16|half|float|double|u?int(8|16|32|64))";
  static const std::string scalar = "(float|double|u?int(8|16|32|64))";
  static const std::vector<std::pair<std::string, std::regex>> families = {
      {"queries", std::regex("aclshmem_(my_pe|n_pes)")},
      {"program coordinates", std::regex("tdist_(program_id|num_programs)")},
      {"trace spans", std::regex("tdist_trace_(begin_span(_m1)?|end)")},
      {"symm_at", std::regex("aclshmem_ptr_" + every + "_m([0-4])_m\\3")},
      {"consume_token", std::regex("aclshmem_consume_token_" + every + "_ptr_(([1-4])d_m\\4_m\\4|1d_m0_m0)")},
      {"wait", std::regex("aclshmem_wait_" + scalar + "(_m[01])?")},
      {"notify", std::regex("aclshmemx_signal_op(_m[01])?")},
      {"p", std::regex("aclshmem_" + scalar + "_p(_m[01])?")},
      {"g", std::regex("aclshmem_" + scalar + "_g(_m[01])?")},
      {"barriers", std::regex("aclshmem_(barrier_all|sync_all|quiet|fence)|aclshmemx_barrier_all_vec")},
      {"byte rma", std::regex("aclshmem_(put|get)mem(_nbi)?|aclshmem_putmem_signal(_nbi)?")},
      {"typed rma", std::regex("aclshmem_" + every + "_(put|get)(_nbi)?(_m1_m1)?")},
      {"typed put_signal", std::regex("aclshmem_" + every + "_put_signal(_nbi)?(_m1_m1_m1)?")},
  };
  const std::string prefix = "_mlir_ciface_";
  if (name.rfind(prefix, 0) != 0) return "no _mlir_ciface_ prefix";
  const std::string link = name.substr(prefix.size());
  std::string found;
  for (const auto &[family, pattern] : families) {
    if (std::regex_match(link, pattern)) found += (found.empty() ? "" : " and ") + family;
  }
  return found.empty() ? "no family" : found;
}

TEST(SymbolTable, FamiliesAreComplete) {
  std::map<std::string, int> counts;
  for (const tl::Symbol &symbol : tl::symbols()) ++counts[familyOf(std::string(symbol.name))];
  const std::map<std::string, int> expected = {
      {"queries", 2},                // my_pe, n_pes
      {"program coordinates", 2},    // program_id, num_programs
      {"trace spans", 3},            // begin_span (pointer, m1), end
      {"symm_at", 60},               // 12 types x ranks 0..4
      {"consume_token", 60},         // 12 types x (ranks 1..4, and 1d on a rank-0 memref)
      {"wait", 30},                  // 10 types x (m1, m0, pointer)
      {"notify", 3},                 // m1, m0, pointer
      {"p", 30},                     // 10 types x (m1, m0, pointer)
      {"g", 30},
      {"barriers", 5},
      {"byte rma", 6},
      {"typed rma", 96},             // 12 types x (put, get, put_nbi, get_nbi) x (memref, pointer)
      {"typed put_signal", 48},      // 12 types x (blocking, nbi) x (memref, pointer)
  };
  EXPECT_EQ(counts, expected);
  EXPECT_EQ(tl::symbols().size(), 375u);
}

TEST(SymbolTable, ExactNamesOfEachFamily) {
  const char *present[] = {
      "aclshmem_my_pe", "aclshmem_n_pes", "tdist_program_id", "tdist_num_programs",
      "tdist_trace_begin_span", "tdist_trace_begin_span_m1", "tdist_trace_end",
      "aclshmem_ptr_float_m1_m1", "aclshmem_ptr_bfloat16_m0_m0", "aclshmem_ptr_uint64_m4_m4",
      "aclshmem_ptr_half_m2_m2",
      "aclshmem_consume_token_float_ptr_2d_m2_m2", "aclshmem_consume_token_int8_ptr_1d_m1_m1",
      "aclshmem_consume_token_half_ptr_1d_m0_m0", "aclshmem_consume_token_uint32_ptr_4d_m4_m4",
      "aclshmem_wait_int32_m1", "aclshmem_wait_int32_m0", "aclshmem_wait_double", "aclshmem_wait_uint8_m1",
      "aclshmemx_signal_op_m1", "aclshmemx_signal_op_m0", "aclshmemx_signal_op",
      "aclshmem_int64_p", "aclshmem_uint64_p", "aclshmem_float_p_m1", "aclshmem_int8_p_m0",
      "aclshmem_int32_g", "aclshmem_double_g_m1", "aclshmem_uint16_g_m0",
      "aclshmem_barrier_all", "aclshmemx_barrier_all_vec", "aclshmem_sync_all", "aclshmem_quiet", "aclshmem_fence",
      "aclshmem_putmem", "aclshmem_getmem", "aclshmem_putmem_nbi", "aclshmem_getmem_nbi",
      "aclshmem_putmem_signal", "aclshmem_putmem_signal_nbi",
      "aclshmem_float_put_m1_m1", "aclshmem_bfloat16_get_m1_m1", "aclshmem_int64_put_nbi_m1_m1",
      "aclshmem_uint8_get_nbi_m1_m1", "aclshmem_half_put_signal_m1_m1_m1",
      "aclshmem_double_put_signal_nbi_m1_m1_m1", "aclshmem_int16_put", "aclshmem_uint32_get_nbi",
      "aclshmem_float_put_signal", "aclshmem_int8_put_signal_nbi",
  };
  for (const char *link : present) EXPECT_NE(tl::find(testing::ciface(link)), nullptr) << link;
  // No scalar ABI for the 16-bit floats; no rank 5; consume_token has no 0d form; no C interface
  // without the prefix.
  const char *absent[] = {
      "aclshmem_wait_half", "aclshmem_wait_bfloat16_m1", "aclshmem_half_p", "aclshmem_bfloat16_g_m0",
      "aclshmem_ptr_float_m5_m5", "aclshmem_ptr_float_m1_m2", "aclshmem_consume_token_float_ptr_0d_m0_m0",
      "aclshmem_wait_int32_m2", "aclshmem_float_put_m2_m2", "tdist_trace_end_m1", "tdist_trace_begin_span_m2",
  };
  for (const char *link : absent) EXPECT_EQ(tl::find(testing::ciface(link)), nullptr) << link;
}

}  // namespace
}  // namespace tdist
