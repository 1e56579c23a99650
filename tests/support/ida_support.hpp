#pragma once
/// @file ida_support.hpp
/// What the IDA tests share: the three formulations, and a run that keeps every observed state.

#include <vector>

#include "integrators/ida_dynamics.hpp"
#include "model/state.hpp"

namespace catena::test {

/// IDA's three formulations: index 3, GGL (index 2), index 1.
inline const IdaFormulation kIdaFormulations[] = {IdaFormulation::kIndex3, IdaFormulation::kIndex2,
                                                  IdaFormulation::kIndex1};

/// An IDA run and every state its observer saw.
struct IdaRun {
  DynamicsResult result;
  std::vector<State> states;
};

/// integrateIda(m, plan, initialState(m), o) keeping every observed state; the result's Status
/// says whether it reached o.t_end.
inline IdaRun recordIda(const Model& m, const AssemblyPlan& plan, const IdaOptions& o) {
  IdaRun r;
  r.result = integrateIda(m, plan, initialState(m), o, [&](const State& s) {
    r.states.push_back(s);
    return true;
  });
  return r;
}

}  // namespace catena::test
