#include "io/csv_table.h"
#include "base/float_text.h"

#include "base/csv_field.h"

#include <charconv>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>

namespace core {

namespace {

[[noreturn]] void refuse(int line, const std::string& what) {
    throw std::invalid_argument("CSV line " + std::to_string(line) + ": " + what);
}

// Reads one record from `pos` (RFC 4180: "" inside quotes is a quote, quoted fields may hold
// commas and line breaks); advances pos and line past its line break. Empty at the end.
std::optional<std::vector<std::string>> nextRecord(std::string_view text, std::size_t& pos,
                                                   int& line) {
    if (pos >= text.size()) return std::nullopt;
    std::vector<std::string> fields(1);
    const int firstLine = line;
    bool quoted = false;
    for (; pos < text.size(); ++pos) {
        const char c = text[pos];
        if (quoted) {
            if (c == '"' && pos + 1 < text.size() && text[pos + 1] == '"') {
                fields.back() += '"', ++pos;
            } else if (c == '"') {
                quoted = false;
            } else {
                line += c == '\n';
                fields.back() += c;
            }
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            fields.emplace_back();
        } else if (c == '\n') {
            ++pos, ++line;
            break;
        } else if (c != '\r') {
            fields.back() += c;
        }
    }
    if (quoted) refuse(firstLine, "a quoted field is not closed");
    return fields;
}

std::string_view trimmed(std::string_view s) {
    const auto first = s.find_first_not_of(" \t");
    if (first == std::string_view::npos) return {};
    return s.substr(first, s.find_last_not_of(" \t") - first + 1);
}

bool blank(const std::vector<std::string>& record) {
    return record.size() == 1 && trimmed(record[0]).empty();
}

// A number as written by any CSV tool; nullopt when it is not one. Empty is NaN (missing).
std::optional<double> number(std::string_view field) {
    field = trimmed(field);
    if (field.empty()) return std::numeric_limits<double>::quiet_NaN();
    if (field.front() == '+') field.remove_prefix(1); // from_chars takes no plus sign
    double value = 0;
    if (!parseReal(field, value)) return std::nullopt;
    return value;
}

// A field as the error message quotes it: one line, at most 40 characters.
std::string shown(const std::string& field) {
    std::string out;
    for (char c : field.substr(0, 40)) out += static_cast<unsigned char>(c) < 0x20 ? ' ' : c;
    return field.size() > 40 ? out + "..." : out;
}

void readHeader(CsvTable& table, const std::vector<std::string>& header, int line) {
    for (std::size_t c = 0; c < header.size(); ++c) {
        const std::string name(trimmed(header[c]));
        if (name.empty()) refuse(line, "column " + std::to_string(c + 1) + " has no name");
        if (table.find(name)) refuse(line, "column \"" + shown(name) + "\" appears twice");
        table.names.push_back(name);
        table.columns.emplace_back();
    }
}

} // namespace

const std::vector<double>* CsvTable::find(std::string_view name) const {
    for (std::size_t c = 0; c < names.size(); ++c)
        if (names[c] == name) return &columns[c];
    return nullptr;
}

const std::vector<double>& CsvTable::column(std::string_view name) const {
    if (const std::vector<double>* found = find(name)) return *found;
    throw std::invalid_argument("CSV has no column \"" + std::string(name) + "\"");
}

CsvTable parseCsv(std::string_view text) {
    if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3); // spreadsheets' UTF-8 BOM
    std::size_t pos = 0;
    int line = 1;
    CsvTable table;
    std::optional<std::vector<std::string>> record;
    int recordLine = line;
    while ((record = nextRecord(text, pos, line)) && blank(*record)) recordLine = line;
    if (!record) throw std::invalid_argument("CSV has no header row");
    readHeader(table, *record, recordLine);
    for (recordLine = line; (record = nextRecord(text, pos, line)); recordLine = line) {
        if (blank(*record)) continue;
        if (record->size() != table.names.size())
            refuse(recordLine, std::to_string(record->size()) + " fields, the header has " +
                                   std::to_string(table.names.size()));
        for (std::size_t c = 0; c < record->size(); ++c) {
            const std::optional<double> value = number((*record)[c]);
            if (!value)
                refuse(recordLine, "column \"" + shown(table.names[c]) + "\": \"" +
                                       shown((*record)[c]) + "\" is not a number");
            table.columns[c].push_back(*value);
        }
    }
    return table;
}

std::string formatNumber(double value) {
    char text[32];
    return std::string(text, writeShortest(text, sizeof text, value));
}

std::string csvRecord(const std::vector<std::string>& fields) {
    std::string record;
    for (std::size_t c = 0; c < fields.size(); ++c) record += (c ? "," : "") + csvField(fields[c]);
    return record + "\n";
}

std::string csvRecord(const std::vector<double>& values) {
    std::string record;
    for (std::size_t c = 0; c < values.size(); ++c)
        record += (c ? "," : "") + formatNumber(values[c]);
    return record + "\n";
}

std::string csvText(const CsvTable& table) {
    std::string text = csvRecord(table.names);
    std::vector<double> row(table.columns.size());
    for (std::size_t r = 0; r < table.rows(); ++r) {
        for (std::size_t c = 0; c < table.columns.size(); ++c) row[c] = table.columns[c][r];
        text += csvRecord(row);
    }
    return text;
}

} // namespace core
