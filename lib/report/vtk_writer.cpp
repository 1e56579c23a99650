#include "report/vtk_writer.hpp"

#include <array>
#include <cmath>
#include <numbers>
#include <vector>

#include "io/output_file.hpp"
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

/// One VTK XML PolyData file of line segments, with an optional point vector field.
void writeLines(const std::string& path, const std::vector<Vec3>& points,
                const std::vector<std::array<int, 2>>& lines, const std::vector<Vec3>* field,
                const char* field_name) {
  OutputFile file(path);
  std::ostream& os = file.stream();
  os.precision(12);
  os << "<?xml version=\"1.0\"?>\n<VTKFile type=\"PolyData\" version=\"0.1\">\n<PolyData>\n"
     << "<Piece NumberOfPoints=\"" << points.size() << "\" NumberOfLines=\"" << lines.size()
     << "\">\n<Points>\n<DataArray type=\"Float64\" NumberOfComponents=\"3\" "
        "format=\"ascii\">\n";
  for (const Vec3& x : points) os << x.x() << " " << x.y() << " " << x.z() << "\n";
  os << "</DataArray>\n</Points>\n<Lines>\n"
     << "<DataArray type=\"Int32\" Name=\"connectivity\" format=\"ascii\">\n";
  for (const auto& l : lines) os << l[0] << " " << l[1] << "\n";
  os << "</DataArray>\n<DataArray type=\"Int32\" Name=\"offsets\" format=\"ascii\">\n";
  for (std::size_t i = 0; i < lines.size(); ++i) os << 2 * (i + 1) << "\n";
  os << "</DataArray>\n</Lines>\n";
  if (field) {
    os << "<PointData Vectors=\"" << field_name << "\">\n<DataArray type=\"Float64\" Name=\""
       << field_name << "\" NumberOfComponents=\"3\" format=\"ascii\">\n";
    for (const Vec3& x : *field) os << x.x() << " " << x.y() << " " << x.z() << "\n";
    os << "</DataArray>\n</PointData>\n";
  }
  os << "</Piece>\n</PolyData>\n</VTKFile>\n";
  file.commit();
}

}  // namespace

std::string writeModeAnimation(const std::string& dir, const std::string& stem, const Model& m,
                               const State& s, const Mode& mode, int index, double amplitude,
                               int frames) {
  createOutputDirectory(dir);
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
  OutputFile pvd_file(dir + "/" + base + ".pvd");
  std::ostream& pvd = pvd_file.stream();
  pvd << "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"0.1\">\n<Collection>\n";
  for (int f = 0; f < frames; ++f) {
    const double phase = 2.0 * std::numbers::pi * f / frames;
    const std::string name = base + "_" + std::to_string(f) + ".vtp";
    std::vector<Vec3> d(points.size()), x(points.size());
    for (std::size_t i = 0; i < points.size(); ++i) {
      d[i] = scale * (re[i] * std::cos(phase) - im[i] * std::sin(phase));
      x[i] = points[i].position + d[i];
    }
    writeLines(dir + "/" + name, x, lines, &d, "displacement");
    pvd << "<DataSet timestep=\"" << f << "\" file=\"" << name << "\"/>\n";
  }
  pvd << "</Collection>\n</VTKFile>\n";
  pvd_file.commit();
  return dir + "/" + base + ".pvd";
}

VtkSeriesWriter::VtkSeriesWriter(const std::string& dir, const std::string& stem,
                                 const Model& model)
    : dir_(dir), stem_(stem), model_(model) {
  createOutputDirectory(dir);
}

VtkSeriesWriter::~VtkSeriesWriter() {
  try {
    close();
  } catch (...) {  // a destructor must not throw; close() reports errors when called directly
  }
}

void VtkSeriesWriter::write(const State& s) {
  const Model& m = model_;
  // Body origins, then for each joint its F1 point on body 1 and F2 point on body 2 (they
  // coincide where the joint locks translations; a gap shows a drifting constraint).
  std::vector<Vec3> points;
  std::vector<std::array<int, 2>> lines;
  auto origin = [&](Index b) -> Vec3 {
    Vec3 r = s.q.segment<3>(m.qOffset(b));
    if (m.dimension == 2) r.z() = 0.0;
    return r;
  };
  for (std::size_t b = 0; b < m.bodies.size(); ++b) points.push_back(origin(static_cast<Index>(b)));
  for (const Joint& j : m.joints)
    for (Index marker : {j.marker1, j.marker2}) {
      points.push_back(markerPosition(m, s.q.data(), marker));
      const Index b = m.markerBody(marker);
      if (b != kGround) lines.push_back({static_cast<int>(b), static_cast<int>(points.size()) - 1});
    }
  const std::string name = stem_ + "_" + std::to_string(times_.size()) + ".vtp";
  writeLines(dir_ + "/" + name, points, lines, nullptr, "");
  times_.push_back(s.t);
}

std::string VtkSeriesWriter::close() {
  const std::string path = dir_ + "/" + stem_ + ".pvd";
  OutputFile file(path);
  std::ostream& pvd = file.stream();
  pvd.precision(12);
  pvd << "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"0.1\">\n<Collection>\n";
  for (std::size_t k = 0; k < times_.size(); ++k)
    pvd << "<DataSet timestep=\"" << times_[k] << "\" file=\"" << stem_ << "_" << k << ".vtp\"/>\n";
  pvd << "</Collection>\n</VTKFile>\n";
  file.commit();
  return path;
}

}  // namespace catena
