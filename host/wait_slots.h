// host/wait_slots.h - dl::wait with the name of the call that waits.
//
// dl::wait and the template library's aclshmem_wait_<type> are one implementation; a deadline
// diagnostic names what the program called (dl.wait, or the library symbol compiled IR called).
#pragma once

#include "tdist/dl.h"

namespace tdist::dl::detail {

// Waits until each of the n slots sig[0], sig[stride], ... equals value. S is any fixed-width
// integer type, float or double.
template <class S>
Token waitSlots(S *sig, int n, S value, const char *call);

}  // namespace tdist::dl::detail
