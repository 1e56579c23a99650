#include "io/mobility_report.hpp"

#include <iomanip>
#include <ostream>

#include "io/json_writer.hpp"

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
}

void printTerseMobility(std::ostream& os, const Model& m, const ConstraintRank& r) {
  const std::vector<Index> redundant = r.redundantRows();
  os << "n " << r.n << "\nm " << r.m << "\nrank " << r.rank << "\ndof " << r.dof() << "\nredundant "
     << redundant.size() << "\n";
  for (Index row : redundant) os << "redundant_row " << m.rowName(row) << "\n";
}

void writeMobilityJson(std::ostream& os, const std::string& input, const Model& m,
                       const ConstraintRank& r, const std::string& where) {
  JsonWriter j(os);
  j.beginObject();
  j.key("input").value(input).key("analysis").value("mobility").key("where").value(where);
  j.key("n").value(static_cast<long>(r.n)).key("m").value(static_cast<long>(r.m));
  j.key("rank").value(static_cast<long>(r.rank)).key("dof").value(static_cast<long>(r.dof()));
  j.key("rank_tolerance").value(r.tolerance).key("largest_pivot").value(r.largest_pivot);
  j.key("smallest_retained").value(r.smallestRetained());
  j.key("largest_dropped").value(r.largestDropped());
  j.key("pivots").array(r.pivots);
  j.key("redundant_rows").beginArray();
  for (Index row : r.redundantRows()) j.value(m.rowName(row));
  j.endArray();
  j.endObject();
  os << "\n";
}

}  // namespace catena
