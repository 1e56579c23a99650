#pragma once
/// @file ida_driver.hpp
/// The one IDA driver of the mixed-basis DAE, for one rank and many (integrateIda and
/// integrateDistributedIda are it over a SerialIdaSystem and an MpiIdaSystem). Internal to
/// lib/integrators.

#include "integrators/ida_system.hpp"

namespace catena {

/// Integrates from `initial` (a state of system.model(); t0 = initial.t) to o.t_end: the start
/// (consistent state, v' and lambda), IDA with the system's residual, Newton matrix and solver,
/// every accepted step seen (IDA_ONE_STEP), outputs at t0 and every o.output_interval (IDA's
/// interpolation; index 1 lands on them), the index-1 projections, the branch watch. The
/// observer gets each output state; it must return the same on every rank. Never throws on
/// numerical failure: the Status says at which time and why, worst_rows name the largest |C|.
/// Throws catena::Error on invalid options. Collective.
IdaResult runIda(IdaSystem& system, const State& initial, const IdaOptions& o,
                 const TrajectoryObserver& observer);

}  // namespace catena
