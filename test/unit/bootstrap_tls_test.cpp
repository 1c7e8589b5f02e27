// test/unit/bootstrap_tls_test.cpp - TLS between the PEs and the bootstrap store, PEs as threads
// of one process. The certificates come from the openssl tool, made for each run into a folder of
// its own: the job's CA and a PE certificate signed by it, and a stranger's CA and certificate.
// Skipped where the build has no OpenSSL or the machine no openssl tool.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "runtime/bootstrap_store.h"
#include "runtime/bootstrap_store_wire.h"
#include "runtime/bootstrap_tls.h"
#include "tdist/error.h"

namespace tdist::runtime {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

constexpr char kSecret[] = "job-secret-0123456789";

// The certificates of one test run.
class Certificates {
 public:
  Certificates() {
    char pattern[] = "/tmp/tdist-tls-XXXXXX";
    const char *made = ::mkdtemp(pattern);
    if (made == nullptr) return;
    dir_ = made;
    ok_ = authority("ca") && signedBy("pe", "ca") && authority("stranger-ca") && signedBy("stranger", "stranger-ca");
    // A key that is not the certificate's.
    ok_ = ok_ && run("openssl genrsa -out " + path("other.key") + " 2048");
  }
  ~Certificates() {
    std::error_code ignored;
    if (!dir_.empty()) fs::remove_all(dir_, ignored);
  }
  bool ok() const { return ok_; }
  std::string path(const std::string &name) const { return (fs::path(dir_) / name).string(); }
  std::string info(const std::string &ca, const std::string &who) const {
    return "ca=" + path(ca + ".pem") + ";cert=" + path(who + ".pem") + ";key=" + path(who + ".key");
  }

 private:
  static bool run(const std::string &command) { return std::system((command + " >/dev/null 2>&1").c_str()) == 0; }
  bool authority(const std::string &name) {
    return run("openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=" + name + " -keyout " +
               path(name + ".key") + " -out " + path(name + ".pem"));
  }
  bool signedBy(const std::string &name, const std::string &ca) {
    return run("openssl req -newkey rsa:2048 -nodes -subj /CN=" + name + " -keyout " + path(name + ".key") +
               " -out " + path(name + ".csr")) &&
           run("openssl x509 -req -days 2 -in " + path(name + ".csr") + " -CA " + path(ca + ".pem") + " -CAkey " +
               path(ca + ".key") + " -CAcreateserial -out " + path(name + ".pem"));
  }
  std::string dir_;
  bool ok_ = false;
};

const Certificates &certificates() {
  static Certificates made;
  return made;
}

bool tlsBuilt() {
  try {
    bootstrap::TlsContext::make(parseTlsInfo(certificates().info("ca", "pe")), bootstrap::TlsContext::Side::Client);
    return true;
  } catch (const Error &e) {
    return e.code() != ErrorCode::NotSupported;
  }
}

#define REQUIRE_TLS()                                                                                 \
  do {                                                                                                \
    if (!certificates().ok()) GTEST_SKIP() << "no openssl tool to make the test's certificates";      \
    if (!tlsBuilt()) GTEST_SKIP() << "this tdist was built without OpenSSL";                          \
  } while (0)

Endpoint freeLocalEndpoint() {
  bootstrap::UniqueFd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  ::bind(fd.get(), reinterpret_cast<sockaddr *>(&address), sizeof address);
  ::getsockname(fd.get(), reinterpret_cast<sockaddr *>(&address), &length);
  return Endpoint{"127.0.0.1", ntohs(address.sin_port)};
}

BootstrapOptions optionsFor(int pe, int n_pes, const std::string &tls_info) {
  BootstrapOptions options;
  options.my_pe = pe;
  options.n_pes = n_pes;
  options.secret = kSecret;
  options.connect_timeout = 20s;
  options.op_timeout = 20s;
  options.tls = parseTlsInfo(tls_info);
  return options;
}

Bytes bytesOf(const std::string &text) {
  auto bytes = std::as_bytes(std::span(text.data(), text.size()));
  return Bytes(bytes.begin(), bytes.end());
}

template <typename Call>
void expectError(Call call, ErrorCode code, const std::string &fragment) {
  try {
    call();
    ADD_FAILURE() << "no error; expected one containing \"" << fragment << "\"";
  } catch (const Error &e) {
    EXPECT_EQ(e.code(), code) << e.what();
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

TEST(BootstrapTls, ParsesTlsInfoAndSaysWhatIsWrong) {
  const TlsOptions options = parseTlsInfo("key=k.pem, ca=c.pem;cert=p.pem");
  EXPECT_EQ(options.ca, "c.pem");
  EXPECT_EQ(options.cert, "p.pem");
  EXPECT_EQ(options.key, "k.pem");
  EXPECT_FALSE(parseTlsInfo("").enabled());
  expectError([] { parseTlsInfo("ca=c.pem;cert=p.pem"); }, ErrorCode::InvalidParam, "'key' is missing");
  expectError([] { parseTlsInfo("ca=c.pem;cert=p.pem;key=k;pin=1"); }, ErrorCode::InvalidParam, "unknown field 'pin'");
  expectError([] { parseTlsInfo("ca=a;ca=b;cert=p;key=k"); }, ErrorCode::InvalidParam, "'ca' given twice");
  expectError([] { parseTlsInfo("ca"); }, ErrorCode::InvalidParam, "'ca' has no '='");
  expectError([] { parseTlsInfo("ca=;cert=p;key=k"); }, ErrorCode::InvalidParam, "'ca' names no file");
}

TEST(BootstrapTls, AJobOfThreePesWorksOverTls) {
  REQUIRE_TLS();
  constexpr int kPes = 3;
  const Endpoint endpoint = freeLocalEndpoint();
  std::vector<std::thread> threads;
  std::vector<std::string> errors(kPes);
  for (int pe = 0; pe < kPes; ++pe) {
    threads.emplace_back([&, pe] {
      try {
        auto store = connectBootstrapStore(endpoint, optionsFor(pe, kPes, certificates().info("ca", "pe")));
        // Large enough to take several TLS records and partial writes.
        const std::string value(300000, static_cast<char>('a' + pe));
        store->set("key/" + std::to_string(pe), bytesOf(value));
        for (int peer = 0; peer < kPes; ++peer) {
          const Bytes got = store->get("key/" + std::to_string(peer));
          if (got.size() != 300000 || got[12345] != static_cast<std::byte>('a' + peer))
            errors[pe] = "wrong value of PE " + std::to_string(peer);
        }
        store->barrier();
        const auto all = store->allgather(bytesOf(std::to_string(pe)));
        for (int peer = 0; peer < kPes; ++peer)
          if (all[peer] != bytesOf(std::to_string(peer))) errors[pe] = "wrong allgather entry";
      } catch (const std::exception &e) {
        errors[pe] = e.what();
      }
    });
  }
  for (auto &thread : threads) thread.join();
  for (int pe = 0; pe < kPes; ++pe) EXPECT_EQ(errors[pe], "") << "PE " << pe;
}

TEST(BootstrapTls, APeWhoseCertificateAnotherCaSignedIsRefusedAtOnce) {
  REQUIRE_TLS();
  const Endpoint endpoint = freeLocalEndpoint();
  auto pe0 = connectBootstrapStore(endpoint, optionsFor(0, 2, certificates().info("ca", "pe")));
  const auto start = Clock::now();
  // The stranger trusts the job's CA (so the store's certificate passes) but shows its own.
  expectError([&] { connectBootstrapStore(endpoint, optionsFor(1, 2, certificates().info("ca", "stranger"))); },
              ErrorCode::Bootstrap, "could not agree on TLS");
  EXPECT_LT(Clock::now() - start, 10s) << "a certificate that is not accepted is not worth retrying";
  // And a PE that does not trust the store's CA refuses the store.
  expectError([&] { connectBootstrapStore(endpoint, optionsFor(1, 2, certificates().info("stranger-ca", "stranger"))); },
              ErrorCode::Bootstrap, "certificate");
  // The job goes on: PE 1 with the job's certificate joins.
  auto pe1 = connectBootstrapStore(endpoint, optionsFor(1, 2, certificates().info("ca", "pe")));
  pe1->set("after", bytesOf("strangers"));
  EXPECT_EQ(pe0->get("after"), bytesOf("strangers"));
}

TEST(BootstrapTls, APlainPeCannotJoinATlsStore) {
  REQUIRE_TLS();
  const Endpoint endpoint = freeLocalEndpoint();
  auto pe0 = connectBootstrapStore(endpoint, optionsFor(0, 2, certificates().info("ca", "pe")));
  BootstrapOptions plain = optionsFor(1, 2, "");
  plain.connect_timeout = 2s;
  expectError([&] { connectBootstrapStore(endpoint, plain); }, ErrorCode::Bootstrap, "cannot reach the bootstrap store");
}

TEST(BootstrapTls, FilesThatCannotServeAreNamed) {
  REQUIRE_TLS();
  const Certificates &c = certificates();
  const Endpoint endpoint = freeLocalEndpoint();
  expectError([&] { connectBootstrapStore(endpoint, optionsFor(0, 1, "ca=" + c.path("ca.pem") + ";cert=" +
                                                                      c.path("missing.pem") + ";key=" + c.path("pe.key"))); },
              ErrorCode::InvalidParam, "cannot use the certificate '" + c.path("missing.pem") + "'");
  expectError([&] { connectBootstrapStore(endpoint, optionsFor(0, 1, "ca=" + c.path("ca.pem") + ";cert=" +
                                                                      c.path("pe.pem") + ";key=" + c.path("other.key"))); },
              ErrorCode::InvalidParam, "cannot use the private key '" + c.path("other.key") + "'");
  expectError([&] { connectBootstrapStore(endpoint, optionsFor(0, 1, "ca=" + c.path("nowhere.pem") + ";cert=" +
                                                                      c.path("pe.pem") + ";key=" + c.path("pe.key"))); },
              ErrorCode::InvalidParam, "cannot read the CA");
}

}  // namespace
}  // namespace tdist::runtime
