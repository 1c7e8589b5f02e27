// runtime/heap_fault.cpp - see heap_fault.h. The handler only reads what install wrote before it
// took the signals, formats with its own digits and writes with write(2): async-signal-safe.
#include "runtime/heap_fault.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "runtime/backend.h"
#include "runtime/runtime_state.h"

namespace tdist::runtime {
namespace {

constexpr int kMaxSegments = 4096;  // PEs whose segments the message can name; others: not named

struct Segments {
  std::uintptr_t base[kMaxSegments];
  std::size_t size = 0;
  int count = 0;
  int my_pe = 0;
  const char *backend = "";
};

Segments g_segments;
std::atomic<bool> g_installed{false};
struct sigaction g_previous_segv {};
struct sigaction g_previous_bus {};

// Appends text, a decimal or a hexadecimal number to a fixed buffer.
struct Line {
  char text[512];
  std::size_t used = 0;
  void put(const char *s) {
    while (*s != '\0' && used < sizeof text) text[used++] = *s++;
  }
  void number(std::uint64_t value, unsigned base) {
    char digits[24];
    int n = 0;
    do {
      digits[n++] = "0123456789abcdef"[value % base];
      value /= base;
    } while (value != 0);
    if (base == 16) put("0x");
    while (n > 0 && used < sizeof text) text[used++] = digits[--n];
  }
};

void onFault(int sig, siginfo_t *info, void *context) {
  const auto address = reinterpret_cast<std::uintptr_t>(info->si_addr);
  int owner = -1;
  for (int pe = 0; pe < g_segments.count; ++pe) {
    const std::uintptr_t base = g_segments.base[pe];
    if (base != 0 && address >= base && address - base < g_segments.size) owner = pe;
  }
  if (owner >= 0) {
    Line line;
    line.put("tdist: PE ");
    line.number(static_cast<std::uint64_t>(g_segments.my_pe), 10);
    line.put(": error: the host loaded or stored ");
    line.number(address, 16);
    line.put(" in PE ");
    line.number(static_cast<std::uint64_t>(owner), 10);
    line.put("'s symmetric heap (offset ");
    line.number(address - g_segments.base[owner], 16);
    line.put("), which the host cannot reach on the ");
    line.put(g_segments.backend);
    line.put(" backend (GPU memory): the host moves heap data with the routines (put, get, p, g, the atomics, "
             "the collectives), kernels load and store it themselves\n");
    ssize_t ignored = ::write(STDERR_FILENO, line.text, line.used);
    (void)ignored;
  }
  // Anything else goes on as before. A handler of someone else's runs as if it had been called
  // (and stays behind this one); the default action and ours-for-the-heap fault again under the
  // previous action when the access re-executes.
  const struct sigaction &previous = sig == SIGBUS ? g_previous_bus : g_previous_segv;
  if (owner < 0 && (previous.sa_flags & SA_SIGINFO) != 0 && previous.sa_sigaction != nullptr) {
    previous.sa_sigaction(sig, info, context);
  } else if (owner < 0 && (previous.sa_flags & SA_SIGINFO) == 0 && previous.sa_handler != SIG_DFL &&
             previous.sa_handler != SIG_IGN) {
    previous.sa_handler(sig);
  } else {
    ::sigaction(sig, &previous, nullptr);
  }
}

}  // namespace

void installHeapFaultMessage(const RuntimeState &state) {
  if (g_installed.load()) return;
  const PeerTable &peers = state.heap.peers();
  g_segments.count = std::min<int>(state.n_pes, kMaxSegments);
  for (int pe = 0; pe < g_segments.count; ++pe) {
    std::byte *base = pe == state.my_pe ? state.heap.base()
                                        : (static_cast<std::size_t>(pe) < peers.p2p_base.size() ? peers.base(pe)
                                                                                                : nullptr);
    g_segments.base[pe] = reinterpret_cast<std::uintptr_t>(base);
  }
  g_segments.size = state.heap.size();
  g_segments.my_pe = state.my_pe;
  g_segments.backend = state.backend != nullptr ? state.backend->name : "";
  struct sigaction action {};
  action.sa_sigaction = onFault;
  action.sa_flags = SA_SIGINFO;
  sigemptyset(&action.sa_mask);
  ::sigaction(SIGSEGV, &action, &g_previous_segv);
  ::sigaction(SIGBUS, &action, &g_previous_bus);
  g_installed.store(true);
}

void removeHeapFaultMessage() {
  if (!g_installed.exchange(false)) return;
  ::sigaction(SIGSEGV, &g_previous_segv, nullptr);
  ::sigaction(SIGBUS, &g_previous_bus, nullptr);
}

}  // namespace tdist::runtime
