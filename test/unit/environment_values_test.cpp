// The runtime reads tdist-run's variables with the shared value parser: what tdist-run accepts,
// the runtime accepts, and what would overflow is refused with a message naming the variable.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <optional>
#include <string>

#include "runtime/environment.h"
#include "tdist/runtime.h"

namespace tdist {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;

// Sets the variables of a 1-PE job, and restores whatever the test changed.
class EnvironmentValues : public ::testing::Test {
 protected:
  void SetUp() override {
    set("TDIST_PE", "0");
    set("TDIST_N_PES", "1");
    set("TDIST_IP_PORT", "tcp://127.0.0.1:1");
  }
  void TearDown() override {
    for (const auto &[name, value] : saved_) {
      if (value) ::setenv(name.c_str(), value->c_str(), 1);
      else ::unsetenv(name.c_str());
    }
  }
  void set(const std::string &name, const std::string &value) {
    if (!saved_.contains(name)) {
      const char *old = std::getenv(name.c_str());
      saved_[name] = old ? std::optional<std::string>(old) : std::nullopt;
    }
    ::setenv(name.c_str(), value.c_str(), 1);
  }
  void unset(const std::string &name) {
    set(name, "");
    ::unsetenv(name.c_str());
  }
  // The InvalidParam message attrFromEnvironment throws.
  static std::string rejection() {
    try {
      attrFromEnvironment();
    } catch (const Error &error) {
      EXPECT_EQ(error.code(), ErrorCode::InvalidParam);
      return error.what();
    }
    return "(accepted)";
  }

 private:
  std::map<std::string, std::optional<std::string>> saved_;
};

// 17179869185G is 2^64 + 2^30 bytes, which a shift without a check wraps to 1 GiB.
TEST_F(EnvironmentValues, HeapSizeBeyond64BitsIsRefused) {
  set("TDIST_HEAP_SIZE", "17179869185G");
  EXPECT_EQ(rejection(),
            "environment: TDIST_HEAP_SIZE: size '17179869185G' is more than 2^64 - 1 bytes");
}

TEST_F(EnvironmentValues, HeapSizeOfZeroIsRefused) {
  set("TDIST_HEAP_SIZE", "0");
  EXPECT_THAT(rejection(), HasSubstr("TDIST_HEAP_SIZE: expected a size of at least 1 byte"));
}

TEST_F(EnvironmentValues, ValuesAreReadInTheLaunchersGrammar) {
  set("TDIST_HEAP_SIZE", "2G");
  set("TDIST_ENGINES", "sdma,mte");
  set("TDIST_WAIT_TIMEOUT", "1.5");
  set("TDIST_BOOTSTRAP_TIMEOUT", "500ms");
  InitAttr attr = attrFromEnvironment();
  EXPECT_EQ(attr.local_mem_size, 2ull << 30);
  EXPECT_EQ(attr.engines, unsigned{kEngineMte | kEngineSdma});
  EXPECT_EQ(attr.wait_timeout, 1500ms);
  EXPECT_EQ(attr.init_timeout, 500ms);
}

TEST_F(EnvironmentValues, EachBadValueNamesItsVariable) {
  set("TDIST_N_PES", "0");
  EXPECT_EQ(rejection(), "environment: TDIST_N_PES: expected an integer from 1 to 16384, got '0'");
  set("TDIST_N_PES", "2");
  set("TDIST_PE", "2");
  EXPECT_EQ(rejection(), "environment: TDIST_PE: expected an integer from 0 to 1, got '2'");
  set("TDIST_PE", "0");
  set("TDIST_ENGINES", "mte,dma");
  EXPECT_EQ(rejection(), "environment: TDIST_ENGINES: unknown engine 'dma' in 'mte,dma' (known: "
                         "mte, sdma, roce, udma)");
  set("TDIST_ENGINES", "mte");
  set("TDIST_WAIT_TIMEOUT", "1e300");
  EXPECT_EQ(rejection(), "environment: TDIST_WAIT_TIMEOUT: duration '1e300' is more than 1e+09 "
                         "seconds");
}

// A job torchrun started: RANK and WORLD_SIZE name the PE, tdist's store sits beside torch's on
// MASTER_ADDR at MASTER_PORT + 1; tdist-run's variables win where both are set.
TEST_F(EnvironmentValues, TorchrunsVariablesStartAJob) {
  unset("TDIST_PE");
  unset("TDIST_N_PES");
  unset("TDIST_IP_PORT");
  set("RANK", "3");
  set("WORLD_SIZE", "4");
  set("MASTER_ADDR", "10.1.2.3");
  set("MASTER_PORT", "29500");
  InitAttr attr = attrFromEnvironment();
  EXPECT_EQ(attr.my_pe, 3);
  EXPECT_EQ(attr.n_pes, 4);
  EXPECT_EQ(attr.ip_port, "tcp://10.1.2.3:29501");
  set("MASTER_ADDR", "fd00::1");
  EXPECT_EQ(attrFromEnvironment().ip_port, "tcp6://[fd00::1]:29501");
  set("TDIST_IP_PORT", "tcp://127.0.0.1:7000");
  EXPECT_EQ(attrFromEnvironment().ip_port, "tcp://127.0.0.1:7000");
  unset("TDIST_IP_PORT");
  set("RANK", "4");
  EXPECT_EQ(rejection(), "environment: RANK: expected an integer from 0 to 3, got '4'");
  set("RANK", "0");
  unset("MASTER_PORT");
  EXPECT_THAT(rejection(), HasSubstr("MASTER_ADDR or MASTER_PORT is not"));
  unset("RANK");
  EXPECT_THAT(rejection(), HasSubstr("TDIST_PE and TDIST_N_PES are not set"));
  // tdist-run's own variables win over torchrun's.
  set("TDIST_PE", "1");
  set("TDIST_N_PES", "2");
  set("TDIST_IP_PORT", "tcp://127.0.0.1:7001");
  set("RANK", "0");
  EXPECT_EQ(attrFromEnvironment().my_pe, 1);
}

}  // namespace
}  // namespace tdist
