#!/usr/bin/env bash
# bash cmake/setup.sh web: the app for the browser, from Debian 12's packages only. Installs
# what is missing (emscripten, the headers the core reads), unpacks Dear ImGui's and zlib's
# Debian source packages into the build folder (adding a deb-src entry for the archive the
# machine already uses, when it has none), builds with emscripten and prints the static site's
# folder as its last line. Serve that folder from any static host, e.g.
#   python3 -m http.server --bind 127.0.0.1 8000 --directory build-web/site
# MHA_WEB_BUILD_DIR picks the build folder (default build-web).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${MHA_WEB_BUILD_DIR:-$root/build-web}
# shellcheck source=cmake/install_packages.sh
source "$root/cmake/install_packages.sh"
# shellcheck source=cmake/build_env.sh
source "$root/cmake/build_env.sh"

install_missing cmake ninja-build ccache python3 emscripten dpkg-dev xz-utils fonts-dejavu-core \
    unicode-data libeigen3-dev nlohmann-json3-dev libcli11-dev libstb-dev
use_ccache "$root"

# apt-get source needs a deb-src entry: the machine's own deb entries, as deb-src.
sources_entry=/etc/apt/sources.list.d/mha-viz-deb-src.sources
if ! apt-cache showsrc imgui 2>/dev/null | grep -q '^Package: imgui'; then
    echo "setup: adding $sources_entry (the source packages of the machine's archive)"
    # Each deb822 stanza with a "deb" type, as deb-src (awk's paragraph mode: stanzas).
    entries=$(for f in /etc/apt/sources.list.d/*.sources; do
        [ -f "$f" ] && awk 'BEGIN { RS = ""; ORS = "\n\n" }
            /(^|\n)Types:[^\n]*(^|[ \t])deb([ \t]|$|\n)/ {
                sub(/(^|\n)Types:[^\n]*/, "\nTypes: deb-src"); sub(/^\n/, ""); print }' "$f"
    done)
    if [ -z "$entries" ] && [ -f /etc/apt/sources.list ]; then
        entries=$(sed -n 's/^deb \(.*\)$/deb-src \1/p' /etc/apt/sources.list)
        sources_entry=/etc/apt/sources.list.d/mha-viz-deb-src.list
    fi
    printf '%s\n' "$entries" | as_root tee "$sources_entry" >/dev/null
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
fi

# Dear ImGui 1.86 and zlib, unpacked once into the build folder (never into the repository).
mkdir -p "$build/sources"
unpacked() { find "$build/sources" -maxdepth 1 -type d -name "$1-*" | head -n 1; }
for package in imgui zlib; do
    if [ -z "$(unpacked "$package")" ]; then
        echo "setup: apt-get source $package into $build/sources"
        (cd "$build/sources" && apt-get source -qq "$package" >/dev/null 2>&1) ||
            { echo "setup: apt-get source $package failed" >&2; exit 1; }
    fi
done

# emscripten's JavaScript optimizer finds Debian's acorn through NODE_PATH.
export NODE_PATH=/usr/share/nodejs
configure=(-DMHA_IMGUI_SOURCE_DIR="$(unpacked imgui)" -DMHA_ZLIB_SOURCE_DIR="$(unpacked zlib)")
[ -f "$build/CMakeCache.txt" ] || configure+=(-G Ninja -DCMAKE_BUILD_TYPE=Release)
emcmake cmake -S "$root" -B "$build" "${configure[@]}" >/dev/null
cmake --build "$build" --parallel "$(nproc)" 2>&1 | { grep -v 'Built target' || true; }
echo "$build/site"
