#pragma once
/// @file mobility_report.hpp
/// What `catena mobility` prints and writes: coordinates, constraints, rank, degrees of freedom,
/// the redundant constraint rows by joint name, and how clear-cut the rank decision was.

#include <iosfwd>
#include <string>

#include "analysis/constraint_rank.hpp"

namespace catena {

/// A short table for people.
void printMobility(std::ostream& os, const Model& model, const ConstraintRank& rank,
                   const std::string& where);
/// Key-value lines for regression tests: n, m, rank, dof, redundant (count), then one
/// "redundant_row NAME" line per redundant row.
void printTerseMobility(std::ostream& os, const Model& model, const ConstraintRank& rank);
/// JSON summary: the counts, the tolerance, the pivots, the redundant rows.
void writeMobilityJson(std::ostream& os, const std::string& input, const Model& model,
                       const ConstraintRank& rank, const std::string& where);

}  // namespace catena
