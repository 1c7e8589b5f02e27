// runtime/static_data.cpp - finding the program's writable data, moving it into memfds, and
// mapping every peer's.
//
// Moving a range: its pages are written into a memfd, which is then mapped over them with one
// mmap(MAP_FIXED): the kernel swaps the pages in one step, so a reader never sees a hole. A store
// into the range by another thread between the copy and the swap would be lost, which is why
// this happens in init before the runtime starts any thread (and why a program must not write
// static data from other threads while init runs, as OpenSHMEM requires init to come first).
// Pages of .bss that were never touched are not copied: the memfd keeps them as holes, so a
// large static array costs no memory until it is used.
//
// The copy and the swap are raw system calls, not the libc functions: under AddressSanitizer
// those are intercepted: the interceptor of pwrite checks (and reports) the redzones between
// globals that the copy reads, and newer ones of mmap clear the shadow of the range mapped, where
// the redzones must stay poisoned.
//
// A child of fork() must not share the parent's static data (fork gives it a copy of the
// parent's memory as it is at the fork): the prepare handler of fork copies the data into a fresh
// memfd in the parent, before the fork, and the child handler maps that copy over the child's
// ranges. The handlers are registered when the runtime library is loaded, before the program or
// a library that uses the runtime can register its own, so that this child handler runs first:
// one that ran before it would store into the parent's data.
#include "runtime/static_data.h"

#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "runtime/backend.h"
#include "runtime/runtime_state.h"

namespace tdist::runtime {
namespace {

constexpr int kMaxRanges = 4;

// How a PE's static data stands, as the PEs tell each other at init.
enum class Standing : std::uint32_t { Shared = 0, OptedOut = 1, NotOnBackend = 2, Failed = 3 };

// What the PEs compare: the same program has the same identity and the same ranges, at the same
// offsets from where it was loaded.
struct Descriptor {
  Standing standing = Standing::Failed;
  std::uint32_t count = 0;
  std::uint64_t identity = 0;  // a hash of the build id, or of the program headers without one
  std::uint64_t bytes = 0;     // of all ranges
  struct {
    std::uint64_t offset;      // from the load base
    std::uint64_t size;
  } ranges[kMaxRanges] = {};
};

struct ProgramRange {
  std::byte *start = nullptr;
  std::size_t size = 0;
  std::size_t anonymous_from = 0;  // offset of the first page not backed by the executable file
  int fd = -1;                     // the memfd behind the range once moved
  int at_fork = -1;                // during a fork: the memfd with the range's data as at the fork
};

// The program's data, found once per process; moved once per process (and in a child of fork,
// onto the copy of its own made at the fork).
struct Program {
  bool found = false;
  std::string not_found;  // why the program's data could not be found
  int count = 0;
  ProgramRange ranges[kMaxRanges];
  std::uintptr_t base = 0;
  std::uint64_t identity = 0;
  bool moved = false;
  std::string move_failed;         // why moving failed (then it is never tried again)
  bool child_copy_failed = false;  // this is a child of fork that could not get its own copy
};

Program g_program;

std::uint64_t fnv1a(const void *data, std::size_t size, std::uint64_t hash = 14695981039346656037ull) {
  const auto *bytes = static_cast<const unsigned char *>(data);
  for (std::size_t i = 0; i < size; ++i) hash = (hash ^ bytes[i]) * 1099511628211ull;
  return hash;
}

std::uintptr_t pageSize() { return static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE)); }

// The GNU build id in one PT_NOTE segment, hashed; 0 when it has none.
std::uint64_t buildIdHash(std::uintptr_t base, const ElfW(Phdr) &note) {
  const auto *p = reinterpret_cast<const unsigned char *>(base + note.p_vaddr);
  const auto *end = p + note.p_memsz;
  while (p + sizeof(ElfW(Nhdr)) <= end) {
    ElfW(Nhdr) header;
    std::memcpy(&header, p, sizeof header);
    const unsigned char *name = p + sizeof header;
    const unsigned char *desc = name + ((header.n_namesz + 3) & ~3u);
    const unsigned char *next = desc + ((header.n_descsz + 3) & ~3u);
    if (next > end) break;
    if (header.n_type == NT_GNU_BUILD_ID && header.n_namesz == 4 && std::memcmp(name, "GNU", 4) == 0) {
      return fnv1a(desc, header.n_descsz);
    }
    p = next;
  }
  return 0;
}

// The first object dl_iterate_phdr reports is the main program.
int findProgram(dl_phdr_info *info, std::size_t, void *out) {
  auto &program = *static_cast<Program *>(out);
  const std::uintptr_t page = pageSize();
  const std::uintptr_t base = info->dlpi_addr;
  program.base = base;
  std::uintptr_t relro_first = 0, relro_last = 0;  // PT_GNU_RELRO: [first, last) as the linker wrote it
  std::uint64_t identity = 0;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr) &h = info->dlpi_phdr[i];
    if (h.p_type == PT_GNU_RELRO) {
      relro_first = base + h.p_vaddr;
      relro_last = relro_first + h.p_memsz;
    }
    if (h.p_type == PT_NOTE && identity == 0) identity = buildIdHash(base, h);
  }
  if (identity == 0) identity = fnv1a(info->dlpi_phdr, sizeof(ElfW(Phdr)) * info->dlpi_phnum);
  program.identity = identity;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr) &h = info->dlpi_phdr[i];
    if (h.p_type != PT_LOAD || (h.p_flags & PF_W) == 0 || h.p_memsz == 0) continue;
    const std::uintptr_t first = base + h.p_vaddr;
    const std::uintptr_t last = first + h.p_memsz;
    std::uintptr_t start = first & ~(page - 1);
    const std::uintptr_t end = (last + page - 1) & ~(page - 1);
    // What the loader made read-only after relocating it (PT_GNU_RELRO: the GOT, vtables, const
    // objects with relocations) is never moved, whatever the linker's layout. bfd and gold put it
    // at the start of the writable segment, its end on a page boundary: the range starts there.
    // lld and mold give it a segment of its own, which it fills (its size in PT_GNU_RELRO padded
    // past the segment's end, to the page's): that segment is left alone. Where RELRO ends inside
    // a page of data (pages larger than the linker aligned it for), the loader leaves that page
    // writable, and the range starts at it, so that the data on it stays symmetric.
    if (relro_first < relro_last && first < relro_last && last > relro_first) {
      start = last <= relro_last ? end : std::max(start, relro_last & ~(page - 1));
    }
    if (start >= end) continue;
    if (program.count == kMaxRanges) {
      program.not_found = "the program has more than " + std::to_string(kMaxRanges) + " writable segments";
      return 1;
    }
    const std::uintptr_t file_end = (first + h.p_filesz + page - 1) & ~(page - 1);
    ProgramRange &range = program.ranges[program.count++];
    range.start = reinterpret_cast<std::byte *>(start);
    range.size = end - start;
    range.anonymous_from = file_end > start ? std::min(file_end, end) - start : 0;
  }
  if (program.count == 0) program.not_found = "the program has no writable data segment";
  return 1;
}

void findOnce() {
  if (g_program.found || !g_program.not_found.empty()) return;
  dl_iterate_phdr(findProgram, &g_program);
  g_program.found = g_program.not_found.empty();
}

// Raw system calls: see the top of the file.
bool writeAll(int fd, const std::byte *data, std::size_t size, std::size_t offset) {
  while (size > 0) {
    long n = syscall(SYS_pwrite64, fd, data, size, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    offset += static_cast<std::size_t>(n);
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

void *mapRaw(void *address, std::size_t size, int flags, int fd) {
  return reinterpret_cast<void *>(syscall(SYS_mmap, address, size, PROT_READ | PROT_WRITE, flags, fd, 0));
}

// Which pages of [start, start + size) were ever touched (present or swapped), by
// /proc/self/pagemap; all of them when it cannot be read.
std::vector<bool> touchedPages(const std::byte *start, std::size_t size) {
  const std::uintptr_t page = pageSize();
  const std::size_t pages = size / page;
  std::vector<bool> touched(pages, true);
  int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return touched;
  std::vector<std::uint64_t> entries(pages);
  const off_t at = static_cast<off_t>(reinterpret_cast<std::uintptr_t>(start) / page * sizeof(std::uint64_t));
  const ssize_t want = static_cast<ssize_t>(pages * sizeof(std::uint64_t));
  if (pread(fd, entries.data(), static_cast<std::size_t>(want), at) == want) {
    for (std::size_t i = 0; i < pages; ++i) touched[i] = (entries[i] >> 62) != 0;  // bit 63 present, 62 swapped
  }
  close(fd);
  return touched;
}

// Moves one range into a new memfd; "" or what failed. Nothing in the range changes on failure.
std::string moveRange(ProgramRange &range) {
  const std::uintptr_t page = pageSize();
  int fd = memfd_create("tdist-static", MFD_CLOEXEC);
  if (fd < 0) return std::string("memfd_create: ") + std::strerror(errno);
  if (ftruncate(fd, static_cast<off_t>(range.size)) != 0) {
    std::string error = std::string("sizing the memfd: ") + std::strerror(errno);
    close(fd);
    return error;
  }
  // Pages past the file that were never touched are zero: the memfd's holes are too.
  const std::vector<bool> touched = touchedPages(range.start + range.anonymous_from, range.size - range.anonymous_from);
  bool copied = writeAll(fd, range.start, range.anonymous_from, 0);
  for (std::size_t i = 0; copied && i < touched.size();) {
    if (!touched[i]) {
      ++i;
      continue;
    }
    std::size_t run = 1;  // touched pages in a row: one write
    while (i + run < touched.size() && touched[i + run]) ++run;
    const std::size_t offset = range.anonymous_from + i * page;
    copied = writeAll(fd, range.start + offset, run * page, offset);
    i += run;
  }
  if (!copied) {
    std::string error = std::string("copying the data into the memfd: ") + std::strerror(errno);
    close(fd);
    return error;
  }
  if (mapRaw(range.start, range.size, MAP_SHARED | MAP_FIXED, fd) != range.start) {
    // The old pages may be gone: the program cannot go on.
    std::fprintf(stderr, "tdist: init: mapping the program's static data back at %p failed: %s\n",
                 static_cast<void *>(range.start), std::strerror(errno));
    std::abort();
  }
  range.fd = fd;
  return "";
}

// Fork's prepare handler, in the parent before the fork: each range's data as it is now, into a
// fresh memfd (only where the range's memfd holds data: holes read as zero in both). A range
// that could not be copied has none; the child then keeps private pages of the parent's memfd.
// Concurrent forks are serialized from this handler to the parent's and the child's, so one copy
// per range at a time.
void copyForFork() {
  if (!g_program.moved) return;
  for (int i = 0; i < g_program.count; ++i) {
    ProgramRange &range = g_program.ranges[i];
    const int copy = memfd_create("tdist-static", MFD_CLOEXEC);
    bool copied = copy >= 0 && ftruncate(copy, static_cast<off_t>(range.size)) == 0;
    for (off_t at = 0; copied;) {
      const off_t data = lseek(range.fd, at, SEEK_DATA);
      if (data < 0) break;  // ENXIO: no data past `at`
      off_t hole = lseek(range.fd, data, SEEK_HOLE);
      if (hole < 0) hole = static_cast<off_t>(range.size);
      copied = writeAll(copy, range.start + data, static_cast<std::size_t>(hole - data), static_cast<std::size_t>(data));
      at = hole;
    }
    if (!copied && copy >= 0) close(copy);
    range.at_fork = copied ? copy : -1;
  }
}

// Fork's parent handler: the copies were the child's.
void closeForkCopies() {
  for (int i = 0; i < g_program.count; ++i) {
    ProgramRange &range = g_program.ranges[i];
    if (range.at_fork >= 0) close(range.at_fork);
    range.at_fork = -1;
  }
}

// Fork's child handler, the first of the child's: the copies as at the fork become the child's
// static data, on memfds of its own. Only system calls: the child of a threaded parent may run
// nothing else here.
void takeForkCopies() {
  if (!g_program.moved) return;
  for (int i = 0; i < g_program.count; ++i) {
    ProgramRange &range = g_program.ranges[i];
    const int shared = range.fd;
    const int own = range.at_fork;
    range.at_fork = -1;
    if (own >= 0 && mapRaw(range.start, range.size, MAP_SHARED | MAP_FIXED, own) == range.start) {
      close(shared);
      range.fd = own;
      continue;
    }
    // At least the parent's data stays the parent's: the child's stores go to private pages.
    if (own >= 0) close(own);
    if (mapRaw(range.start, range.size, MAP_PRIVATE | MAP_FIXED, shared) != range.start) _exit(127);
    static const char message[] = "tdist: fork: the child could not get its own copy of the static data\n";
    if (write(STDERR_FILENO, message, sizeof message - 1) < 0) {}
    close(shared);
    range.fd = -1;
    g_program.moved = false;
    g_program.child_copy_failed = true;
  }
}

// Registered when the library is loaded: see the top of the file.
const bool g_fork_handlers_registered = pthread_atfork(copyForFork, closeForkCopies, takeForkCopies) == 0;

// Moves every range, once per process; "" or why not.
std::string moveOnce() {
  if (g_program.child_copy_failed) return "this child of fork could not get its own copy of it";
  if (g_program.moved || !g_program.move_failed.empty()) return g_program.move_failed;
  if (!g_fork_handlers_registered) {
    g_program.move_failed = "pthread_atfork failed";
    return g_program.move_failed;
  }
  for (int i = 0; i < g_program.count; ++i) {
    std::string error = moveRange(g_program.ranges[i]);
    if (!error.empty()) {
      // The ranges moved so far stay moved: they hold the same data.
      g_program.move_failed = std::move(error);
      return g_program.move_failed;
    }
  }
  g_program.moved = true;
  return g_program.move_failed;
}

Descriptor describeProgram(Standing standing) {
  Descriptor d;
  d.standing = standing;
  d.count = static_cast<std::uint32_t>(g_program.count);
  d.identity = g_program.identity;
  for (int i = 0; i < g_program.count; ++i) {
    d.ranges[i].offset = reinterpret_cast<std::uintptr_t>(g_program.ranges[i].start) - g_program.base;
    d.ranges[i].size = g_program.ranges[i].size;
    d.bytes += g_program.ranges[i].size;
  }
  return d;
}

// The standing of this PE's static data after prepareStaticData, kept for agreeOnStaticData.
Standing g_standing = Standing::Failed;

std::string notSymmetric(const std::string &because) {
  return ", which is not symmetric in this job: " + because;
}

// "12288 bytes of writable data in 1 range"
std::string layoutText(const Descriptor &d) {
  return std::to_string(d.bytes) + " bytes of writable data in " + std::to_string(d.count) +
         (d.count == 1 ? " range" : " ranges");
}

bool sameLayout(const Descriptor &a, const Descriptor &b) {
  if (a.identity != b.identity || a.count != b.count) return false;
  for (std::uint32_t i = 0; i < a.count; ++i) {
    if (a.ranges[i].offset != b.ranges[i].offset || a.ranges[i].size != b.ranges[i].size) return false;
  }
  return true;
}

}  // namespace

void prepareStaticData(RuntimeState &state, const Backend &backend, bool share) {
  StaticData &statics = state.statics;
  statics = StaticData{};
  findOnce();
  for (int i = 0; i < g_program.count; ++i) {
    const ProgramRange &range = g_program.ranges[i];
    statics.ranges.push_back({range.start, range.size, reinterpret_cast<std::uintptr_t>(range.start) - g_program.base, {}});
  }
  const std::string me = "PE " + std::to_string(state.my_pe);
  if (!g_program.found) {
    g_standing = Standing::Failed;
    statics.why = notSymmetric(g_program.not_found);
  } else if (!share) {
    g_standing = Standing::OptedOut;
    statics.why = notSymmetric("TDIST_STATIC_DATA=0 on " + me);
  } else if (!backend.shares_static_data) {
    g_standing = Standing::NotOnBackend;
    statics.code = ErrorCode::NotSupported;
    statics.why = std::string(", which is not remotely accessible on the ") + backend.name +
                  " backend (its devices cannot reach the host's static data; use the symmetric heap)";
  } else if (const std::string error = moveOnce(); !error.empty()) {
    g_standing = Standing::Failed;
    statics.why = notSymmetric(me + " could not share it: " + error);
  } else {
    g_standing = Standing::Shared;
  }
}

void agreeOnStaticData(RuntimeState &state) {
  const Descriptor mine = describeProgram(g_standing);
  auto all = state.store->allgather({reinterpret_cast<const std::byte *>(&mine), sizeof mine});
  std::vector<Descriptor> theirs(state.n_pes);
  for (int pe = 0; pe < state.n_pes; ++pe) {
    if (all[pe].size() != sizeof(Descriptor)) {
      throw Error(ErrorCode::Internal, "init: PE " + std::to_string(pe) + " sent a malformed static data descriptor");
    }
    std::memcpy(&theirs[pe], all[pe].data(), sizeof(Descriptor));
  }
  StaticData &statics = state.statics;
  if (g_standing != Standing::Shared) return;  // this PE's own reason says most
  for (int pe = 0; pe < state.n_pes; ++pe) {
    const Descriptor &d = theirs[pe];
    const std::string who = "PE " + std::to_string(pe);
    if (d.standing == Standing::OptedOut) {
      statics.why = notSymmetric("TDIST_STATIC_DATA=0 on " + who);
    } else if (d.standing == Standing::NotOnBackend) {
      statics.why = notSymmetric(who + " runs on a backend that does not share it");
    } else if (d.standing == Standing::Failed) {
      statics.why = notSymmetric(who + " could not share it (see its messages)");
    } else if (!sameLayout(d, mine)) {
      statics.why = notSymmetric(who + " runs another program than PE " + std::to_string(state.my_pe) + " (" +
                                 layoutText(d) + " against " + layoutText(mine) +
                                 (d.identity != mine.identity ? ", another build)" : ")"));
    }
    if (!statics.why.empty()) return;
  }
}

std::vector<int> staticDataFds(const RuntimeState &state) {
  std::vector<int> fds;
  if (g_standing != Standing::Shared || !state.statics.why.empty()) return fds;
  for (int i = 0; i < g_program.count; ++i) fds.push_back(g_program.ranges[i].fd);
  return fds;
}

void mapStaticData(RuntimeState &state, const std::vector<std::vector<UniqueFd>> &peer_fds, std::size_t first) {
  if (staticDataFds(state).empty()) return;
  StaticData &statics = state.statics;
  for (std::size_t i = 0; i < statics.ranges.size(); ++i) {
    StaticRange &range = statics.ranges[i];
    range.peers.assign(state.n_pes, nullptr);
    for (int pe = 0; pe < state.n_pes; ++pe) {
      if (pe == state.my_pe) {
        range.peers[pe] = range.local;
        continue;
      }
      // A PE of another node sent nothing: address space without memory names its copy, which
      // the backend's network engine reaches.
      const bool remote = peer_fds[pe].size() <= first + i;
      void *mapped = remote ? mmap(nullptr, range.size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)
                            : mmap(nullptr, range.size, PROT_READ | PROT_WRITE, MAP_SHARED,
                                   peer_fds[pe][first + i].get(), 0);
      if (mapped == MAP_FAILED) {
        throw Error(ErrorCode::SharedMemory, std::string("init: ") + (remote ? "reserving address space for" : "mapping") +
                                                 " PE " + std::to_string(pe) + "'s static data: " + std::strerror(errno));
      }
      range.peers[pe] = static_cast<std::byte *>(mapped);
    }
  }
  statics.shared = true;
}

void unmapStaticData(StaticData &statics) {
  for (StaticRange &range : statics.ranges) {
    for (std::byte *peer : range.peers) {
      if (peer != nullptr && peer != range.local) munmap(peer, range.size);
    }
    range.peers.clear();
  }
  statics.shared = false;
}

std::byte *staticPeerAddress(const RuntimeState &state, const void *ptr, std::size_t bytes, int pe) {
  const StaticData &statics = state.statics;
  if (!statics.shared) return nullptr;
  const StaticRange *range = statics.find(ptr, bytes);
  if (range == nullptr) return nullptr;
  return range->peers[pe] + (static_cast<const std::byte *>(ptr) - range->local);
}

void throwNotSymmetric(const RuntimeState &state, const void *ptr, std::size_t bytes, const char *call,
                       const char *what) {
  char text[200];
  const StaticData &statics = state.statics;
  const bool in_static = statics.find(ptr, bytes == 0 ? 1 : bytes) != nullptr;
  if (in_static && !statics.shared) {
    std::snprintf(text, sizeof text, "%s: %s %p (+%zu bytes) is in the program's static data", call, what, ptr, bytes);
    throw Error(statics.code, text + statics.why);
  }
  std::snprintf(text, sizeof text, "%s: %s %p (+%zu bytes) is not on the symmetric heap", call, what, ptr, bytes);
  throw Error(ErrorCode::InvalidParam, text);
}

bool describeStaticAddress(const RuntimeState &state, const void *address, char *text, std::size_t size) {
  for (const StaticRange &range : state.statics.ranges) {
    const int views = range.peers.empty() ? 1 : static_cast<int>(range.peers.size());
    for (int view = 0; view < views; ++view) {
      const int pe = range.peers.empty() ? state.my_pe : view;
      const StaticRange mapped{range.peers.empty() ? range.local : range.peers[pe], range.size, 0, {}};
      if (!mapped.contains(address, 1)) continue;
      const std::size_t at = range.program_offset + static_cast<std::size_t>(static_cast<const std::byte *>(address) - mapped.local);
      std::snprintf(text, size, "static data at 0x%zx of PE %d's program%s", at, pe,
                    state.statics.shared ? "" : " (not symmetric)");
      return true;
    }
  }
  return false;
}

}  // namespace tdist::runtime
