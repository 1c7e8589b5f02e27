// python/bindings/heap_tensor.h - the native side of tdist.Tensor: a tdist::Tensor on the heap,
// shared by its owner and its peer views, refusing use once freed (module.cpp binds it; the
// kernels' bindings take it without going through DLPack).
#pragma once

#include <memory>
#include <string>
#include <utility>

#include "tdist/error.h"
#include "tdist/runtime.h"

namespace tdist::python {

// One allocation on the heap: alive until free_tensor, shared by the owner and its peer views.
// The jobs this process has joined: finalize ends one (module.cpp). A tensor or a context of an
// earlier job refuses use, even where a new init maps the heap at the same address.
inline int &jobGeneration() {
  static int generation = 0;
  return generation;
}

inline void requireCurrentJob(int generation, const char *call, const char *what) {
  if (generation != jobGeneration()) {
    throw Error(ErrorCode::InvalidParam,
                std::string(call) + ": the " + what + " belongs to a job this process finalized");
  }
}

struct Allocation {
  void *data = nullptr;
  bool alive = true;
  int generation = jobGeneration();
};

class HeapTensor {
 public:
  HeapTensor(Tensor tensor, std::shared_ptr<Allocation> allocation, int pe)
      : tensor_(std::move(tensor)), allocation_(std::move(allocation)), pe_(pe) {}

  const Tensor &tensor(const char *call) const {
    if (!allocation_->alive) {
      throw Error(ErrorCode::InvalidParam, std::string(call) + ": the tensor was freed (tdist.free_tensor)");
    }
    requireCurrentJob(allocation_->generation, call, "tensor");
    return tensor_;
  }
  bool alive() const { return allocation_->alive; }
  bool isPeerView() const { return pe_ != myPe(); }
  int pe() const { return pe_; }
  const std::shared_ptr<Allocation> &allocation() const { return allocation_; }

  // Collective; only the PE's own tensor, once.
  void free() {
    const Tensor &t = tensor("tdist.free_tensor");
    if (isPeerView()) {
      throw Error(ErrorCode::InvalidParam,
                  "tdist.free_tensor: a peer view (tdist.peer) is not an allocation; free the tensor it views");
    }
    Tensor owned = t;
    freeTensor(owned);
    allocation_->alive = false;
  }

 private:
  Tensor tensor_;
  std::shared_ptr<Allocation> allocation_;
  int pe_;  // whose copy this is: myPe() for the PE's own tensor
};

}  // namespace tdist::python
