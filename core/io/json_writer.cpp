#include "io/json_writer.h"
#include "base/float_text.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace core {

void JsonWriter::key(std::string_view name) {
    value(name);
    out_ << ':';
    afterKey_ = true;
}

void JsonWriter::value(std::string_view text) {
    separate();
    out_ << '"';
    for (unsigned char c : text) {
        switch (c) {
        case '"':
            out_ << "\\\"";
            break;
        case '\\':
            out_ << "\\\\";
            break;
        case '\n':
            out_ << "\\n";
            break;
        case '\r':
            out_ << "\\r";
            break;
        case '\t':
            out_ << "\\t";
            break;
        default:
            if (c < 0x20) {
                char buf[8];
                std::snprintf(buf, sizeof buf, "\\u%04x", c);
                out_ << buf;
            } else {
                out_ << char(c); // text is valid UTF-8 (the tokenizer sanitizes it)
            }
        }
    }
    out_ << '"';
}

void JsonWriter::value(Scalar number) {
    separate();
    if (!std::isfinite(number)) { // JSON has no inf/NaN; the engine never stores them
        out_ << "null";
        return;
    }
    char buf[32];
    const char* end = digits_ > 0 ? writeDigits(buf, sizeof buf, number, digits_)
                                  : writeShortest(buf, sizeof buf, number);
    out_.write(buf, end - buf);
}

void JsonWriter::matrix(const Mat& m, Eigen::Index row0, Eigen::Index rows) {
    beginArray();
    for (Eigen::Index r = row0; r < row0 + rows; ++r) {
        beginArray();
        for (Eigen::Index c = 0; c < m.cols(); ++c) value(m(r, c));
        endArray();
    }
    endArray();
}

void JsonWriter::tensor3(const Mat& m, Eigen::Index inner) {
    beginArray();
    for (Eigen::Index r = 0; r < m.rows(); r += inner) matrix(m, r, inner);
    endArray();
}

} // namespace core
