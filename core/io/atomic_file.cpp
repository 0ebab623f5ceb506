#include "io/atomic_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <system_error>
#include <unistd.h>

namespace core {

namespace {

namespace fs = std::filesystem;

[[noreturn]] void cannotWrite(const std::string& path, const std::string& why) {
    throw std::runtime_error("cannot write '" + path + "': " + why);
}

// Writes and closes; fclose flushes, so a full disk may only show up there.
void writeAll(const fs::path& path, std::string_view contents, const std::string& shownPath) {
    std::FILE* file = std::fopen(path.c_str(), "wb");
    if (!file) cannotWrite(shownPath, std::strerror(errno));
    const bool written = std::fwrite(contents.data(), 1, contents.size(), file) == contents.size();
    const int writeErrno = errno;
    const bool closed = std::fclose(file) == 0;
    if (!written || !closed) cannotWrite(shownPath, std::strerror(!written ? writeErrno : errno));
}

// Streams into the file; a failed stream (a full disk) names the path.
void writeStream(const fs::path& path, const std::function<void(std::ostream&)>& write,
                 const std::string& shownPath) {
    std::ofstream out(path, std::ios::binary);
    if (!out) cannotWrite(shownPath, std::strerror(errno));
    write(out);
    out.close();
    if (!out) cannotWrite(shownPath, "the write failed (is the disk full?)");
}

// The rules of writeFileAtomically around `writeTo`, which writes a whole file at a path.
void writeAtomically(const std::string& path, const std::function<void(const fs::path&)>& writeTo) {
    std::error_code ec;
    fs::path target(path);
    if (fs::is_symlink(fs::symlink_status(target, ec))) { // write where the link points
        target = fs::weakly_canonical(target, ec);
        if (ec) cannotWrite(path, ec.message());
    }
    const fs::file_status status = fs::status(target, ec);
    if (fs::is_directory(status)) cannotWrite(path, "it is a folder");
    // A FIFO, a device (/dev/stdout) or the like: write into it, never replace it.
    if (fs::exists(status) && !fs::is_regular_file(status)) return writeTo(target);

    const fs::path temp = target.string() + ".tmp-" + std::to_string(::getpid());
    try {
        writeTo(temp);
    } catch (...) { // a write error, or the writer's own (the file is never left half-written)
        fs::remove(temp, ec);
        throw;
    }
    if (fs::exists(status)) fs::permissions(temp, status.permissions(), ec); // keep the old mode
    fs::rename(temp, target, ec);
    if (ec) {
        std::error_code ignored;
        fs::remove(temp, ignored);
        cannotWrite(path, ec.message());
    }
}

} // namespace

void writeFileAtomically(const std::string& path, std::string_view contents) {
    writeAtomically(path, [&](const fs::path& at) { writeAll(at, contents, path); });
}

void writeFileAtomically(const std::string& path, const std::function<void(std::ostream&)>& write) {
    writeAtomically(path, [&](const fs::path& at) { writeStream(at, write, path); });
}

void writeFileAtomically(const std::string& path, const std::vector<std::uint8_t>& bytes) {
    writeFileAtomically(
        path, std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}

void writePng(const std::string& path, const Image& image) {
    const std::vector<std::uint8_t> png = encodePng(image);
    if (png.empty()) throw std::runtime_error("cannot encode PNG for '" + path + "'");
    writeFileAtomically(path, png);
}

} // namespace core
