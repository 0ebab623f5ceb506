#include "io/atomic_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
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

} // namespace

void writeFileAtomically(const std::string& path, std::string_view contents) {
    std::error_code ec;
    fs::path target(path);
    if (fs::is_symlink(fs::symlink_status(target, ec))) { // write where the link points
        target = fs::weakly_canonical(target, ec);
        if (ec) cannotWrite(path, ec.message());
    }
    const fs::file_status status = fs::status(target, ec);
    if (fs::is_directory(status)) cannotWrite(path, "it is a folder");
    // A FIFO, a device (/dev/stdout) or the like: write into it, never replace it.
    if (fs::exists(status) && !fs::is_regular_file(status)) return writeAll(target, contents, path);

    const fs::path temp = target.string() + ".tmp-" + std::to_string(::getpid());
    try {
        writeAll(temp, contents, path);
    } catch (const std::runtime_error&) {
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
