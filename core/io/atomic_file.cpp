#include "io/atomic_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <unistd.h>

namespace core {

namespace {

namespace fs = std::filesystem;

// Writes and closes; fclose flushes, so a full disk may only show up there.
std::string writeAll(const fs::path& path, std::string_view contents,
                     const std::string& shownPath) {
    std::FILE* file = std::fopen(path.c_str(), "wb");
    if (!file) return "cannot write '" + shownPath + "': " + std::strerror(errno);
    const bool written = std::fwrite(contents.data(), 1, contents.size(), file) == contents.size();
    const int writeErrno = errno;
    const bool closed = std::fclose(file) == 0;
    if (!written || !closed)
        return "cannot write '" + shownPath + "': " + std::strerror(!written ? writeErrno : errno);
    return {};
}

} // namespace

std::string writeFileAtomically(const std::string& path, std::string_view contents) {
    std::error_code ec;
    fs::path target(path);
    if (fs::is_symlink(fs::symlink_status(target, ec))) { // write where the link points
        target = fs::weakly_canonical(target, ec);
        if (ec) return "cannot write '" + path + "': " + ec.message();
    }
    const fs::file_status status = fs::status(target, ec);
    if (fs::is_directory(status)) return "cannot write '" + path + "': it is a folder";
    // A FIFO, a device (/dev/stdout) or the like: write into it, never replace it.
    if (fs::exists(status) && !fs::is_regular_file(status)) return writeAll(target, contents, path);

    const fs::path temp = target.string() + ".tmp-" + std::to_string(::getpid());
    if (std::string error = writeAll(temp, contents, path); !error.empty()) {
        fs::remove(temp, ec);
        return error;
    }
    if (fs::exists(status)) fs::permissions(temp, status.permissions(), ec); // keep the old mode
    fs::rename(temp, target, ec);
    if (ec) {
        std::error_code ignored;
        fs::remove(temp, ignored);
        return "cannot write '" + path + "': " + ec.message();
    }
    return {};
}

std::string writePng(const std::string& path, const Image& image) {
    const std::vector<std::uint8_t> png = encodePng(image);
    if (png.empty()) return "cannot encode PNG for '" + path + "'";
    return writeFileAtomically(
        path, std::string_view(reinterpret_cast<const char*>(png.data()), png.size()));
}

} // namespace core
