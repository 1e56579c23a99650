#include "report/mobility_report.hpp"

#include <algorithm>
#include <iomanip>
#include <ostream>

#include "io/json_writer.hpp"
#include "mobility/constraint_rank.hpp"

namespace catena {

void printMobility(std::ostream& os, const Model& m, const ConstraintRank& r,
                   const std::string& where) {
  os << "mobility of '" << m.name << "' " << where << "\n"
     << "  coordinates n = " << r.n << " (velocity space), constraint rows m = " << r.m << ", rank "
     << r.rank << ", degrees of freedom " << r.dof() << "\n"
     << "  rank from QR with column pivoting of C_q^T: |R_ii| above " << r.tolerance
     << " of the largest (" << std::setprecision(6) << r.largest_pivot << ")\n";
  if (r.rank > 0)
    os << "  smallest retained |R_ii| / largest: " << r.smallestRetained() << " ("
       << m.rowName(r.pivot_rows[r.rank - 1]) << ")\n";
  const std::vector<Index> redundant = r.redundantRows();
  if (redundant.empty()) {
    os << "  redundant constraint rows: none\n";
    return;
  }
  os << "  largest dropped |R_ii| / largest: " << r.largestDropped() << "\n"
     << "  redundant constraint rows (" << redundant.size()
     << "; each depends on the retained ones, which of a dependent set is called redundant "
        "follows the pivoting):\n";
  for (Index row : redundant) os << "    " << m.rowName(row) << "\n";
  // The integrators leave these rows out by themselves (integrators/redundant_rows.hpp); a
  // model written without them states its joints as they act.
  os << "  to write the model without them:\n";
  for (const std::string& edit : redundantRowEdits(m, redundant)) os << "    " << edit << "\n";
}

namespace {

void printTerse(std::ostream& os, const Model& m, Index n, Index rows, Index rank,
                const std::vector<Index>& redundant) {
  os << "n " << n << "\nm " << rows << "\nrank " << rank << "\ndof " << n - rank << "\nredundant "
     << redundant.size() << "\n";
  for (Index row : redundant) os << "redundant_row " << m.rowName(row) << "\n";
}

/// Opens a mobility summary: input, units, analysis, where.
void beginMobilityJson(JsonWriter& j, const std::string& input, const std::string& where) {
  j.beginObject();
  j.key("input").value(input).key("units").value(kJsonUnits);
  j.key("analysis").value("mobility").key("where").value(where);
}

void writeRankCounts(JsonWriter& j, Index n, Index rows, Index rank, Index dof) {
  j.key("n").value(static_cast<long>(n)).key("m").value(static_cast<long>(rows));
  j.key("rank").value(static_cast<long>(rank)).key("dof").value(static_cast<long>(dof));
}

/// Closes a mobility summary with the names of the redundant rows and a newline.
void endMobilityJson(JsonWriter& j, std::ostream& os, const Model& m,
                     const std::vector<Index>& redundant) {
  j.key("redundant_rows").beginArray();
  for (Index row : redundant) j.value(m.rowName(row));
  j.endArray();
  j.endObject();
  os << "\n";
}

}  // namespace

void printTerseMobility(std::ostream& os, const Model& m, const ConstraintRank& r) {
  printTerse(os, m, r.n, r.m, r.rank, r.redundantRows());
}

void writeMobilityJson(std::ostream& os, const std::string& input, const Model& m,
                       const ConstraintRank& r, const std::string& where) {
  JsonWriter j(os);
  beginMobilityJson(j, input, where);
  writeRankCounts(j, r.n, r.m, r.rank, r.dof());
  j.key("rank_tolerance").value(r.tolerance).key("largest_pivot").value(r.largest_pivot);
  j.key("smallest_retained").value(r.smallestRetained());
  j.key("largest_dropped").value(r.largestDropped());
  j.key("pivots").array(r.pivots);
  endMobilityJson(j, os, m, r.redundantRows());
}

void printMobility(std::ostream& os, const Model& m, const BlockwiseRank& r,
                   const std::string& where, std::size_t max_rows_listed) {
  os << "mobility of '" << m.name << "' " << where << "\n"
     << "  coordinates n = " << r.n << " (velocity space), constraint rows m = " << r.m << ", rank "
     << r.rank << ", degrees of freedom " << r.dof() << "\n"
     << "  rank block by block: QR with column pivoting of each block's rows, then of the "
        "interface rows in the blocks' null-space bases; |R_ii| above "
     << r.tolerance << " of the largest row norm (" << std::setprecision(6) << r.largest_row_norm
     << ")\n"
     << "  blocks: " << r.blocking << "\n"
     << "  " << r.blocks << " blocks, " << r.internal_rows << " internal rows of rank "
     << r.block_rank << "; " << r.interfaceRows() << " interface rows of rank " << r.interfaceRank()
     << " in " << r.merge_steps << " merge steps; "
     << r.block_seconds + r.interface_seconds + r.setup_seconds << " s, "
     << r.peak_bytes / 1048576.0 << " MiB of bases and workspaces\n";
  if (r.rank > 0)
    os << "  smallest retained |R_ii| / largest row norm: " << r.smallest_retained << "\n";
  if (r.redundant_rows.empty()) {
    os << "  redundant constraint rows: none\n";
    return;
  }
  os << "  largest dropped |R_ii| / largest row norm: " << r.largest_dropped << "\n"
     << "  redundant constraint rows (" << r.redundant_rows.size()
     << "; each depends on the retained ones, which of a dependent set is called redundant "
        "follows the blocks and the pivoting):\n";
  const std::size_t listed = std::min(max_rows_listed, r.redundant_rows.size());
  for (std::size_t i = 0; i < listed; ++i) os << "    " << m.rowName(r.redundant_rows[i]) << "\n";
  if (listed < r.redundant_rows.size())
    os << "    ... and " << r.redundant_rows.size() - listed
       << " more (all of them in the JSON summary)\n";
}

void printTerseMobility(std::ostream& os, const Model& m, const BlockwiseRank& r) {
  printTerse(os, m, r.n, r.m, r.rank, r.redundant_rows);
}

void writeMobilityJson(std::ostream& os, const std::string& input, const Model& m,
                       const BlockwiseRank& r, const std::string& where) {
  JsonWriter j(os);
  beginMobilityJson(j, input, where);
  j.key("method").value("blockwise").key("blocking").value(r.blocking);
  writeRankCounts(j, r.n, r.m, r.rank, r.dof());
  j.key("rank_tolerance").value(r.tolerance).key("largest_row_norm").value(r.largest_row_norm);
  j.key("smallest_retained").value(r.smallest_retained);
  j.key("largest_dropped").value(r.largest_dropped);
  j.key("blocks").value(static_cast<long>(r.blocks));
  j.key("internal_rows").value(static_cast<long>(r.internal_rows));
  j.key("block_rank").value(static_cast<long>(r.block_rank));
  j.key("interface_rows").value(static_cast<long>(r.interfaceRows()));
  j.key("interface_rank").value(static_cast<long>(r.interfaceRank()));
  j.key("merge_steps").value(static_cast<long>(r.merge_steps));
  j.key("setup_seconds").value(r.setup_seconds);
  j.key("block_seconds").value(r.block_seconds);
  j.key("interface_seconds").value(r.interface_seconds);
  j.key("peak_bytes").value(static_cast<long>(r.peak_bytes));
  endMobilityJson(j, os, m, r.redundant_rows);
}

void printMobilityHistory(std::ostream& os, const Model& m, const MobilityHistory& h, bool terse) {
  Index lo = m.nv, hi = 0;
  for (const MobilitySample& s : h.samples) {
    lo = std::min(lo, s.rank);
    hi = std::max(hi, s.rank);
  }
  const std::vector<SingularEvent>& events = h.run.singular_events;
  if (terse) {
    os << "samples " << h.samples.size() << "\nrank_min " << lo << "\nrank_max " << hi
       << "\nrank_changes " << h.rank_change_at.size() << "\nsingular_events " << events.size()
       << "\n";
    return;
  }
  const double t_end = h.samples.empty() ? 0.0 : h.samples.back().t;
  os << "along " << h.path << ", to t = " << t_end << " s (" << h.samples.size()
     << " samples): rank " << lo;
  if (hi != lo) os << " .. " << hi;
  os << " at the samples\n";
  for (Index i : h.rank_change_at) {
    const MobilitySample &a = h.samples[i - 1], &b = h.samples[i];
    os << "  rank " << a.rank << " -> " << b.rank << " between t = " << a.t << " and " << b.t
       << " s\n";
  }
  os << "  singular configurations met: " << events.size() << "\n";
  for (const SingularEvent& e : events) {
    os << "    t = " << std::setprecision(5) << e.t << " s: smallest retained |R_ii|/|R_11| "
       << std::setprecision(3) << e.margin << ", rank drops by " << e.vanished.size();
    if (!e.rows.empty()) {
      os << " (";
      for (std::size_t k = 0; k < e.rows.size(); ++k) os << (k ? ", " : "") << m.rowName(e.rows[k]);
      os << ")";
    }
    // The block-wise path keeps no tangent bases: its new motions are the rank drop.
    const Index motions =
        e.new_motions.cols() > 0 ? e.new_motions.cols() : Index(e.vanished.size());
    os << ", " << motions << " new admissible motion(s)\n";
  }
  os << std::setprecision(6);
  if (!h.run.dynamics.status.ok()) {
    os << "  the simulation stopped early: " << h.run.dynamics.status.message << "\n";
    for (const std::string& w : h.run.dynamics.worst_rows) os << "    " << w << "\n";
  }
}

void writeMobilityHistoryCsv(std::ostream& os, const Model& m, const MobilityHistory& h) {
  os << "t_s,rank,dof,smallest_retained,largest_dropped\n" << std::setprecision(17);
  for (const MobilitySample& s : h.samples)
    os << s.t << ',' << s.rank << ',' << m.nv - s.rank << ',' << s.smallest_retained << ','
       << s.largest_dropped << '\n';
}

}  // namespace catena
