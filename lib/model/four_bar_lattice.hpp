#pragma once
/// @file four_bar_lattice.hpp
/// Four-bar lattice (QRCP paper, sections 3.2-3.5): L levels of K parallelogram cells in the x-y
/// plane. Level l has K + 1 cranks "crank_l_j" of length h at angle phi and, on top, either K
/// couplers "coupler_l_k" of width w (unmerged) or one coupler "coupler_l" of length K w
/// (merged). Level-0 cranks hinge to the ground, level-l cranks to the coupler(s) of level l-1.
/// L=1, K=2 unmerged is the paper's double four-bar; merged L=1,K=2 / L=1,K=3 / L=2,K=2 are its
/// modified double, modified triple and modified 2x2 mechanisms. Bars are slender (I = m l^2/12).
/// In 3D (a ModelBuilder of dimension 3) the same lattice in the x-y plane with full revolutes
/// about z: each closed loop then repeats 3 out-of-plane rows (the double four-bar: 35 rows of
/// rank 29, 6 redundant), and the bars are thin rods (radius 1 % of their length).
///
/// Natural body numbering (that of addFourBarLattice): level by level, the level's cranks
/// j = 0..K, then its couplers. Every joint is held by a crank (its body 1): the bottom hinge
/// "hinge_crank_l_j_bottom" and the top hinges "..._top_left" (j > 0, to coupler (l, j-1)) and
/// "..._top_right" (j < K, to coupler (l, j)). The part builder below makes the piece of an
/// unmerged lattice that one rank of a graph partition holds (docs/parallel.md), from indices
/// alone; parallel/lattice_part.hpp chooses the pieces.

#include <vector>

#include "model/model_builder.hpp"
#include "model/model_part.hpp"

namespace catena {

struct FourBarLatticeOptions {
  int levels = 1;                           ///< L >= 1
  int cells = 2;                            ///< K >= 1
  bool merged_couplers = false;             ///< one coupler body per level
  double cell_width = 1.0;                  ///< w, m
  double crank_length = 1.0;                ///< h, m
  double crank_angle = 1.5707963267948966;  ///< phi, rad from +x (initial configuration)
  double crank_rate = 0.0;                  ///< initial d(phi)/dt of every crank, rad/s
  double mass_per_length = 1.0;             ///< kg/m
  /// Per level l: the cranks' angle phi_l (rad from +x) and rate (rad/s); empty: crank_angle
  /// and crank_rate for every level. A level's cranks stand on the couplers of the level below,
  /// so the levels of a merged lattice move independently (the paper's 2 x 2 has 2 DOF).
  std::vector<double> level_angles, level_rates;
};

/// L levels of K cells, level l leaning from hanging straight down by lean sin(1 + l) rad: every
/// level by its own angle, so that a Newton start has to swing each one down and a release
/// excites a mix of modes.
FourBarLatticeOptions leaningFourBarLattice(int levels, int cells, double lean);

/// The levels' angles from hanging straight down at the start (rad, level 0 first): each level's
/// crank angle (level_angles, or crank_angle for all) + pi/2.
std::vector<double> fourBarLatticeInitialAngles(const FourBarLatticeOptions& options);

/// The levels' angles from hanging straight down (rad, level 0 first) at positions q of a lattice
/// model or part m: each level's first crank's ("crank_<l>_0"; a level's cranks stay parallel),
/// read from the first `owned_bodies` bodies only and 0 for a level whose crank is not among
/// them, so that the sum over the ranks of a distributed lattice gives every level once.
std::vector<double> fourBarLatticeLevelAngles(const Model& m, const VecX& q, Index owned_bodies,
                                              int levels);

/// Adds the lattice to a 2D builder (gravity is not touched). Throws catena::Error for a 3D
/// builder, L or K < 1, a non-positive width, length or mass per length, or level_angles /
/// level_rates of a size other than 0 or L.
void addFourBarLattice(ModelBuilder& builder, const FourBarLatticeOptions& options);
/// Convenience: a finalized lattice with gravity (0, -9.81).
Model buildFourBarLattice(const FourBarLatticeOptions& options);

/// Bodies and joints of the lattice (natural numbering above).
Index fourBarLatticeBodies(const FourBarLatticeOptions& options);
Index fourBarLatticeJoints(const FourBarLatticeOptions& options);
/// Joints held by natural body b (3 for an inner crank, 2 for an edge crank, 0 for a coupler).
int fourBarLatticeHeldJoints(const FourBarLatticeOptions& options, Index b);
/// The bodies that share a joint with natural body b, ascending (the ground left out). Unmerged.
std::vector<Index> fourBarLatticeNeighbours(const FourBarLatticeOptions& options, Index b);

/// Which bodies a rank holds: its owned bodies in local order with their global indices
/// first_body, first_body + 1, ... (a graph partition renumbers the bodies so that every rank
/// owns a contiguous range), and its ghost bodies.
struct LatticePartLayout {
  std::vector<Index> owned;          ///< natural index of local body i < owned.size()
  Index first_body = 0;              ///< global index of owned[0]
  std::vector<Index> ghost_natural;  ///< natural index of every ghost body, in local order
  std::vector<Index> ghost_global;   ///< their global indices (all owned by other ranks)
  Index first_joint = 0;  ///< global index of the part's first joint (joints of lower ranks)
};

/// The ghosts a part of an unmerged lattice needs: the couplers that its owned cranks' joints
/// reach and that it does not own (`owned`: natural indices, any order), ascending.
std::vector<Index> fourBarLatticeGhosts(const FourBarLatticeOptions& options,
                                        const std::vector<Index>& owned);

/// The part with the given layout of an unmerged lattice, finalized, gravity (0, -9.81): the
/// owned bodies (each identical to the same body of buildFourBarLattice), then the ghosts; the
/// joints held by the owned cranks, body by body in local order, each crank's bottom, top-left
/// and top-right hinge. O(L + local size) work; never builds the whole lattice.
ModelPart buildFourBarLatticePart(const FourBarLatticeOptions& options,
                                  const LatticePartLayout& layout);

/// Independent reference: the frequencies (Hz, ascending) of the small oscillations of an
/// unmerged lattice hanging at rest (every crank straight down, phi = -pi/2) under gravity g
/// (m/s^2), from the L x L Lagrange equations in the cranks' angles (a level's cranks turn
/// together, its couplers translate). The lowest `count` of them.
std::vector<double> hangingFourBarLatticeFrequencies(const FourBarLatticeOptions& options, double g,
                                                     int count);

/// The shape of the slowest small oscillation of the hanging lattice: the levels' angles
/// (level 0 first), scaled so that the largest is 1 in magnitude and the top level's positive.
std::vector<double> hangingFourBarLatticeLowestMode(const FourBarLatticeOptions& options, double g);

/// Independent reference for a release, from the same L x L Lagrange equations: the levels'
/// angles from straight down (rad, level 0 first) at time t (s) of the small oscillations of the
/// lattice released at rest with the angles theta0 (rad, one per level). Linear theory: it
/// differs from the motion by O(theta^3) (sin theta = theta - theta^3/6).
std::vector<double> hangingFourBarLatticeSmallMotion(const FourBarLatticeOptions& options, double g,
                                                     const std::vector<double>& theta0, double t);

}  // namespace catena
