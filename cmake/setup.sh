#!/usr/bin/env bash
# The two commands of README's "Get it running", for a fresh Debian 12 machine:
#   bash cmake/setup.sh          install what is missing, build the app (only), start the demo
#   bash cmake/setup.sh test     install what is missing, then build three trees one after the
#                                other (build: the app and its tests; build-asan: the same with
#                                clang's ASan + UBSan, and the libFuzzer targets; build-web: the
#                                browser site) and test them in two lanes at once: every ctest
#                                test, then the unit, app, cli and e2e tests under the sanitizers;
#                                beside them each fuzzer for 60 s, then the site in headless
#                                Chromium. Prints each stage's time and the slowest tests.
#                                MHA_QUICK=1: the first tree and its tests only.
#                                MHA_FUZZ_SECONDS=N fuzzes N s per target.
#   bash cmake/setup.sh package  install what is missing, build, make a Debian package with
#                                CPack; its path is the last line printed
#   bash cmake/setup.sh web      install what is missing, build the app for the browser
#                                (WebAssembly, cmake/setup_web.sh); the site's folder is the
#                                last line printed
# The build is portable (runs on any x86-64 CPU, picks AVX2 / AVX-512 at run time);
# MHA_NATIVE=1 tunes it for this machine only. Every compile goes through ccache
# (cmake/build_env.sh), so a second run, or a clean clone elsewhere, compiles little.
# Works as root, or as a normal user with sudo. Quiet and quick when nothing is missing.
set -euo pipefail

mode=${1:-demo}
case "$mode" in demo | test | package | web) shift || true ;; *) mode=demo ;; esac
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=cmake/install_packages.sh
source "$root/cmake/install_packages.sh"
# shellcheck source=cmake/build_env.sh
source "$root/cmake/build_env.sh"
[ "$mode" = web ] && exec bash "$root/cmake/setup_web.sh" "$@"
build=${MHA_BUILD_DIR:-$root/build}

packages=(build-essential cmake ninja-build ccache pkg-config libeigen3-dev libglfw3-dev
          libimgui-dev libstb-dev zlib1g-dev python3-glad libcli11-dev nlohmann-json3-dev
          fonts-dejavu-core fonts-wqy-microhei unicode-data libgl1-mesa-dri xvfb xauth)
quick=${MHA_QUICK:-0}
# dpkg-shlibdeps (dpkg-dev) finds the package's library dependencies; it needs `file`.
[ "$mode" = demo ] || packages+=(dpkg-dev file)
if [ "$mode" = test ]; then
    # The unit tests and benchmark; the window tools (xprop reads the window's icon, xclip
    # holds the text a test pastes); qemu-user runs the binary on a CPU without AVX;
    # desktop-file-utils and appstream validate what is installed; clang-format checks the
    # tree's format; bzcat reads unicode-data's NormalizationTest.txt.bz2 (NFC / NFKC);
    # numpy runs tests/ggml_quants.py, which checks the committed quantized fixture is current;
    # sentencepiece trains the models tests/make_spm_fixtures.py checks the SentencePiece
    # tokenizer against.
    packages+=(libgtest-dev libbenchmark-dev xdotool xclip imagemagick x11-utils qemu-user
               desktop-file-utils appstream clang-format bzip2 python3-numpy
               python3-sentencepiece)
    # clang with its sanitizer runtimes, libFuzzer and OpenMP for build-asan; emscripten (and
    # what cmake/setup_web.sh unpacks with) for build-web; chromium for its test. All at once
    # here: the stages run side by side later, and apt takes one caller at a time.
    [ "$quick" = 1 ] || packages+=(clang libclang-rt-14-dev libomp-dev emscripten xz-utils
                                   chromium)
    # npm fetches the GPT-2 tokenizer's JavaScript reference (below); a node already on PATH
    # (from nodesource, say) is used as it is.
    command -v npm >/dev/null 2>&1 || packages+=(nodejs npm)
fi

install_missing "${packages[@]}"
use_ccache "$root"

# Configure every time (about a second): tools installed since the last run, such as the
# end-to-end test tools, are found again. The demo builds the app alone, without the tests
# and benchmark (and their packages).
[ "$mode" = test ] && with_tests=ON || with_tests=OFF
native=OFF # a package must run on any x86-64 CPU: never native there
[ "${MHA_NATIVE:-0}" = 1 ] && [ "$mode" != package ] && native=ON
configure=(-DMHA_NATIVE="$native" -DMHA_BUILD_TESTS="$with_tests" -DMHA_BUILD_BENCH="$with_tests")
[ -f "$build/CMakeCache.txt" ] || configure+=(-G Ninja -DCMAKE_BUILD_TYPE=Release)
if [ "$mode" = test ]; then
    # shellcheck source=cmake/test_stages.sh
    source "$root/cmake/test_stages.sh"
    run_test_stages "$@" # exits
fi
cmake -S "$root" -B "$build" "${configure[@]}" >/dev/null
targets=()
[ "$mode" = demo ] && targets=(--target mha-viz)
# Show compile progress, hide the "Built target" lines of a no-op build; pipefail keeps
# cmake's exit status.
cmake --build "$build" --parallel "$(nproc)" "${targets[@]}" 2>&1 | { grep -v 'Built target' || true; }

if [ "$mode" = package ]; then
    # CPack runs the install rules into a staging folder, dpkg-shlibdeps fills in Depends.
    (cd "$build" && cpack -G DEB -B "$build/package" >/dev/null)
    ls -t "$build"/package/*.deb | head -n 1
    exit 0
fi

if [ -z "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
    # No screen (SSH, CI): open the window under Xvfb and keep a picture of it.
    echo "setup: no display; opening the demo under Xvfb, screenshot -> $build/demo.png"
    xvfb-run -a -s "-screen 0 1600x1000x24" "$build/app/mha-viz" --screenshot "$build/demo.png" "$@"
    echo "setup: saved $build/demo.png"
    exit 0
fi
exec "$build/app/mha-viz" "$@"
