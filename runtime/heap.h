// runtime/heap.h - collective allocation, by the API function the user called (for messages).
#pragma once

#include <cstddef>

#include "runtime/control_block.h"

namespace tdist::runtime {

void *allocateAs(CollectiveApi api, std::size_t bytes, std::size_t alignment);
void *allocateZeroedAs(CollectiveApi api, std::size_t count, std::size_t size);
void deallocateAs(CollectiveApi api, void *ptr);

}  // namespace tdist::runtime
