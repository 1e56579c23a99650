#pragma once
/// @file reference_odes.hpp
/// Independent reference solutions for the dynamics verification: each test problem written in
/// minimal coordinates as a plain ODE and integrated by SUNDIALS ARKODE (ERKStep) at tight
/// tolerance. Nothing here uses catena's multibody formulation, so agreement with catena's
/// integrators is evidence, not a tautology. Every solution starts at t = 0 and is returned at
/// the requested output times (non-decreasing, >= 0), which the integrator hits exactly.

#include <Eigen/Dense>

#include <functional>
#include <vector>

namespace catena::reference {

/// Explicit Runge-Kutta tables of ARKODE 6.4.1 used here.
enum class ErkTable {
  kDormandPrince45,  ///< ARKODE_DORMAND_PRINCE_7_4_5: the papers' ode45
  kFehlberg78,       ///< ARKODE_FEHLBERG_13_7_8: 8th order (6.4.1 has no Verner 8th-order table)
};

struct OdeOptions {
  double rtol = 1e-12;
  double atol = 1e-14;
  ErkTable table = ErkTable::kFehlberg78;
  long max_steps = 1'000'000;  ///< per output interval (ARKODE counts per ERKStepEvolve call)
};

/// y' = F(t, y); F must return a vector of the size of y.
using OdeRhs = std::function<Eigen::VectorXd(double t, const Eigen::VectorXd& y)>;

/// Integrates y' = F(t, y), y(t0) = y0 with ERKStep and returns Y (n x times.size()) with
/// Y.col(k) = y(times[k]). The integrator stops exactly at each output time (no dense-output
/// interpolation error). An exception thrown by F is reported as an ARKODE failure.
/// @throws std::invalid_argument if times are decreasing or before t0;
///         std::runtime_error naming ARKODE's flag and message if the integration fails.
Eigen::MatrixXd integrateOde(const OdeRhs& f, double t0, const Eigen::VectorXd& y0,
                             const std::vector<double>& times, const OdeOptions& options = {});

// ---------------------------------------------------------------------------------------------
// Planar pendulum: point mass on a massless rod of length L [m], gravity g [m/s^2].
// theta [rad] from the downward vertical; theta'' = -(g/L) sin(theta).
// In the plane (x horizontal, y up, pivot at the origin): r = L (sin theta, -cos theta).

struct PlanarPendulumSolution {
  Eigen::VectorXd theta, theta_dot;  // [rad], [rad/s] at each output time
};

PlanarPendulumSolution planarPendulum(double L, double g, double theta0, double omega0,
                                      const std::vector<double>& times,
                                      const OdeOptions& options = {});

// ---------------------------------------------------------------------------------------------
// Spherical pendulum: point mass m [kg] on a massless rod of length L [m], spherical joint at
// the origin, gravity (0, 0, -g). Integrated in spherical coordinates (theta = polar angle
// from the -z axis, phi = azimuth about +z from +x): r = L (sin th cos ph, sin th sin ph,
// -cos th). Both poles (hanging straight down or standing straight up) are chart
// singularities; a trajectory with sin(theta) < 1e-3 (L_z too small) throws
// std::runtime_error. Energy and L_z below are the invariants, in Cartesian form so they can
// be applied to any solver's output.

struct SphericalPendulumSolution {
  Eigen::Matrix3Xd r, v;  // position [m] and velocity [m/s]; column k at times[k]
};

/// r0: initial position with |r0| = L; v0: initial velocity, tangent (r0 . v0 = 0).
/// @throws std::invalid_argument if |r0| != L, v0 is not tangent (relative 1e-9) or r0 is
///         within the pole cone; std::runtime_error if the trajectory nears a pole.
SphericalPendulumSolution sphericalPendulum(double m, double L, double g, const Eigen::Vector3d& r0,
                                            const Eigen::Vector3d& v0,
                                            const std::vector<double>& times,
                                            const OdeOptions& options = {});

/// E = m |v|^2 / 2 + m g r_z [J] (zero potential at the pivot height).
double sphericalPendulumEnergy(double m, double g, const Eigen::Vector3d& r,
                               const Eigen::Vector3d& v);
/// L_z = m (r_x v_y - r_y v_x) [kg m^2/s], conserved because gravity is along z.
double sphericalPendulumAngularMomentumZ(double m, const Eigen::Vector3d& r,
                                         const Eigen::Vector3d& v);

// ---------------------------------------------------------------------------------------------
// Double pendulum of the rotation-matrix paper (rotation-matrix-elements-double-pendulum.md,
// sec. 4 and 6), its reference ODE (26). Two identical homogeneous bars, mass m [kg], length
// l [m], section a x b (a in the plane of motion, b along z0; b does not enter),
// C = m (l^2 + a^2) / 12 about the bar's centre and z0.
// Frame (paper, Fig. 1): x0 vertical pointing DOWN, y0 horizontal, z0 = x0 x y0 out of the
// plane; gravity g along +x0. Bar 1 is hinged at O, bar 2 at the tip H1 of bar 1.
// phi = angle from x0 to bar 1 (O -> H1), psi = angle from x0 to bar 2 (H1 -> tip), both
// ABSOLUTE (not relative to bar 1), positive from x0 towards y0 (counter-clockwise about z0):
//   H1 = l (cos phi, sin phi),  G1 = H1 / 2,  G2 = H1 + (l/2) (cos psi, sin psi)  in (x0, y0).
// (26):  (C + 5/4 m l^2) phi'' + m l^2/2 [cos(phi-psi) psi'' + sin(phi-psi) psi'^2]
//                                                                    + 3/2 m g l sin phi = 0
//        (C + 1/4 m l^2) psi'' + m l^2/2 [cos(phi-psi) phi'' - sin(phi-psi) phi'^2]
//                                                                    + 1/2 m g l sin psi = 0
// Paper case: m = 0.108, l = 0.20, a = 0.02 (b = 0.01), phi0 = 20 deg, psi0 = 10 deg, at rest.

struct DoublePendulumSolution {
  Eigen::VectorXd phi, psi, phi_dot, psi_dot;  // [rad], [rad/s] at each output time
};

DoublePendulumSolution doublePendulumTwoAngle(double m, double l, double a, double g, double phi0,
                                              double psi0, double phidot0, double psidot0,
                                              const std::vector<double>& times,
                                              const OdeOptions& options = {});

/// E = T + V [J], V = -m g l (3/2 cos phi + 1/2 cos psi) (zero at the height of O).
double doublePendulumEnergy(double m, double l, double a, double g, double phi, double psi,
                            double phidot, double psidot);

/// Hinge H1 and centres of mass G1, G2 in the paper frame (x0 down, y0 horizontal) [m].
struct DoublePendulumPoints {
  Eigen::Vector2d h1, g1, g2;
};
DoublePendulumPoints doublePendulumPoints(double l, double phi, double psi);

// ---------------------------------------------------------------------------------------------
// inputs/double_four_bar.yaml on its parallelogram branch (QRCP paper, sec. 3.2): three 1 m,
// 1 kg cranks turning together about their ends (I = 1/3 kg m^2 each), two 1 kg couplers
// translating at |omega| L; theta the cranks' angle from +x, theta(0) = pi/2, omega(0) = -1 rad/s.

/// The times [s] at which the cranks pass horizontal, first at theta = 0 and then at -pi, from
/// the energy in closed form, E = 1/2 (3 / 3 + 2) omega^2 + 3.5 g sin(theta) = const, and
/// t(theta) = integral of dtheta / |omega| (Simpson, 2e4 panels: ~1e-15 s); g = 9.81 m/s^2.
std::vector<double> doubleFourBarHorizontalTimes();

}  // namespace catena::reference
