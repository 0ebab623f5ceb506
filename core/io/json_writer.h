// A small streaming JSON writer: floats in their shortest round-trip form
// (std::to_chars), so a 512 x 512 map costs no DOM and stays exact.
#pragma once

#include "engine/scalar.h"

#include <ostream>
#include <string_view>

namespace core {

class JsonWriter {
  public:
    explicit JsonWriter(std::ostream& out) : out_(out) {}

    // Floats with this many significant digits (1..9), for a smaller file that reads back
    // close; 0 (the default): the shortest text that reads back as the same float.
    void setPrecision(int digits) { digits_ = digits; }

    void beginObject() {
        separate();
        out_ << '{';
        first_ = true;
    }
    void endObject() {
        out_ << '}';
        first_ = false;
    }
    void beginArray() {
        separate();
        out_ << '[';
        first_ = true;
    }
    void endArray() {
        out_ << ']';
        first_ = false;
    }
    void key(std::string_view name);
    void value(std::string_view text);
    void value(const char* text) { value(std::string_view(text)); }
    void value(bool flag) {
        separate();
        out_ << (flag ? "true" : "false");
    }
    void value(long long number) {
        separate();
        out_ << number;
    }
    void value(unsigned long long number) {
        separate();
        out_ << number;
    }
    void value(int number) { value(static_cast<long long>(number)); }
    void null() {
        separate();
        out_ << "null";
    }
    void value(Scalar number);
    template <class T>
    void field(std::string_view name, const T& v) {
        key(name);
        value(v);
    }

    // rows [row0, row0 + rows) of m as a nested array [rows][m.cols()]
    void matrix(const Mat& m, Eigen::Index row0, Eigen::Index rows);
    void matrix(const Mat& m) { matrix(m, 0, m.rows()); }
    // m viewed as [m.rows() / inner][inner][m.cols()]
    void tensor3(const Mat& m, Eigen::Index inner);

  private:
    void separate() {
        if (!first_ && !afterKey_) out_ << ',';
        first_ = false;
        afterKey_ = false;
    }
    std::ostream& out_;
    bool first_ = true;
    bool afterKey_ = false;
    int digits_ = 0;
};

} // namespace core
