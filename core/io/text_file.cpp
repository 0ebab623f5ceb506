// readTextFile (text_file.h).
#include "io/text_file.h"

#include <cstdio>
#include <filesystem>
#include <memory>

namespace core {

TextFile readTextFile(const std::string& path, const FileCap& cap) {
    TextFile file;
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) {
        file.problem = FileProblem::Missing;
        return file;
    }
    const std::unique_ptr<std::FILE, int (*)(std::FILE*)> in(std::fopen(path.c_str(), "rb"),
                                                             std::fclose);
    if (!in || std::filesystem::is_directory(path, ec)) {
        file.problem = FileProblem::Unreadable;
        return file;
    }
    // One allocation for the whole file (a 33 MB tokenizer.json grew by copies otherwise).
    if (const auto size = std::filesystem::file_size(path, ec); !ec && size <= cap.maxBytes)
        file.text.reserve(std::size_t(size));
    char chunk[1 << 16];
    while (std::size_t got = std::fread(chunk, 1, sizeof chunk, in.get())) {
        file.text.append(chunk, got);
        if (file.text.size() > cap.maxBytes) { // one byte past the cap is enough to know
            file.text.clear();
            file.problem = FileProblem::TooLarge;
            return file;
        }
    }
    if (std::ferror(in.get())) file.problem = FileProblem::Unreadable, file.text.clear();
    return file;
}

std::string describeProblem(FileProblem problem, const FileCap& cap) {
    switch (problem) {
    case FileProblem::None:
        return "";
    case FileProblem::Missing:
        return "no such file";
    case FileProblem::Unreadable:
        return "cannot be read";
    case FileProblem::TooLarge:
        return "larger than the " + std::to_string(cap.maxBytes >> 20) + " MB a " + cap.kind +
               " may be";
    }
    return "";
}

} // namespace core
