// Safetensors files (huggingface/safetensors): an 8-byte little-endian header size, a JSON header
// {name: {"dtype", "shape", "data_offsets": [begin, end]}, "__metadata__": {string: string}},
// then the tensors' bytes. Only F32 2-D tensors, row-major, which is all a training checkpoint
// holds (docs/run-folder.md, "Checkpoints"). The byte order is the machine's: x86-64 is little
// endian, as the format requires.
#pragma once

#include "engine/scalar.h"

#include <map>
#include <string>
#include <vector>

namespace core {

struct NamedMatrix {
    std::string name;
    Mat values; // rows x cols as the file's shape [rows, cols]
};

// The whole file as bytes: header padded with spaces to a multiple of 8 (the format's
// alignment), tensors in the given order, back to back.
std::string safetensorsBytes(const std::vector<NamedMatrix>& tensors,
                             const std::map<std::string, std::string>& metadata = {});

// Writes safetensorsBytes atomically; throws std::runtime_error naming the path on failure.
void writeSafetensors(const std::string& path, const std::vector<NamedMatrix>& tensors,
                      const std::map<std::string, std::string>& metadata = {});

struct SafetensorsFile {
    std::vector<NamedMatrix> tensors; // in the order of their data offsets
    std::map<std::string, std::string> metadata;

    // The tensor called `name`, or nullptr.
    const NamedMatrix* find(const std::string& name) const;
};

// Parses bytes of a safetensors file; throws std::invalid_argument with one line naming the
// problem (short file, header not JSON, a dtype other than F32, a shape that is not 2-D,
// offsets outside the data or overlapping, a size that does not match the shape).
SafetensorsFile parseSafetensors(const std::string& bytes);

// Reads and parses a file; throws std::runtime_error when it cannot be read and
// std::invalid_argument (prefixed with the path) when it is not a valid file.
SafetensorsFile readSafetensors(const std::string& path);

} // namespace core
