#include "solvers/schur_decomposition.hpp"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <limits>
#include <map>
#include <sstream>
#include <vector>

#include <Eigen/Dense>

#include "core/huge_pages.hpp"
#include "core/wall_clock.hpp"
#include "parallel/petsc_coo_matrix.hpp"
#include "solvers/direct_lu.hpp"
#include "solvers/gathered_klu.hpp"
#include "solvers/interior_block.hpp"
#include "solvers/klu_lu.hpp"
#include "solvers/petsc_check.hpp"
#include "solvers/suitesparse_memory.hpp"

namespace catena {
namespace {

/// Iterative refinement of a solve: while the backward error exceeds this, at most
/// kMaxRefinements steps (-PREFIXdd_max_refinements).
constexpr double kRefinedBackwardError = 1e-14;
constexpr int kMaxRefinements = 2;

/// A block's refactorization with pivot growth up to this is kept where its crude condition
/// estimate dropped (KluLu::acceptRefactorizationGrowth; -PREFIXdd_max_refactor_growth): the
/// solves refine to kRefinedBackwardError and factor anew where they cannot. On the 2·10^5-link
/// chain's statics from the 'V', 3 of 4 refusals on the slower rank had growth 4e3 .. 9e4 over
/// the full factorization's and sound pivots (hand run, 2026-11-28).
constexpr double kMaxRefactorGrowth = 1e5;

/// The largest interface matrix S that -PREFIXdd_interface auto gathers on every rank and
/// factors there by KLU (-PREFIXdd_gathered_max); MUMPS across the ranks factors larger ones. A
/// chain's S has about 19 unknowns per rank, so this is about 1000 ranks of a chain: KLU on S
/// then costs about 0.17 s per statics on every rank (0.17 ms per rank of S, fitted in
/// benchmarks/results/schur_interface.md), a third of the blocks' work at 10^7 links.
constexpr PetscInt kMaxGatheredInterface = 20000;

/// How many times a factorization may move an interior block's singular unknowns to the
/// interface and start again.
constexpr int kMaxReanalyses = 8;

/// An analysis after moved rows keeps a block's last order while its trailing window (the
/// pivots the interface's solves run over) stays within kMaxWindowGrowth times the old one plus
/// kWindowSlack pivots; past that the block is ordered anew.
constexpr int kMaxWindowGrowth = 2;
constexpr int kWindowSlack = 64;
/// Rows either side of an equal split of a rank's rows into parts (-PREFIXdd_parts) searched
/// for the split that the fewest couplings cross (partSplits).
constexpr PetscInt kSplitWindow = 256;

/// f(b) for every block b < n, one OpenMP thread each; an exception thrown by any is rethrown
/// once all have finished (none may leave an OpenMP region).
template <class F>
void forEachBlock(std::size_t n, F&& f) {
  std::vector<std::exception_ptr> errors(n);
#pragma omp parallel for schedule(dynamic, 1)
  for (std::size_t b = 0; b < n; ++b) {
    try {
      f(b);
    } catch (...) {
      errors[b] = std::current_exception();
    }
  }
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
}

/// A rank's owned block of K as compressed rows: the diagonal block (owned columns, local
/// indices) and the off-process block (columns index garray), read in place.
struct LocalRows {
  Mat Ad = nullptr, Ao = nullptr;
  const PetscInt* garray = nullptr;
  PetscInt n = 0, n_off = 0;  // rows, off-process columns
  const PetscInt *d_start = nullptr, *d_col = nullptr, *o_start = nullptr, *o_col = nullptr;

  explicit LocalRows(Mat K) {
    PetscBool mpi = PETSC_FALSE;
    CATENA_PETSC(PetscObjectTypeCompare(reinterpret_cast<PetscObject>(K), MATMPIAIJ, &mpi));
    if (mpi) {
      CATENA_PETSC(MatMPIAIJGetSeqAIJ(K, &Ad, &Ao, &garray));
    } else {
      Ad = K;
    }
    PetscBool done = PETSC_FALSE;
    CATENA_PETSC(MatGetRowIJ(Ad, 0, PETSC_FALSE, PETSC_FALSE, &n, &d_start, &d_col, &done));
    CATENA_CHECK(done, "SchurDecomposition: no compressed rows of the diagonal block");
    if (Ao) {
      PetscInt rows = 0;
      CATENA_PETSC(MatGetRowIJ(Ao, 0, PETSC_FALSE, PETSC_FALSE, &rows, &o_start, &o_col, &done));
      CATENA_CHECK(done, "SchurDecomposition: no compressed rows of the off-process block");
      CATENA_PETSC(MatGetSize(Ao, nullptr, &n_off));
    }
  }
  ~LocalRows() {
    PetscBool done = PETSC_FALSE;
    MatRestoreRowIJ(Ad, 0, PETSC_FALSE, PETSC_FALSE, &n, &d_start, &d_col, &done);
    if (Ao) {
      PetscInt rows = 0;
      MatRestoreRowIJ(Ao, 0, PETSC_FALSE, PETSC_FALSE, &rows, &o_start, &o_col, &done);
    }
  }
  LocalRows(const LocalRows&) = delete;
  LocalRows& operator=(const LocalRows&) = delete;
  bool boundary(PetscInt i) const { return Ao && o_start[i + 1] > o_start[i]; }
};

/// The values of a SeqAIJ block, read in place.
struct Values {
  Mat A = nullptr;
  const PetscScalar* v = nullptr;
  explicit Values(Mat a) : A(a) {
    if (A) CATENA_PETSC(MatSeqAIJGetArrayRead(A, &v));
  }
  ~Values() {
    if (A) MatSeqAIJRestoreArrayRead(A, &v);
  }
  Values(const Values&) = delete;
  Values& operator=(const Values&) = delete;
};

/// The neighbour each boundary row faces: the lowest rank owning a column of its row; for a row
/// coupled within this rank only (moved rows, part cuts), the lowest such rank of a boundary row
/// it couples to, else (with parts) the cut nearest it, numbered size + j for split[j]; -1 if
/// none of these.
std::vector<int> boundarySides(Mat K, const LocalRows& L, const std::vector<PetscInt>& boundary_row,
                               const std::vector<PetscInt>& boundary_of,
                               const std::vector<PetscInt>& split) {
  const PetscInt* ranges = nullptr;
  CATENA_PETSC(MatGetOwnershipRanges(K, &ranges));
  int size = 1;
  MPI_Comm_size(PetscObjectComm(reinterpret_cast<PetscObject>(K)), &size);
  const auto nG = boundary_row.size();
  std::vector<int> side(nG, -1);
  for (std::size_t a = 0; a < nG; ++a) {
    const PetscInt i = boundary_row[a];
    for (PetscInt k = L.o_start ? L.o_start[i] : 0; L.o_start && k < L.o_start[i + 1]; ++k) {
      const PetscInt g = L.garray[L.o_col[k]];
      const int owner =
          static_cast<int>(std::upper_bound(ranges, ranges + size + 1, g) - ranges) - 1;
      side[a] = side[a] < 0 ? owner : std::min(side[a], owner);
    }
  }
  std::vector<int> hop = side;
  for (std::size_t a = 0; a < nG; ++a) {
    if (side[a] >= 0) continue;
    const PetscInt i = boundary_row[a];
    for (PetscInt k = L.d_start[i]; k < L.d_start[i + 1]; ++k) {
      const PetscInt b = boundary_of[L.d_col[k]];
      if (b >= 0 && side[b] >= 0) hop[a] = hop[a] < 0 ? side[b] : std::min(hop[a], side[b]);
    }
    if (hop[a] >= 0 || split.empty()) continue;
    const auto j =
        static_cast<std::size_t>(std::lower_bound(split.begin(), split.end(), i) - split.begin());
    const bool left = j == split.size() || (j > 0 && i - split[j - 1] < split[j] - i);
    hop[a] = size + static_cast<int>(left ? j - 1 : j);
  }
  return hop;
}

/// The rows each block's order pivots after all others (analyseBlock's ordered_last): the rows
/// next to the boundary (last), except in a block whose such rows face two or more neighbour
/// ranks or part cuts (a middle stretch of a chain). Pivoting both sides last there makes the
/// elimination carry the first side's rows to the end: the 4-rank chain's middle blocks
/// factored 3.8x slower than its end blocks. Such a block keeps only the rows facing one neighbour
/// (the one most of them face; ties: the higher rank) last; the other side's interface columns then
/// cost solves over the whole block in the Schur part instead. A row facing several
/// neighbours, or no rank (boundarySides -1), stays last. side: boundarySides' answer per
/// boundary index. The same on any thread count (the rule reads the pattern only).
std::vector<char> oneSidedLast(const std::vector<char>& last, const std::vector<int>& side,
                               const BoundaryCouplings& c, const std::vector<InteriorBlock>& blocks,
                               const std::vector<int>& block_of) {
  constexpr int kNone = -2, kSeveral = -3;
  std::vector<int> faces(last.size(), kNone);
  const auto touch = [&](PetscInt e, int s) {
    faces[e] = faces[e] == kNone || faces[e] == s ? s : kSeveral;
  };
  for (std::size_t a = 0; a + 1 < c.ig_start.size(); ++a)
    for (PetscInt k = c.ig_start[a]; k < c.ig_start[a + 1]; ++k) touch(c.ig_row[k], side[a]);
  for (std::size_t a = 0; a + 1 < c.gi_start.size(); ++a)
    for (PetscInt k = c.gi_start[a]; k < c.gi_start[a + 1]; ++k) touch(c.gi_col[k], side[a]);
  std::vector<std::map<int, long>> count(blocks.size());
  for (std::size_t e = 0; e < last.size(); ++e)
    if (last[e] && faces[e] >= 0) ++count[block_of[e]][faces[e]];
  std::vector<char> out = last;
  for (std::size_t e = 0; e < last.size(); ++e) {
    const std::map<int, long>& n = count[block_of[e]];
    if (!last[e] || faces[e] < 0 || n.size() < 2) continue;
    int keep = -1;
    long most = -1;
    for (const auto& [s, k] : n)
      if (k >= most) {
        keep = s;
        most = k;
      }
    out[e] = faces[e] == keep;
  }
  return out;
}

}  // namespace

struct SchurDecomposition::Impl {
  std::string prefix;
  int parts = 1;  // interior blocks per rank (-PREFIXdd_parts), one thread each
  bool analysed = false, factored = false;
  /// Some rank's block kept its last pivots in the last factorization (the same on every rank).
  bool kept_pivots = false;
  PetscInt max_refinements = kMaxRefinements;
  int rank = 0;
  PetscInt first_row = 0, owned = 0;
  // Owned rows: interior (index e, block by block) and boundary (index a, in local order).
  std::vector<PetscInt> interior_row, boundary_row;
  std::vector<InteriorBlock> blocks;
  std::vector<int> block_of;  // per interior index
  // K_IG by boundary column a and K_GI by boundary row a (values at the last factor()), and
  // the Ad positions of their values.
  BoundaryCouplings couplings;
  std::vector<PetscInt> ig_source, gi_source;
  // S: the dense block of this rank's boundary (row-major, nG x nG; Ad position or -1 per
  // slot), then the off-process entries of the boundary rows (Ao positions).
  std::vector<PetscInt> gg_source, go_source;
  std::vector<double> s_values;
  // S's factorization: gathered on every rank and factored there by KLU (s_klu), or
  // distributed and factored by MUMPS (S, ksp); analyse chooses (-PREFIXdd_interface).
  std::unique_ptr<GatheredKlu> s_klu;
  std::vector<double> s_b, s_x;  // this rank's rows of the interface's right-hand side, values
  std::unique_ptr<CooMatrix> S;
  KSP ksp = nullptr;
  Vec s_rhs = nullptr, s_sol = nullptr;
  bool hasInterface() const { return s_klu || S; }
  std::vector<double> w, t;  // interior work vectors
  // Per block, over its boundary indices: its terms of the interface's right-hand side, and
  // the interface's values (applyOnce; no allocation per solve).
  std::vector<std::vector<double>> block_r, block_x;
  Mat K = nullptr;                // the last factored matrix (the caller's; refinement's residual)
  double norm = 0.0;              // its max-row-sum norm
  Vec r = nullptr, dx = nullptr;  // refinement's residual and correction

  ~Impl() {
    clear();
    VecDestroy(&r);
    VecDestroy(&dx);
  }
  void clear() {
    VecDestroy(&s_rhs);
    VecDestroy(&s_sol);
    KSPDestroy(&ksp);
    S.reset();
    s_klu.reset();
    blocks.clear();
    block_of.clear();
    for (auto* v :
         {&interior_row, &boundary_row, &couplings.ig_start, &couplings.ig_row, &ig_source,
          &couplings.gi_start, &couplings.gi_col, &gi_source, &gg_source, &go_source})
      v->clear();
  }
  // Owned rows made boundary rows because the interior block was singular with them.
  std::shared_ptr<std::vector<char>> forced;
  std::vector<char> has_diagonal;  // per owned row: a coordinate (a multiplier has none)
  void analyse(Mat K, SchurStats& stats);
  void schurPart(Eigen::MatrixXd& Sp, SchurStats& stats);
  Status factorInterior(const double* ad, std::vector<int>& singular);
  Status applyOnce(Vec b, Vec x);
  /// x = K^-1 b refined (see solve); whether the backward error reached kRefinedBackwardError.
  bool refinedSolve(Vec b, Vec x, SchurStats& stats, Status& st);
  /// The next factorization of every block chooses new pivots.
  void forgetBlockPivots() {
    for (InteriorBlock& blk : blocks)
      if (blk.klu) blk.klu->forgetPivots();
  }
};

SchurDecomposition::SchurDecomposition(const std::string& prefix,
                                       std::shared_ptr<std::vector<char>> moved)
    : impl_(std::make_unique<Impl>()) {
  impl_->prefix = prefix;
  impl_->forced = moved ? std::move(moved) : std::make_shared<std::vector<char>>();
}

SchurDecomposition::~SchurDecomposition() = default;

void SchurDecomposition::Impl::analyse(Mat K, SchurStats& stats) {
  // The last analysis' blocks. Moving a pinned block's singular unknowns to the interface only
  // removes rows (found among the last pivots on a chain), so the analysis that follows keeps
  // each block's order with those rows dropped where its trailing window stays short, and
  // compacts the block's pattern and KLU analysis in place (dropFromBlock), instead of building
  // the block anew (5·10^6 unknowns per rank: a second analysis of 3.5 CPU s, of which 2.2 s
  // building the pattern twice and KLU's analysis, 2026-11-29, hand run).
  std::vector<InteriorBlock> old_blocks = std::move(blocks);
  const std::vector<PetscInt> old_interior_row = std::move(interior_row);
  for (InteriorBlock& old : old_blocks) {  // what the blocks keep besides their analysis
    old.upper = {};
    old.lower = {};
    old.renumbered = {};
  }
  clear();
  const char* pre = prefix.empty() ? nullptr : prefix.c_str();
  PetscInt n_parts = 1;
  PetscBool set = PETSC_FALSE;
  CATENA_PETSC(PetscOptionsGetInt(nullptr, pre, "-dd_parts", &n_parts, &set));
  CATENA_CHECK(n_parts >= 1, "-" << prefix << "dd_parts: expected at least 1, got " << n_parts);
  parts = static_cast<int>(n_parts);
  PetscReal max_growth = kMaxRefactorGrowth;
  CATENA_PETSC(PetscOptionsGetReal(nullptr, pre, "-dd_max_refactor_growth", &max_growth, &set));
  CATENA_CHECK(max_growth >= 0.0,
               "-" << prefix << "dd_max_refactor_growth: expected at least 0, got " << max_growth);
  max_refinements = kMaxRefinements;
  CATENA_PETSC(PetscOptionsGetInt(nullptr, pre, "-dd_max_refinements", &max_refinements, &set));
  CATENA_CHECK(max_refinements >= 0,
               "-" << prefix << "dd_max_refinements: expected at least 0, got " << max_refinements);
  // S gathered and factored by KLU on every rank (klu), by MUMPS across the ranks (mumps), or
  // (auto, the default) gathered up to -PREFIXdd_gathered_max unknowns.
  char interface_solver[16] = "auto";
  CATENA_PETSC(PetscOptionsGetString(nullptr, pre, "-dd_interface", interface_solver,
                                     sizeof interface_solver, &set));
  const std::string interface_choice = interface_solver;
  CATENA_CHECK(
      interface_choice == "auto" || interface_choice == "klu" || interface_choice == "mumps",
      "-" << prefix << "dd_interface: expected auto, klu or mumps, got '" << interface_choice
          << "'");
  PetscInt gathered_max = kMaxGatheredInterface;
  CATENA_PETSC(PetscOptionsGetInt(nullptr, pre, "-dd_gathered_max", &gathered_max, &set));
  stats.parts = parts;
  MPI_Comm comm = PetscObjectComm(reinterpret_cast<PetscObject>(K));
  MPI_Comm_rank(comm, &rank);
  PetscInt r1 = 0;
  CATENA_PETSC(MatGetOwnershipRange(K, &first_row, &r1));
  owned = r1 - first_row;
  const LocalRows L(K);
  CATENA_CHECK(L.n == owned, "SchurDecomposition: " << L.n << " local rows, " << owned << " owned");

  std::vector<PetscInt> interior_of(owned, -1), boundary_of(owned, -1);
  forced->resize(owned, 0);
  has_diagonal.assign(owned, 0);
  for (PetscInt i = 0; i < owned; ++i)
    for (PetscInt k = L.d_start[i]; k < L.d_start[i + 1]; ++k)
      if (L.d_col[k] == i) has_diagonal[i] = 1;
  // Parts: contiguous ranges of the owned rows; a row coupled to another part's is a boundary
  // row like one coupled to another rank's, so each part's interior is a block of its own.
  const std::vector<PetscInt> split = partSplits(L.n, L.d_start, L.d_col, parts, kSplitWindow);
  const auto part = [&](PetscInt i) {
    return static_cast<int>(std::upper_bound(split.begin(), split.end(), i) - split.begin());
  };
  std::vector<char> boundary(owned, 0);
  for (PetscInt i = 0; i < owned; ++i) {
    bool cut = false;
    for (PetscInt k = L.d_start[i]; k < L.d_start[i + 1] && parts > 1 && !cut; ++k)
      cut = part(L.d_col[k]) != part(i);
    boundary[i] = L.boundary(i) || (*forced)[i] || cut;
  }
  // A multiplier row whose coordinates are all boundary rows would be an empty row of its
  // block (structurally singular): it is a boundary row too. (A row with a diagonal entry
  // always has one interior entry.)
  std::vector<char> empty(owned, 0);
  for (PetscInt i = 0; i < owned; ++i) {
    bool interior_entry = false;
    for (PetscInt k = L.d_start[i]; k < L.d_start[i + 1] && !interior_entry; ++k)
      interior_entry = !boundary[L.d_col[k]];
    empty[i] = !boundary[i] && !interior_entry;
  }
  for (PetscInt i = 0; i < owned; ++i)
    if (boundary[i] || empty[i]) {
      boundary_of[i] = static_cast<PetscInt>(boundary_row.size());
      boundary_row.push_back(i);
    }
  // Interior rows block by block; in a block the coordinates (a diagonal entry) first, then the
  // multipliers, as the pair order wants.
  blocks.resize(parts);
  std::vector<int> coordinates(parts, 0);
  for (int b = 0; b < parts; ++b) {
    blocks[b].first = static_cast<int>(interior_row.size());
    for (int pass = 0; pass < 2; ++pass)
      for (PetscInt i = 0; i < owned; ++i) {
        if (part(i) != b || boundary_of[i] >= 0 || (has_diagonal[i] != 0) != (pass == 0)) continue;
        interior_of[i] = static_cast<PetscInt>(interior_row.size());
        interior_row.push_back(i);
        block_of.push_back(b);
        coordinates[b] += pass == 0 ? 1 : 0;
      }
    blocks[b].size = static_cast<int>(interior_row.size()) - blocks[b].first;
  }
  const int nI = static_cast<int>(interior_row.size());
  const PetscInt nG = static_cast<PetscInt>(boundary_row.size());

  // The blocks that keep their last order (see above): each row of the old block is in the new
  // one or on the interface now, and no other row joined it. kept: the new block-local row at
  // each kept pivot (analyseBlock's renumbered), dropped: the old pivots gone.
  std::vector<char> reuse(blocks.size(), 0);
  std::vector<std::vector<int>> kept(blocks.size()), dropped(blocks.size());
  if (old_blocks.size() == blocks.size())
    for (std::size_t b = 0; b < blocks.size(); ++b) {
      const InteriorBlock& old = old_blocks[b];
      if (!old.klu || blocks[b].size == 0) continue;
      bool same_block = true;
      for (int k = 0; k < old.size && same_block; ++k) {
        const PetscInt e = interior_of[old_interior_row[old.first + k]];
        if (e < 0) {
          dropped[b].push_back(k);
        } else {
          same_block = block_of[e] == static_cast<int>(b);
          kept[b].push_back(static_cast<int>(e) - blocks[b].first);
        }
      }
      reuse[b] = same_block && static_cast<int>(kept[b].size()) == blocks[b].size;
    }

  // The blocks' compressed rows (columns sorted per row, block-local; not for the blocks that
  // keep their order), K_IG, K_GI; the rows next to the boundary are flagged (last; oneSidedLast
  // chooses those the order pivots last). A block numbers its coordinates before its
  // multipliers, each in the owned rows' order, and PETSc's rows are sorted: a row's coordinate
  // columns, then its multiplier columns, come out sorted without a sort (which, with a pair
  // per entry, took a fifth of an analysis).
  std::vector<int> start(nI + 1, 0), col;
  std::vector<PetscInt> source;
  std::vector<char> last(nI, 0);
  std::vector<std::vector<std::pair<PetscInt, PetscInt>>> ig(nG);  // (interior row, position)
  const auto compressedRows = [&](bool couplings) {
    col.clear();
    source.clear();
    reserveHuge(col, L.d_start[owned]);
    reserveHuge(source, L.d_start[owned]);
    for (int e = 0; e < nI; ++e) {
      const PetscInt i = interior_row[e];
      const int b0 = blocks[block_of[e]].first;
      const int passes = reuse[block_of[e]] ? (couplings ? 1 : 0) : 2;
      for (int pass = 0; pass < passes; ++pass)
        for (PetscInt k = L.d_start[i]; k < L.d_start[i + 1]; ++k) {
          const PetscInt j = L.d_col[k];
          const PetscInt f = interior_of[j];
          if (f < 0) {
            if (pass == 0 && couplings) {
              ig[boundary_of[j]].emplace_back(e, k);
              last[e] = 1;
            }
            continue;
          }
          if (reuse[block_of[e]] || (has_diagonal[j] != 0) != (pass == 0)) continue;
          CATENA_CHECK(block_of[f] == block_of[e], "SchurDecomposition: block coupling");
          col.push_back(static_cast<int>(f) - b0);
          source.push_back(k);
        }
      start[e + 1] = static_cast<int>(col.size());
    }
  };
  compressedRows(true);
  couplings.ig_start.assign(1, 0);
  for (PetscInt a = 0; a < nG; ++a) {
    for (const auto& [e, k] : ig[a]) {
      couplings.ig_row.push_back(e);
      ig_source.push_back(k);
    }
    couplings.ig_start.push_back(static_cast<PetscInt>(couplings.ig_row.size()));
  }
  couplings.gi_start.assign(1, 0);
  for (PetscInt a = 0; a < nG; ++a) {
    const PetscInt i = boundary_row[a];
    for (PetscInt k = L.d_start[i]; k < L.d_start[i + 1]; ++k) {
      const PetscInt e = interior_of[L.d_col[k]];
      if (e < 0) continue;
      couplings.gi_col.push_back(e);
      gi_source.push_back(k);
      last[e] = 1;
    }
    couplings.gi_start.push_back(static_cast<PetscInt>(couplings.gi_col.size()));
  }

  // A kept order's trailing window (trailingWindow, as analyseBlock's) may grow to
  // kMaxWindowGrowth times the old one plus kWindowSlack pivots; past that the block is ordered
  // anew. The kept order: columns kept[b], rows the old row order without the dropped rows.
  std::vector<int> window(blocks.size(), 0);
  bool reordered = false;
  for (std::size_t b = 0; b < blocks.size(); ++b) {
    if (!reuse[b]) continue;
    const InteriorBlock& old = old_blocks[b];
    const std::vector<int> position = positionsAfterDrop(old.size, dropped[b]);  // old -> new
    const int* P_old = old.klu->givenRowOrder();
    std::vector<int> P;
    P.reserve(kept[b].size());
    for (int k = 0; k < old.size; ++k)
      if (position[P_old[k]] >= 0) P.push_back(kept[b][position[P_old[k]]]);
    window[b] = trailingWindow(P, kept[b], last.data() + blocks[b].first);
    if (window[b] > kMaxWindowGrowth * old.window + kWindowSlack) {
      reuse[b] = 0;
      reordered = true;
    }
  }
  for (std::size_t b = 0; b < old_blocks.size(); ++b)
    if (!reuse[b]) old_blocks[b] = InteriorBlock{};
  if (reordered) compressedRows(false);

  // Each block ordered and analysed by its own thread (interior_block.hpp), or its last order
  // kept (above).
  const std::vector<char> ordered_last = oneSidedLast(
      last, boundarySides(K, L, boundary_row, boundary_of, split), couplings, blocks, block_of);
  std::vector<char> ordered(blocks.size(), 0);
  forEachBlock(blocks.size(), [&](std::size_t b) {
    if (reuse[b]) {
      dropFromBlock(blocks[b], std::move(old_blocks[b]), dropped[b], std::move(kept[b]), window[b]);
      return;
    }
    analyseBlock(blocks[b], start, col, source, last, ordered_last, coordinates[b]);
    ordered[b] = blocks[b].size > 0;
  });
  stats.orderings += std::count(ordered.begin(), ordered.end(), 1);
  for (InteriorBlock& blk : blocks)
    if (blk.klu) blk.klu->acceptRefactorizationGrowth(max_growth);
  // The interior indices follow the blocks' renumbering into pivot order.
  std::vector<PetscInt> renumbered(nI);
  for (const InteriorBlock& blk : blocks)
    for (int k = 0; k < blk.size; ++k) renumbered[blk.first + blk.renumbered[k]] = blk.first + k;
  for (PetscInt e = 0; e < nI; ++e) interior_of[interior_row[e]] = renumbered[e];
  for (PetscInt i = 0; i < owned; ++i)
    if (interior_of[i] >= 0) interior_row[interior_of[i]] = i;
  for (PetscInt& e : couplings.ig_row) e = renumbered[e];
  for (PetscInt& e : couplings.gi_col) e = renumbered[e];
  for (PetscInt a = 0; a < nG; ++a) {  // the blocks each boundary row touches
    std::vector<int> touched;
    for (PetscInt s = couplings.ig_start[a]; s < couplings.ig_start[a + 1]; ++s)
      touched.push_back(block_of[couplings.ig_row[s]]);
    for (PetscInt s = couplings.gi_start[a]; s < couplings.gi_start[a + 1]; ++s)
      touched.push_back(block_of[couplings.gi_col[s]]);
    std::sort(touched.begin(), touched.end());
    touched.erase(std::unique(touched.begin(), touched.end()), touched.end());
    for (int b : touched) blocks[b].boundary.push_back(a);
  }
  w.resize(nI);
  t.resize(nI);
  block_r.resize(blocks.size());
  block_x.resize(blocks.size());
  for (std::size_t b = 0; b < blocks.size(); ++b) {
    block_r[b].assign(blocks[b].boundary.size(), 0.0);
    block_x[b].assign(blocks[b].boundary.size(), 0.0);
  }

  // The interface numbering: this rank's boundary rows, in order, after the lower ranks'.
  PetscInt g_first = 0, g_total = 0;
  MPI_Exscan(&nG, &g_first, 1, MPIU_INT, MPI_SUM, comm);
  if (rank == 0) g_first = 0;
  MPI_Allreduce(&nG, &g_total, 1, MPIU_INT, MPI_SUM, comm);
  stats.interior = nI;
  stats.boundary = nG;
  stats.interface_total = g_total;
  if (g_total == 0) return;

  // The interface index of every off-process column, from its owner.
  std::vector<PetscInt> g_of_off(L.n_off, -1);
  if (L.n_off >= 0) {
    Vec index = nullptr, off = nullptr;
    CATENA_PETSC(VecCreateMPI(comm, owned, PETSC_DETERMINE, &index));
    CATENA_PETSC(VecSet(index, -1.0));
    PetscScalar* x = nullptr;
    CATENA_PETSC(VecGetArray(index, &x));
    for (PetscInt a = 0; a < nG; ++a) x[boundary_row[a]] = static_cast<double>(g_first + a);
    CATENA_PETSC(VecRestoreArray(index, &x));
    CATENA_PETSC(VecCreateSeq(PETSC_COMM_SELF, L.n_off, &off));
    IS from = nullptr;
    CATENA_PETSC(ISCreateGeneral(PETSC_COMM_SELF, L.n_off, L.garray, PETSC_COPY_VALUES, &from));
    VecScatter scatter = nullptr;
    CATENA_PETSC(VecScatterCreate(index, from, off, nullptr, &scatter));
    CATENA_PETSC(VecScatterBegin(scatter, index, off, INSERT_VALUES, SCATTER_FORWARD));
    CATENA_PETSC(VecScatterEnd(scatter, index, off, INSERT_VALUES, SCATTER_FORWARD));
    const PetscScalar* y = nullptr;
    CATENA_PETSC(VecGetArrayRead(off, &y));
    for (PetscInt j = 0; j < L.n_off; ++j) g_of_off[j] = static_cast<PetscInt>(y[j]);
    CATENA_PETSC(VecRestoreArrayRead(off, &y));
    VecScatterDestroy(&scatter);
    ISDestroy(&from);
    VecDestroy(&off);
    VecDestroy(&index);
  }

  // S's pattern: the dense block of this rank's boundary, then the off-process couplings.
  std::vector<PetscInt> rows, cols;
  gg_source.assign(static_cast<std::size_t>(nG) * nG, -1);
  for (PetscInt a = 0; a < nG; ++a) {
    for (PetscInt b = 0; b < nG; ++b) {
      rows.push_back(g_first + a);
      cols.push_back(g_first + b);
    }
    const PetscInt i = boundary_row[a];
    for (PetscInt k = L.d_start[i]; k < L.d_start[i + 1]; ++k) {
      const PetscInt b = boundary_of[L.d_col[k]];
      if (b >= 0) gg_source[a * nG + b] = k;
    }
  }
  bool symmetric = true;
  for (PetscInt a = 0; a < nG; ++a) {
    const PetscInt i = boundary_row[a];
    for (PetscInt k = L.o_start[i]; k < L.o_start[i + 1]; ++k) {
      const PetscInt g = g_of_off[L.o_col[k]];
      symmetric = symmetric && g >= 0;
      rows.push_back(g_first + a);
      cols.push_back(std::max<PetscInt>(g, 0));
      go_source.push_back(k);
    }
  }
  int bad = symmetric ? 0 : 1, any_bad = 0;
  MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, comm);
  CATENA_CHECK(!any_bad,
               "SchurDecomposition: the matrix is not structurally symmetric (a row "
               "couples to another rank's row that does not couple back); MUMPS factors such "
               "matrices (catena: --distributed-solver mumps; catena-scale: --linear-solver "
               "direct)");
  s_values.resize(rows.size());
  s_b.resize(nG);
  s_x.resize(nG);
  if (interface_choice == "klu" || (interface_choice == "auto" && g_total <= gathered_max)) {
    CATENA_CHECK(g_total <= std::numeric_limits<int>::max() &&
                     rows.size() <= static_cast<std::size_t>(std::numeric_limits<int>::max()),
                 "SchurDecomposition: an interface of " << g_total
                                                        << " unknowns is too large for KLU; "
                                                           "-dd_interface mumps factors it");
    s_klu = std::make_unique<GatheredKlu>(nG, std::vector<int>(rows.begin(), rows.end()),
                                          std::vector<int>(cols.begin(), cols.end()),
                                          std::vector<int>{}, comm);
    // Only an exactly zero pivot makes S singular, as for MUMPS without null-pivot detection:
    // S carries the scale of the interior blocks' smallest pivots (entries of 1e18 in the
    // 6-level lattice's S on 2 ranks at one Newton iteration, whose relative pivots then fell
    // below KLU's 1e-13), and the refinement against K judges every solve.
    s_klu->setSingularPivot(0.0);
    return;
  }
  S = std::make_unique<CooMatrix>(nG, nG, std::move(rows), std::move(cols));
  CATENA_PETSC(MatCreateVecs(S->mat(), &s_sol, &s_rhs));
  CATENA_PETSC(KSPCreate(comm, &ksp));
  setUpDirectLu(ksp, S->mat(), prefix + "dd_", kSaddlePointWorkspacePercent);
}

/// This rank's part K_GI K_II^-1 K_IG of S: the blocks' parts (interior_block.hpp), each over
/// the boundary rows it touches.
void SchurDecomposition::Impl::schurPart(Eigen::MatrixXd& Sp, SchurStats& stats) {
  const auto nG = static_cast<Eigen::Index>(boundary_row.size());
  Sp.setZero(nG, nG);
  std::vector<Eigen::MatrixXd> parts_of(blocks.size());
  std::vector<long> windows(blocks.size(), 0);
  // The blocks are independent: one thread each (the same sums whatever the thread count).
  forEachBlock(blocks.size(), [&](std::size_t b) {
    blockSchurPart(blocks[b], couplings, parts_of[b], windows[b]);
  });
  for (std::size_t b = 0; b < blocks.size(); ++b) {
    const std::vector<PetscInt>& A = blocks[b].boundary;
    for (std::size_t h = 0; h < A.size(); ++h)
      for (std::size_t g = 0; g < A.size(); ++g) Sp(A[h], A[g]) += parts_of[b](h, g);
  }
  stats.window = *std::max_element(windows.begin(), windows.end());
}

/// Fills the interior blocks' values and factors them, one thread per block; singular: the
/// interior indices of every block's singular pivots.
Status SchurDecomposition::Impl::factorInterior(const double* ad, std::vector<int>& singular) {
  std::vector<Status> status(blocks.size());
  forEachBlock(blocks.size(), [&](std::size_t b) {
    InteriorBlock& blk = blocks[b];
    if (blk.size == 0) return;
    double* kv = blk.klu->values();
    for (std::size_t e = 0; e < blk.source.size(); ++e) kv[e] = ad[blk.source[e]];
    status[b] = blk.klu->factor();
  });
  singular.clear();
  Status first;
  for (const InteriorBlock& blk : blocks) {
    const Status& st = status[&blk - blocks.data()];
    if (st.ok()) continue;
    if (first.ok()) first = st;
    for (int c : blk.klu->singularColumns()) singular.push_back(blk.first + c);
  }
  return first;
}

Status SchurDecomposition::factor(Mat K) {
  last_failure_ = factorNow(K);
  return last_failure_;
}

Status SchurDecomposition::factorNow(Mat K) {
  Impl& m = *impl_;
  MPI_Comm comm = PetscObjectComm(reinterpret_cast<PetscObject>(K));
  m.factored = false;
  m.K = K;
  CATENA_PETSC(MatNorm(K, NORM_INFINITY, &m.norm));
  const LocalRows L(K);
  const Values d(L.Ad), o(L.Ao);
  // The interior blocks. With its interface held fixed, a block can be singular where K is not
  // (a straight stretch of chain pinned at both ends): its singular unknowns then join the
  // interface (S stays regular since K is) and every rank analyses again. The failed
  // factorization's blocks go to the next attempt's (suitesparse_memory.hpp) instead of back to
  // the kernel, which would zero and fault in as much again.
  const SuiteSparseBlockReuse reuse;
  Status st;
  for (int attempt = 0;; ++attempt) {
    if (!m.analysed) {
      const double a0 = processCpuSeconds();
      m.analyse(K, stats_);
      stats_.analysis_seconds += processCpuSeconds() - a0;
      m.analysed = true;
    }
    const double c0 = processCpuSeconds();
    std::vector<int> singular;
    const auto counts = [&m](long sign, SchurStats& s) {
      for (const InteriorBlock& blk : m.blocks)
        if (blk.klu) {
          s.full_factorizations += sign * blk.klu->fullFactorizations();
          s.refactorizations += sign * blk.klu->refactorizations();
        }
    };
    counts(-1, stats_);
    st = m.factorInterior(d.v, singular);
    counts(1, stats_);
    stats_.interior_seconds += processCpuSeconds() - c0;
    int retry = !st.ok() && !singular.empty() && attempt < kMaxReanalyses ? 1 : 0;
    int failed = st.ok() || retry ? 0 : 1;
    MPI_Allreduce(MPI_IN_PLACE, &retry, 1, MPI_INT, MPI_MAX, comm);
    MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, comm);
    if (failed) break;
    if (!retry) break;
    // Freeing a dependent constraint (a multiplier: no diagonal entry) lowers the rank
    // deficiency; pinning a coordinate can raise it, so coordinates move only when no multiplier
    // is among the singular unknowns.
    bool multiplier = false;
    for (int e : singular) multiplier = multiplier || !m.has_diagonal[m.interior_row[e]];
    for (int e : singular)
      if (!multiplier || !m.has_diagonal[m.interior_row[e]]) (*m.forced)[m.interior_row[e]] = 1;
    stats_.moved += static_cast<long>(singular.size());
    m.analysed = false;
  }
  // The failed rank with the largest index, and its code (a singular block, or KLU out of
  // memory: kResources), on every rank.
  int failed[2] = {st.ok() ? -1 : m.rank, static_cast<int>(st.code)};
  MPI_Allreduce(MPI_IN_PLACE, failed, 1, MPI_2INT, MPI_MAXLOC, comm);
  if (failed[0] >= 0) {
    const auto code = static_cast<Status::Code>(failed[1]);
    const bool singular = code == Status::Code::kSingular;
    std::ostringstream os;
    if (!st.ok())
      os << "rank " << m.rank << "'s interior block (" << m.interior_row.size()
         << " unknowns not coupled to other ranks, its interface held fixed) "
         << (singular ? "is singular: " : "could not be factored: ") << st.message;
    else
      os << "rank " << failed[0] << "'s interior block "
         << (singular ? "is singular" : "could not be factored") << " (that rank says why)";
    return Status::failure(code, os.str());
  }
  if (m.hasInterface()) {
    BoundaryCouplings& c = m.couplings;
    c.ig_value.resize(m.ig_source.size());
    for (std::size_t s = 0; s < m.ig_source.size(); ++s) c.ig_value[s] = d.v[m.ig_source[s]];
    c.gi_value.resize(m.gi_source.size());
    for (std::size_t s = 0; s < m.gi_source.size(); ++s) c.gi_value[s] = d.v[m.gi_source[s]];
    const double c0 = processCpuSeconds();
    Eigen::MatrixXd Sp;
    m.schurPart(Sp, stats_);
    const auto nG = static_cast<PetscInt>(m.boundary_row.size());
    for (PetscInt a = 0; a < nG; ++a)
      for (PetscInt b = 0; b < nG; ++b) {
        const PetscInt src = m.gg_source[a * nG + b];
        m.s_values[a * nG + b] = (src >= 0 ? d.v[src] : 0.0) - Sp(a, b);
      }
    for (std::size_t k = 0; k < m.go_source.size(); ++k)
      m.s_values[static_cast<std::size_t>(nG) * nG + k] = o.v[m.go_source[k]];
    stats_.schur_seconds += processCpuSeconds() - c0;
    const auto t0 = WallClock::now();
    if (m.s_klu) {
      // New pivots every time: S is small (about 19 unknowns per rank of a chain), and its
      // values change with every interior factorization.
      m.s_klu->forgetPivots();
      st = m.s_klu->factor(m.s_values.data());
      stats_.interface_cpu_seconds += m.s_klu->lastFactorSeconds();
    } else {
      m.S->set(m.s_values.data());
      st = factorDirectLu(m.ksp, m.S->mat());
    }
    stats_.interface_seconds += secondsSince(t0);
    if (!st.ok())
      return Status::failure(st.code, "the interface matrix of the domain decomposition (" +
                                          std::to_string(stats_.interface_total) +
                                          " unknowns) could not be factored: " + st.message);
  }
  stats_.factor_nonzeros = 0;
  int kept = 0;
  for (const InteriorBlock& blk : m.blocks)
    if (blk.klu) {
      stats_.factor_nonzeros += blk.klu->factorNonZeros();
      kept = kept || blk.klu->lastRefactored();
    }
  MPI_Allreduce(MPI_IN_PLACE, &kept, 1, MPI_INT, MPI_MAX, comm);
  m.kept_pivots = kept != 0;
  m.factored = true;
  return Status::success();
}

void SchurDecomposition::forgetAnalysis() {
  Impl& m = *impl_;
  m.factored = false;
  m.forgetBlockPivots();
  if (m.ksp) forgetDirectLu(m.ksp, m.S->mat(), kSaddlePointWorkspacePercent);
}

/// x = K^-1 b in one sweep per interior block (interior_block.hpp): y = U^-T Q^T b_I, the
/// interface's right-hand side r = b_G - K_GI K_II^-1 b_I from y's trailing pivots, x_G = S^-1 r,
/// then x_I = K_II^-1 (b_I - K_IG x_G) from y less the interface's terms. One thread per block.
Status SchurDecomposition::Impl::applyOnce(Vec b, Vec x) {
  const PetscScalar* bb = nullptr;
  CATENA_PETSC(VecGetArrayRead(b, &bb));
  const auto nI = static_cast<PetscInt>(interior_row.size());
  for (PetscInt e = 0; e < nI; ++e) t[e] = bb[interior_row[e]];
  forEachBlock(blocks.size(), [&](std::size_t k) {
    const InteriorBlock& blk = blocks[k];
    if (blk.size == 0) return;
    blk.klu->upperTransposedSolve(t.data() + blk.first, w.data() + blk.first);
    std::fill(block_r[k].begin(), block_r[k].end(), 0.0);
    blockInterfaceResidual(blk, w.data() + blk.first, block_r[k].data());
  });
  const auto nG = static_cast<PetscInt>(boundary_row.size());
  // The interface values x_G (s_x) from its right-hand side b_G - K_GI K_II^-1 b_I (s_b).
  const bool interface = hasInterface();
  if (interface) {
    for (PetscInt a = 0; a < nG; ++a) s_b[a] = bb[boundary_row[a]];
    for (std::size_t k = 0; k < blocks.size(); ++k)
      for (std::size_t h = 0; h < blocks[k].boundary.size(); ++h)
        s_b[blocks[k].boundary[h]] += block_r[k][h];
  }
  CATENA_PETSC(VecRestoreArrayRead(b, &bb));
  if (s_klu) {
    const Status st = s_klu->solve(s_b.data(), s_x.data());
    if (!st.ok()) return st;
  } else if (S) {
    PetscScalar* r = nullptr;
    CATENA_PETSC(VecGetArray(s_rhs, &r));
    std::copy(s_b.begin(), s_b.end(), r);
    CATENA_PETSC(VecRestoreArray(s_rhs, &r));
    CATENA_PETSC(KSPSolve(ksp, s_rhs, s_sol));
    const PetscScalar* xs = nullptr;
    CATENA_PETSC(VecGetArrayRead(s_sol, &xs));
    std::copy(xs, xs + nG, s_x.begin());
    CATENA_PETSC(VecRestoreArrayRead(s_sol, &xs));
  }
  forEachBlock(blocks.size(), [&](std::size_t k) {
    const InteriorBlock& blk = blocks[k];
    if (blk.size == 0) return;
    if (interface) {
      for (std::size_t g = 0; g < blk.boundary.size(); ++g) block_x[k][g] = s_x[blk.boundary[g]];
      blockInterfaceCorrection(blk, block_x[k].data(), w.data() + blk.first);
    }
    blk.klu->lowerTransposedSolve(w.data() + blk.first, t.data() + blk.first);
  });
  PetscScalar* xx = nullptr;
  CATENA_PETSC(VecGetArray(x, &xx));
  for (PetscInt e = 0; e < nI; ++e) xx[interior_row[e]] = t[e];
  for (PetscInt a = 0; a < nG && interface; ++a) xx[boundary_row[a]] = s_x[a];
  CATENA_PETSC(VecRestoreArray(x, &xx));
  return Status::success();
}

/// Iterative refinement while the backward error |b - K x| / (|K| |x| + |b|) (max norms)
/// exceeds kRefinedBackwardError, at most max_refinements steps: on IDA's Newton matrices stale
/// pivots left backward errors that loosened the converged constraints 30-fold (a 40-link
/// chain: |C| 2.3e-10 m against 8e-12 m with new pivots every time).
bool SchurDecomposition::Impl::refinedSolve(Vec b, Vec x, SchurStats& stats, Status& st) {
  st = applyOnce(b, x);
  PetscReal bn = 0.0;
  CATENA_PETSC(VecNorm(b, NORM_INFINITY, &bn));
  for (PetscInt k = 0; st.ok(); ++k) {
    CATENA_PETSC(MatMult(K, x, r));
    CATENA_PETSC(VecAYPX(r, -1.0, b));  // r = b - K x
    PetscReal rn = 0.0, xn = 0.0;
    CATENA_PETSC(VecNorm(r, NORM_INFINITY, &rn));
    CATENA_PETSC(VecNorm(x, NORM_INFINITY, &xn));
    const double scale = norm * xn + bn;
    if (k == 0 && scale > 0.0)
      stats.unrefined_backward_error = std::max(stats.unrefined_backward_error, rn / scale);
    if (!(rn > kRefinedBackwardError * scale)) return true;
    if (k == max_refinements) return false;
    st = applyOnce(r, dx);
    CATENA_PETSC(VecAXPY(x, 1.0, dx));
    ++stats.refinements;
  }
  return false;
}

Status SchurDecomposition::solve(Vec b, Vec x) {
  Impl& m = *impl_;
  CATENA_CHECK(m.factored, "SchurDecomposition::solve without a successful factor()");
  if (!m.r) {
    CATENA_PETSC(VecDuplicate(b, &m.r));
    CATENA_PETSC(VecDuplicate(b, &m.dx));
  }
  // Refactorizations keep their pivots while they stay sound (KluLu::acceptRefactorizationGrowth);
  // where refinement cannot reach its bound with kept pivots, every block chooses new pivots and
  // the solve starts again (collective: the norms and kept_pivots are the same on every rank).
  Status st;
  if (m.refinedSolve(b, x, stats_, st) || !st.ok() || !m.kept_pivots) return st;
  m.forgetBlockPivots();
  ++stats_.repivoted_solves;
  st = factorNow(m.K);
  if (st.ok()) m.refinedSolve(b, x, stats_, st);
  return st;
}

namespace {

PetscErrorCode shellSetUp(PC pc) {
  void* ctx = nullptr;
  PetscCall(PCShellGetContext(pc, &ctx));
  Mat A = nullptr, P = nullptr;
  PetscCall(PCGetOperators(pc, &A, &P));
  const Status st = static_cast<SchurDecomposition*>(ctx)->factor(P);
  if (!st.ok()) SETERRQ(PETSC_COMM_SELF, PETSC_ERR_MAT_LU_ZRPVT, "%s", st.message.c_str());
  return 0;
}

PetscErrorCode shellApply(PC pc, Vec b, Vec x) {
  void* ctx = nullptr;
  PetscCall(PCShellGetContext(pc, &ctx));
  // A failed set-up is an error of shellSetUp: no solve follows one.
  const Status st = static_cast<SchurDecomposition*>(ctx)->solve(b, x);
  if (!st.ok()) PetscCall(PCSetFailedReason(pc, PC_SUBPC_ERROR));
  return 0;
}

}  // namespace

void SchurDecomposition::attachTo(KSP ksp) {
  CATENA_PETSC(KSPSetType(ksp, KSPPREONLY));
  PC pc;
  CATENA_PETSC(KSPGetPC(ksp, &pc));
  CATENA_PETSC(PCSetType(pc, PCSHELL));
  CATENA_PETSC(PCShellSetContext(pc, this));
  CATENA_PETSC(PCShellSetSetUp(pc, &shellSetUp));
  CATENA_PETSC(PCShellSetApply(pc, &shellApply));
  CATENA_PETSC(PCShellSetName(pc, "catena Schur-complement domain decomposition"));
}

}  // namespace catena
