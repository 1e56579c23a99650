#pragma once
/// @file dae_formulation.hpp
/// Which form of the mixed-basis equations of motion the DAE takes (multibody_dae.hpp; the
/// equations and how to choose: docs/dynamics-ida.md).

#include <string>

namespace catena {

/// kIndex3: q' = N v, M v' + C_q^T lambda = f, C = 0 (only positions error-controlled).
/// kIndex2: stabilized index 2 (Gear-Gupta-Leimkuhler), C = 0 and C_q v + C_t = 0 with the
///          multiplier mu in the kinematic equation; the default.
/// kIndex1: C_q v' = gamma in place of C = 0, with projection back onto both constraint levels.
enum class IdaFormulation { kIndex3, kIndex2, kIndex1 };

/// "index-3", "index-2 GGL", "index-1 with projection".
std::string idaFormulationName(IdaFormulation f);

}  // namespace catena
