// gpu_sharing.h - --backend cuda: how many GPUs the PEs have, and the MPS daemon that lets the
// kernels of PEs sharing one GPU run at once.
//
// Each PE drives GPU TDIST_LOCAL_PE modulo the visible count (the cuda backend picks it). When PEs
// outnumber GPUs some share one, and without MPS their kernels take turns in time slices: a flag
// round trip between two processes' kernels costs milliseconds instead of microseconds. So the job
// then gets an MPS control daemon of its own, with its pipe and log folders in a temporary folder
// of the job, started before the PEs and stopped after them, on every way the job ends. A GPU's
// compute mode is never changed and a GPU is never reset: the GPUs may serve other users too.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "options.h"
#include "signal_inbox.h"

namespace tdist::launcher {

struct GpuCount {
  int count = 0;
  std::string why_none;  // when count is 0: what the driver said, or why it could not be asked
};

// The GPUs the CUDA driver shows this process (after CUDA_VISIBLE_DEVICES). tdist-run does not
// link CUDA, so that it runs where there is no driver: libcuda.so.1 is loaded in a short-lived
// child process, which also keeps the driver's threads, descriptors and any MPS connection out of
// the launcher and bounds the time a stuck driver can cost.
GpuCount countVisibleGpus();

// --backend cuda on a host without a visible GPU: main reports it and exits kExitNoGpu.
class NoGpuError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The GPUs the job's PEs share: --gpus, else the driver's count. Throws NoGpuError for none.
int gpusForJob(const Options &options);

// The job's MPS daemon, when it has one. Construct it before the PEs start and destroy it after
// they have all been reaped; the destructor stops the daemon and removes its folders.
class JobMps {
 public:
  // Starts a daemon when the options and the GPU count call for one, unless the user runs one
  // (CUDA_MPS_PIPE_DIRECTORY is set): then the PEs use that one. Without the daemon program
  // (auto) it warns and the job runs time-sliced. Throws std::runtime_error when --mps on cannot
  // be honoured.
  JobMps(const Options &options, int gpus, const std::string &job_id,
         const ChildSignalState &child_signals);
  ~JobMps() { stop(); }
  JobMps(const JobMps &) = delete;
  JobMps &operator=(const JobMps &) = delete;

  // CUDA_MPS_PIPE_DIRECTORY and CUDA_MPS_LOG_DIRECTORY of the job's daemon; empty without one.
  const std::vector<std::pair<std::string, std::string>> &peVariables() const { return variables_; }

  // Asks the daemon to quit and waits, bounded, until it has; removes the job's temporary folder.
  void stop();

 private:
  // Empty when the daemon answers, else why not.
  std::string start();
  void removeFolder();

  ChildSignalState child_signals_;
  std::string control_;  // nvidia-cuda-mps-control, as found on PATH
  std::string folder_;   // the job's temporary folder, "" once removed
  std::string pipe_dir_;
  bool running_ = false;
  std::vector<std::pair<std::string, std::string>> variables_;
};

}  // namespace tdist::launcher
