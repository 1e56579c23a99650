#include "parallel/message_counters.hpp"

#include <petsclog.h>

namespace catena {

MessageCounters petscMessageCounters() {
  MessageCounters c;
  c.messages = petsc_send_ct + petsc_isend_ct;
  c.bytes = petsc_send_len + petsc_isend_len;
  c.reductions = petsc_allreduce_ct;
  return c;
}

}  // namespace catena
