#pragma once
/// @file json_writer.hpp
/// A small streaming JSON writer for run summaries (no JSON library is among the dependencies).
/// Usage: JsonWriter j(os); j.beginObject(); j.key("n").value(3); j.endObject();
/// Non-finite numbers are written as null (JSON has no NaN).

#include <ostream>
#include <string>
#include <vector>

namespace catena {

/// The "units" entry of every JSON summary (statics, modal, mobility, simulate): one wording.
/// Keys with a unit of their own say it (`t_reached_s`, `energy_initial_J`).
inline constexpr const char* kJsonUnits = "SI: m, kg, s, N, J, rad; frequencies in Hz";

class JsonWriter {
 public:
  explicit JsonWriter(std::ostream& os) : os_(os) {}
  JsonWriter& beginObject();
  JsonWriter& endObject();
  JsonWriter& beginArray();
  JsonWriter& endArray();
  JsonWriter& key(const std::string& k);
  JsonWriter& value(double v);
  JsonWriter& value(long v);
  JsonWriter& value(int v) { return value(static_cast<long>(v)); }
  JsonWriter& value(bool v);
  JsonWriter& value(const std::string& v);
  JsonWriter& value(const char* v) { return value(std::string(v)); }
  /// An array of numbers.
  template <typename Vector>
  JsonWriter& array(const Vector& v) {
    beginArray();
    for (auto x : v) value(static_cast<double>(x));
    return endArray();
  }
  /// An array of strings.
  JsonWriter& array(const std::vector<std::string>& v);

 private:
  JsonWriter& open(char bracket);   ///< '{' or '['
  JsonWriter& close(char bracket);  ///< '}' or ']'
  void separate();
  void writeString(const std::string& v);
  std::ostream& os_;
  std::vector<bool> first_{true};  ///< per nesting level: no element written yet
  bool after_key_ = false;
};

}  // namespace catena
