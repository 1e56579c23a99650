#pragma once
/// @file lagrangian_examples.hpp
/// The Lagrangian facility's example mechanisms (lib/formulations/lagrangian/examples/) as
/// LagrangianSystems, and a seeded random (q, v) for derivative tests.

#include <vector>

#include "formulations/lagrangian/examples/bar_double_pendulum.hpp"
#include "formulations/lagrangian/examples/free_top.hpp"
#include "formulations/lagrangian/examples/mechanism0.hpp"
#include "formulations/lagrangian/examples/point_pendulum.hpp"
#include "formulations/lagrangian/lagrangian_ad.hpp"

namespace catena::test {

inline std::vector<lagrangian::LagrangianSystem> lagrangianExamples() {
  using namespace lagrangian::examples;
  return {lagrangian::makeLagrangianSystem(PointPendulum<2>{1.3, 0.8, 9.81}, "planar pendulum"),
          lagrangian::makeLagrangianSystem(PointPendulum<3>{0.7, 1.1, 9.81}, "spherical pendulum"),
          lagrangian::makeLagrangianSystem(FreeTop{1.0, 2.0, 3.5}, "free top"),
          lagrangian::makeLagrangianSystem(Mechanism0{}, "Mechanism0"),
          lagrangian::makeLagrangianSystem(BarDoublePendulum{}, "bar double pendulum")};
}

}  // namespace catena::test
