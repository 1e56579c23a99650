#include "io/vtk_writer.hpp"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <numbers>

#include "core/check.hpp"
#include "kernels/pose.hpp"

namespace catena {
namespace {

/// A point fixed on a body (or on the ground) and how it moves with a mode shape.
struct Point {
  Index body;
  Vec3 position;  ///< world, at equilibrium
};

Vec3 pointDisplacement(const Model& m, const State& s, const Point& p, const VecX& shape) {
  if (p.body == kGround) return Vec3::Zero();
  const Index o = m.vOffset(p.body);
  const Vec3 r = s.q.segment<3>(m.qOffset(p.body));
  if (m.dimension == 2) {
    const Vec2 arm = p.position.head<2>() - Vec2(r.x(), r.y());
    return Vec3(shape(o) - shape(o + 2) * arm.y(), shape(o + 1) + shape(o + 2) * arm.x(), 0.0);
  }
  const Pose3 pose = pose3(s.q.data() + m.qOffset(p.body));
  const Vec3 theta_world = pose.R * shape.segment<3>(o + 3);
  return shape.segment<3>(o) + theta_world.cross(p.position - r);
}

}  // namespace

std::string writeModeAnimation(const std::string& dir, const std::string& stem, const Model& m,
                               const State& s, const Mode& mode, int index, double amplitude,
                               int frames) {
  std::filesystem::create_directories(dir);
  // Points: body origins, then each joint's F1 point (seen from both of its bodies).
  std::vector<Point> points;
  std::vector<std::array<int, 2>> lines;
  for (std::size_t b = 0; b < m.bodies.size(); ++b)
    points.push_back({static_cast<Index>(b), s.q.segment<3>(m.qOffset(b))});
  if (m.dimension == 2)
    for (Point& p : points) p.position.z() = 0.0;
  for (const Joint& j : m.joints) {
    const Vec3 at = markerPosition(m, s.q.data(), j.marker1);
    for (Index b : {m.markerBody(j.marker1), m.markerBody(j.marker2)}) {
      points.push_back({b, at});
      if (b != kGround) lines.push_back({static_cast<int>(b), static_cast<int>(points.size()) - 1});
    }
  }
  double largest = 0.0;
  std::vector<Vec3> re(points.size()), im(points.size());
  for (std::size_t i = 0; i < points.size(); ++i) {
    re[i] = pointDisplacement(m, s, points[i], mode.shape_re);
    im[i] = pointDisplacement(m, s, points[i], mode.shape_im);
    largest = std::max(largest, std::sqrt(re[i].squaredNorm() + im[i].squaredNorm()));
  }
  const double scale = largest > 0.0 ? amplitude / largest : 0.0;
  const std::string base = stem + "_mode_" + std::to_string(index);
  std::ofstream pvd(dir + "/" + base + ".pvd");
  CATENA_CHECK(pvd, "cannot write " << dir << "/" << base << ".pvd");
  pvd << "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"0.1\">\n<Collection>\n";
  for (int f = 0; f < frames; ++f) {
    const double phase = 2.0 * std::numbers::pi * f / frames;
    const std::string name = base + "_" + std::to_string(f) + ".vtp";
    std::ofstream os(dir + "/" + name);
    CATENA_CHECK(os, "cannot write " << dir << "/" << name);
    os.precision(12);
    os << "<?xml version=\"1.0\"?>\n<VTKFile type=\"PolyData\" version=\"0.1\">\n<PolyData>\n"
       << "<Piece NumberOfPoints=\"" << points.size() << "\" NumberOfLines=\"" << lines.size()
       << "\">\n<Points>\n<DataArray type=\"Float64\" NumberOfComponents=\"3\" "
          "format=\"ascii\">\n";
    std::vector<Vec3> d(points.size());
    for (std::size_t i = 0; i < points.size(); ++i) {
      d[i] = scale * (re[i] * std::cos(phase) - im[i] * std::sin(phase));
      const Vec3 x = points[i].position + d[i];
      os << x.x() << " " << x.y() << " " << x.z() << "\n";
    }
    os << "</DataArray>\n</Points>\n<Lines>\n"
       << "<DataArray type=\"Int32\" Name=\"connectivity\" format=\"ascii\">\n";
    for (const auto& l : lines) os << l[0] << " " << l[1] << "\n";
    os << "</DataArray>\n<DataArray type=\"Int32\" Name=\"offsets\" format=\"ascii\">\n";
    for (std::size_t i = 0; i < lines.size(); ++i) os << 2 * (i + 1) << "\n";
    os << "</DataArray>\n</Lines>\n<PointData Vectors=\"displacement\">\n"
       << "<DataArray type=\"Float64\" Name=\"displacement\" NumberOfComponents=\"3\" "
          "format=\"ascii\">\n";
    for (const Vec3& x : d) os << x.x() << " " << x.y() << " " << x.z() << "\n";
    os << "</DataArray>\n</PointData>\n</Piece>\n</PolyData>\n</VTKFile>\n";
    CATENA_CHECK(os.good(), "failed writing " << dir << "/" << name);
    pvd << "<DataSet timestep=\"" << f << "\" file=\"" << name << "\"/>\n";
  }
  pvd << "</Collection>\n</VTKFile>\n";
  CATENA_CHECK(pvd.good(), "failed writing " << dir << "/" << base << ".pvd");
  return dir + "/" + base + ".pvd";
}

}  // namespace catena
