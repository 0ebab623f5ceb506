#include "atomic_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <unistd.h>

namespace core {

std::string writeFileAtomically(const std::string& path, std::string_view contents) {
    namespace fs = std::filesystem;
    const fs::path target(path);
    std::error_code ec;
    if (fs::is_directory(target, ec)) return "cannot write '" + path + "': it is a folder";
    const fs::path temp = target.string() + ".tmp-" + std::to_string(::getpid());

    std::FILE* file = std::fopen(temp.c_str(), "wb");
    if (!file) return "cannot write '" + path + "': " + std::strerror(errno);
    const bool written = std::fwrite(contents.data(), 1, contents.size(), file) == contents.size();
    const int writeErrno = errno;
    // fclose flushes: a full disk may only show up here.
    const bool closed = std::fclose(file) == 0;
    if (!written || !closed) {
        const int err = !written ? writeErrno : errno;
        fs::remove(temp, ec);
        return "cannot write '" + path + "': " + std::strerror(err);
    }
    fs::rename(temp, target, ec);
    if (ec) {
        fs::remove(temp, ec);
        return "cannot write '" + path + "': " + ec.message();
    }
    return {};
}

} // namespace core
