#pragma once
/// @file mobility_report.hpp
/// What `catena mobility` prints and writes: coordinates, constraints, rank, degrees of freedom,
/// the redundant constraint rows by joint name, and how clear-cut the rank decision was; for
/// the dense QRCP (ConstraintRank) and the block-wise one (BlockwiseRank) alike.

#include <iosfwd>
#include <string>

#include "integrators/mobility_history.hpp"
#include "mobility/blockwise_rank.hpp"
#include "mobility/constraint_rank.hpp"

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

/// The same three for the block-wise rank. The table lists the first `max_rows_listed`
/// redundant rows (the terse lines and the JSON all of them); the JSON has the blocks, the
/// timings and the memory in place of the pivots.
void printMobility(std::ostream& os, const Model& model, const BlockwiseRank& rank,
                   const std::string& where, std::size_t max_rows_listed = 20);
void printTerseMobility(std::ostream& os, const Model& model, const BlockwiseRank& rank);
void writeMobilityJson(std::ostream& os, const std::string& input, const Model& model,
                       const BlockwiseRank& rank, const std::string& where);

/// The rank along a simulation: rank changes, the singular configurations met, how the run
/// ended (terse: `samples`, `rank_min`, `rank_max`, `rank_changes`, `singular_events`).
void printMobilityHistory(std::ostream& os, const Model& model, const MobilityHistory& h,
                          bool terse);
/// One row per sample: t_s, rank, dof, smallest_retained, largest_dropped.
void writeMobilityHistoryCsv(std::ostream& os, const Model& model, const MobilityHistory& h);

}  // namespace catena
