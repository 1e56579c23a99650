#pragma once
/// @file message_counters.hpp
/// What this rank has sent so far through the MPI calls that PETSc counts (its logging
/// counters, petsclog.h: every point-to-point send of PETSc, its vector scatters and parallel
/// assembly among them, and every MPI call of catena's own code that sees PETSc's headers).
/// Not counted: MUMPS' and SLEPc's Fortran/C internals that call MPI directly, MPI's collectives'
/// internal traffic (a reduction counts once, without bytes). Differences of two readings give
/// a phase's traffic (catena-scale's message fields).

namespace catena {

struct MessageCounters {
  double messages = 0.0;    ///< point-to-point sends (blocking and not)
  double bytes = 0.0;       ///< bytes in them, and this rank's part of gathers and all-to-alls
  double reductions = 0.0;  ///< all-reductions (and all-to-alls) this rank took part in

  MessageCounters operator-(const MessageCounters& since) const {
    return {messages - since.messages, bytes - since.bytes, reductions - since.reductions};
  }
};

/// The counters now, on this rank. PETSc must be initialized.
MessageCounters petscMessageCounters();

}  // namespace catena
