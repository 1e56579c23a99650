#include "io/json_writer.hpp"

#include <cmath>
#include <cstdio>

namespace catena {

void JsonWriter::separate() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!first_.back()) os_ << ",";
  first_.back() = false;
}

JsonWriter& JsonWriter::open(char bracket) {
  separate();
  os_ << bracket;
  first_.push_back(true);
  return *this;
}

JsonWriter& JsonWriter::close(char bracket) {
  first_.pop_back();
  os_ << bracket;
  return *this;
}

JsonWriter& JsonWriter::beginObject() {
  return open('{');
}
JsonWriter& JsonWriter::endObject() {
  return close('}');
}
JsonWriter& JsonWriter::beginArray() {
  return open('[');
}
JsonWriter& JsonWriter::endArray() {
  return close(']');
}

JsonWriter& JsonWriter::array(const std::vector<std::string>& v) {
  beginArray();
  for (const std::string& x : v) value(x);
  return endArray();
}

JsonWriter& JsonWriter::key(const std::string& k) {
  separate();
  writeString(k);
  os_ << ":";
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::value(double v) {
  separate();
  if (!std::isfinite(v)) {
    os_ << "null";
  } else {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    os_ << buf;
  }
  return *this;
}

JsonWriter& JsonWriter::value(long v) {
  separate();
  os_ << v;
  return *this;
}

JsonWriter& JsonWriter::value(bool v) {
  separate();
  os_ << (v ? "true" : "false");
  return *this;
}

JsonWriter& JsonWriter::value(const std::string& v) {
  separate();
  writeString(v);
  return *this;
}

void JsonWriter::writeString(const std::string& v) {
  os_ << '"';
  for (const unsigned char c : v) {
    switch (c) {
      case '"':
        os_ << "\\\"";
        break;
      case '\\':
        os_ << "\\\\";
        break;
      case '\n':
        os_ << "\\n";
        break;
      case '\t':
        os_ << "\\t";
        break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          os_ << buf;
        } else {
          os_ << c;
        }
    }
  }
  os_ << '"';
}

}  // namespace catena
