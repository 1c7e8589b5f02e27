// allreduce_floor.cpp - the floor UCX sets for an all-reduce of two processes: each sends its
// whole array to the other as one active message, then sums the two into the result, busy
// polling its worker throughout, with no runtime around it. Three ways: an active message eager
// (the bytes land in UCX's buffer, copied out in the handler: am-eager) or by rendezvous (straight
// from the sender's array into the receiver's buffer, once its handler asks for them: am-rndv),
// and a tagged message into a receive posted before it (UCX picks the protocol: tag). The fastest
// is what an all-reduce between two nodes through UCX cannot beat on the same link
// (docs/RUNTIME.md, "Where all_reduce stands against Open MPI").
//
//   allreduce_floor [--bytes N] [--iters I] [--repeats R] [--protocol am-eager|am-rndv|tag|all]
//
// Forks the second process itself (a socket pair carries the worker addresses and the barriers);
// UCX's transports from the environment (UCX_TLS; TCP when unset, with the segments the cpu
// engine uses). Prints, from the first process, one line per protocol:
//   RESULT impl=ucx case=allreduce_floor protocol=am-eager|am-rndv|tag pes=2 size=N iters=I median_us=..
//          min_us=.. max_us=..
// and exits non-zero when a sum is wrong.
#include <poll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <ucp/api/ucp.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

constexpr unsigned kMessageId = 1;

[[noreturn]] void die(const std::string &what) {
  std::fprintf(stderr, "allreduce_floor: %s\n", what.c_str());
  std::exit(1);
}

void check(ucs_status_t status, const char *what) {
  if (status != UCS_OK) die(std::string(what) + ": " + ucs_status_string(status));
}

// Whole reads and writes on the socket pair.
void sendAll(int fd, const void *data, std::size_t bytes) {
  for (std::size_t done = 0; done < bytes;) {
    const ssize_t n = write(fd, static_cast<const char *>(data) + done, bytes - done);
    if (n <= 0) die("the socket pair closed");
    done += static_cast<std::size_t>(n);
  }
}
void receiveAll(int fd, void *data, std::size_t bytes) {
  for (std::size_t done = 0; done < bytes;) {
    const ssize_t n = read(fd, static_cast<char *>(data) + done, bytes - done);
    if (n <= 0) die("the socket pair closed");
    done += static_cast<std::size_t>(n);
  }
}

// The peer's messages, by call: eager, its bytes copied by the handler into the buffer of the
// call's parity; by rendezvous, its descriptor kept there until the receiver asks for the bytes.
// The peer is at most one call ahead (its next needs this process's message), so two suffice.
struct Inbox {
  std::vector<double> buffer[2];
  void *descriptor[2] = {nullptr, nullptr};
  std::size_t bytes[2] = {0, 0};
  long arrived = 0;  // messages so far
};

ucs_status_t onMessage(void *arg, const void *, std::size_t, void *data, std::size_t length,
                       const ucp_am_recv_param_t *param) {
  auto &inbox = *static_cast<Inbox *>(arg);
  const long slot = inbox.arrived++ % 2;
  inbox.bytes[slot] = length;
  if ((param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) != 0) {
    inbox.descriptor[slot] = data;
    return UCS_INPROGRESS;
  }
  inbox.descriptor[slot] = nullptr;
  if (length <= inbox.buffer[slot].size() * sizeof(double)) std::memcpy(inbox.buffer[slot].data(), data, length);
  return UCS_OK;
}

void noSendCallback(void *, ucs_status_t, void *) {}
void noReceiveCallback(void *, ucs_status_t, std::size_t, void *) {}
void noTagCallback(void *, ucs_status_t, const ucp_tag_recv_info_t *, void *) {}

void await(ucp_worker_h worker, ucs_status_ptr_t request, const char *what) {
  if (request == nullptr) return;
  if (UCS_PTR_IS_ERR(request)) die(std::string(what) + ": " + ucs_status_string(UCS_PTR_STATUS(request)));
  while (ucp_request_check_status(request) == UCS_INPROGRESS) ucp_worker_progress(worker);
  const ucs_status_t status = ucp_request_check_status(request);
  ucp_request_free(request);
  check(status, what);
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

}  // namespace

int main(int argc, char **argv) {
  std::size_t bytes = std::size_t{1} << 20;
  long iters = 0;  // 0: by size
  int repeats = 5;
  std::string protocol = "all";
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--bytes" && i + 1 < argc) bytes = std::strtoull(argv[++i], nullptr, 0);
    else if (arg == "--iters" && i + 1 < argc) iters = std::atol(argv[++i]);
    else if (arg == "--repeats" && i + 1 < argc) repeats = std::atoi(argv[++i]);
    else if (arg == "--protocol" && i + 1 < argc) protocol = argv[++i];
    else die("usage: allreduce_floor [--bytes N] [--iters I] [--repeats R] [--protocol am-eager|am-rndv|tag|all]");
  }
  if (bytes == 0 || bytes % sizeof(double) != 0 || repeats < 1 || iters < 0 ||
      (protocol != "am-eager" && protocol != "am-rndv" && protocol != "tag" && protocol != "all")) {
    die("--bytes takes a positive multiple of 8, --repeats at least 1, --protocol am-eager, am-rndv, tag or all");
  }
  if (iters == 0) iters = bytes <= (std::size_t{64} << 10) ? 300 : 30;

  int pair[2];
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, pair) != 0) die("socketpair");
  const pid_t child = fork();
  if (child < 0) die("fork");
  const int me = child == 0 ? 1 : 0;
  const int fd = pair[me];
  close(pair[1 - me]);

  setenv("UCX_TLS", "tcp", 0);
  setenv("UCX_TCP_TX_SEG_SIZE", "256k", 0);
  setenv("UCX_TCP_RX_SEG_SIZE", "256k", 0);
  ucp_config_t *config = nullptr;
  check(ucp_config_read(nullptr, nullptr, &config), "ucp_config_read");
  ucp_params_t params{};
  params.field_mask = UCP_PARAM_FIELD_FEATURES;
  params.features = UCP_FEATURE_AM | UCP_FEATURE_TAG;
  ucp_context_h context = nullptr;
  check(ucp_init(&params, config, &context), "ucp_init");
  ucp_config_release(config);
  ucp_worker_params_t worker_params{};
  worker_params.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
  worker_params.thread_mode = UCS_THREAD_MODE_SINGLE;
  ucp_worker_h worker = nullptr;
  check(ucp_worker_create(context, &worker_params, &worker), "ucp_worker_create");
  Inbox inbox;
  ucp_am_handler_param_t handler{};
  handler.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_CB | UCP_AM_HANDLER_PARAM_FIELD_ARG;
  handler.id = kMessageId;
  handler.cb = onMessage;
  handler.arg = &inbox;
  check(ucp_worker_set_am_recv_handler(worker, &handler), "ucp_worker_set_am_recv_handler");

  // Worker addresses through the socket pair, then an endpoint to the peer.
  ucp_address_t *address = nullptr;
  std::size_t address_bytes = 0;
  check(ucp_worker_get_address(worker, &address, &address_bytes), "ucp_worker_get_address");
  sendAll(fd, &address_bytes, sizeof address_bytes);
  sendAll(fd, address, address_bytes);
  std::size_t peer_bytes = 0;
  receiveAll(fd, &peer_bytes, sizeof peer_bytes);
  std::vector<char> peer_address(peer_bytes);
  receiveAll(fd, peer_address.data(), peer_bytes);
  ucp_worker_release_address(worker, address);
  ucp_ep_params_t endpoint_params{};
  endpoint_params.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS;
  endpoint_params.address = reinterpret_cast<const ucp_address_t *>(peer_address.data());
  ucp_ep_h endpoint = nullptr;
  check(ucp_ep_create(worker, &endpoint_params, &endpoint), "ucp_ep_create");

  const std::size_t count = bytes / sizeof(double);
  std::vector<double> source(count), result(count);
  inbox.buffer[0].resize(count);
  inbox.buffer[1].resize(count);
  long calls = 0;
  for (std::size_t i = 0; i < count; ++i) source[i] = me * 1000.0 + static_cast<double>(i % 4096);
  // Through the socket pair, progressing the worker meanwhile: a message this process sent may
  // still wait in UCX's queue for the connection, which only progress completes.
  const auto barrier = [&] {
    ucp_request_param_t flush{};
    await(worker, ucp_worker_flush_nbx(worker, &flush), "flush");
    char token = 0;
    sendAll(fd, &token, 1);
    pollfd readable{fd, POLLIN, 0};
    while (poll(&readable, 1, 0) == 0) ucp_worker_progress(worker);
    receiveAll(fd, &token, 1);
  };
  std::string way;
  const auto allReduce = [&] {
    ucp_request_param_t send{};
    send.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS | UCP_OP_ATTR_FIELD_CALLBACK;
    send.cb.send = noSendCallback;
    if (way == "tag") {  // the call's number as the tag: the peer's next message waits for its receive
      const long slot = calls % 2;
      std::vector<double> &incoming = inbox.buffer[slot];
      ucp_request_param_t receive{};
      receive.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK;
      receive.cb.recv = noTagCallback;
      ucs_status_ptr_t received = ucp_tag_recv_nbx(worker, incoming.data(), bytes, calls, ~ucp_tag_t{0}, &receive);
      send.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK;
      ucs_status_ptr_t sent = ucp_tag_send_nbx(endpoint, source.data(), bytes, calls, &send);
      ++calls;
      await(worker, received, "receive");
      const double *first = me == 0 ? source.data() : incoming.data();
      const double *second = me == 0 ? incoming.data() : source.data();
      for (std::size_t i = 0; i < count; ++i) result[i] = first[i] + second[i];  // in PE order
      await(worker, sent, "send");
      return;
    }
    send.flags = way == "am-rndv" ? UCP_AM_SEND_FLAG_RNDV : UCP_AM_SEND_FLAG_EAGER;
    ucs_status_ptr_t sent = ucp_am_send_nbx(endpoint, kMessageId, nullptr, 0, source.data(), bytes, &send);
    while (inbox.arrived <= calls) ucp_worker_progress(worker);
    const long slot = calls++ % 2;
    if (inbox.bytes[slot] != bytes) die("the peer's message has another size");
    std::vector<double> &incoming = inbox.buffer[slot];
    if (inbox.descriptor[slot] != nullptr) {
      ucp_request_param_t receive{};
      receive.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK;
      receive.cb.recv_am = noReceiveCallback;
      await(worker, ucp_am_recv_data_nbx(worker, inbox.descriptor[slot], incoming.data(), bytes, &receive), "receive");
      inbox.descriptor[slot] = nullptr;
    }
    const double *first = me == 0 ? source.data() : incoming.data();
    const double *second = me == 0 ? incoming.data() : source.data();
    for (std::size_t i = 0; i < count; ++i) result[i] = first[i] + second[i];  // in PE order
    await(worker, sent, "send");
  };

  for (const char *name : {"am-eager", "am-rndv", "tag"}) {
    if (protocol != "all" && protocol != name) continue;
    way = name;
    std::fill(result.begin(), result.end(), 0.0);
    allReduce();
    for (std::size_t i = 0; i < count; ++i) {
      if (result[i] != 1000.0 + 2.0 * static_cast<double>(i % 4096)) die("wrong sum at element " + std::to_string(i));
    }
    for (long i = 0; i < iters / 10 + 1; ++i) allReduce();  // warm-up
    std::vector<double> times;
    for (int r = 0; r < repeats; ++r) {
      barrier();
      const auto start = std::chrono::steady_clock::now();
      for (long i = 0; i < iters; ++i) allReduce();
      times.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count() /
                      static_cast<double>(iters));
    }
    barrier();
    if (me == 0) {
      std::printf("RESULT impl=ucx case=allreduce_floor protocol=%s pes=2 size=%zu iters=%ld median_us=%.4f "
                  "min_us=%.4f max_us=%.4f\n",
                  name, bytes, iters, median(times), *std::min_element(times.begin(), times.end()),
                  *std::max_element(times.begin(), times.end()));
      std::fflush(stdout);
    }
  }
  ucp_ep_destroy(endpoint);
  ucp_worker_destroy(worker);
  ucp_cleanup(context);
  if (me == 1) return 0;
  int status = 0;
  waitpid(child, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
