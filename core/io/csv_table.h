// A CSV of numbers under a header row, read and written by column: mha-viz train's metrics.csv
// (step, losses, accuracy, one column per head score) for the curve figures and the Train view.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace core {

struct CsvTable {
    std::vector<std::string> names;           // the header, in file order
    std::vector<std::vector<double>> columns; // columns[c][row]; an empty field is NaN

    std::size_t rows() const { return columns.empty() ? 0 : columns.front().size(); }
    // The column called `name`, or nullptr.
    const std::vector<double>* find(std::string_view name) const;
    // The column called `name`; throws std::invalid_argument naming it when there is none.
    const std::vector<double>& column(std::string_view name) const;
};

// RFC 4180 text (quoted fields, CRLF or LF, a UTF-8 BOM) whose first record is the header and
// every other one holds numbers: decimal, exponent, nan, inf; an empty field is NaN (missing),
// blank lines are skipped. Throws std::invalid_argument with one line naming the line and the
// column of the first problem: a field that is not a number, a record with a different number
// of fields than the header, an unclosed quote, an empty or repeated column name, no header.
CsvTable parseCsv(std::string_view text);

// The writing side, which parseCsv reads back exactly.
// A number as CSV and JSON write it: the shortest text that reads back as the same double.
std::string formatNumber(double value);
// One record and its line break: names quoted where RFC 4180 needs it, numbers by formatNumber.
std::string csvRecord(const std::vector<std::string>& fields);
std::string csvRecord(const std::vector<double>& values);
// The whole table: the header, then a record per row.
std::string csvText(const CsvTable& table);

} // namespace core
