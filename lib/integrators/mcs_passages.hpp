#pragma once
/// @file mcs_passages.hpp
/// MCS through singular configurations it cannot pass alone (issue 28): at tight tolerances a
/// step of the projection can end so close to a crossing (the double four-bar at rtol 1e-10: a
/// relative pivot of 1.4e-8 at 4.6 s) that the velocity rebuilt from the tangent basis there
/// takes the other branch. integrateMcsWithPassages runs integrateMcs under
/// withSingularPassages (singular_passage.hpp): such a failure is taken back to the last output
/// before it, bridged by MCS at a looser tolerance (or generalized-alpha), and resumed.
/// docs/dynamics-redundant.md, "Singular configurations".

#include "integrators/mcs_dynamics.hpp"

namespace catena {

/// integrateMcs(model, plan, initial, o, observer) with singular passages. The observer sees
/// every output once, in time order, with its MCS sample; at a bridge's outputs the sample is
/// built from a fresh factorization there (its basis signed to follow the previous sample's,
/// minimal coordinates carried on by the trapezoid rule, flips 0). The result: the last
/// segment's dynamics with the statistics of all and the passages, the MCS statistics and
/// singular events of every MCS segment, the rank and DOF of the first. Throws as integrateMcs.
McsResult integrateMcsWithPassages(const Model& model, const AssemblyPlan& plan,
                                   const State& initial, const McsOptions& o,
                                   const McsObserver& observer);

}  // namespace catena
