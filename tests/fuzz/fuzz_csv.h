// A small RFC 4180 reader for the fuzz targets: enough to read heatmapCsv back and check
// its rows, written independently of the writer.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace fuzz {

using CsvRecord = std::vector<std::string>;

// False when a quote is left open or a quoted field is followed by something other than
// a comma or the end of the record.
inline bool readCsv(std::string_view text, std::vector<CsvRecord>& records) {
    records.clear();
    CsvRecord record;
    std::string field;
    std::size_t i = 0;
    while (i < text.size()) {
        if (text[i] == '"') { // quoted field: "" is a quote, anything else is literal
            for (++i;; ++i) {
                if (i >= text.size()) return false;
                if (text[i] == '"') {
                    if (i + 1 < text.size() && text[i + 1] == '"') {
                        field += '"';
                        ++i;
                    } else {
                        ++i;
                        break;
                    }
                } else {
                    field += text[i];
                }
            }
            if (i < text.size() && text[i] != ',' && text[i] != '\n') return false;
            continue;
        }
        if (text[i] == ',') {
            record.push_back(std::move(field));
            field.clear();
        } else if (text[i] == '\n') {
            record.push_back(std::move(field));
            field.clear();
            records.push_back(std::move(record));
            record.clear();
        } else {
            field += text[i];
        }
        ++i;
    }
    if (!field.empty() || !record.empty()) return false; // the writer ends every line
    return true;
}

} // namespace fuzz
