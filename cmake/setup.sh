#!/usr/bin/env bash
# The two commands of README's quick start, for a fresh Debian 12 machine:
#   bash cmake/setup.sh          install what is missing, build, start the demo
#   bash cmake/setup.sh test     install what is missing, build, run every test
# Works as root, or as a normal user with sudo. Quiet and quick when nothing is missing.
set -euo pipefail

mode=${1:-demo}
case "$mode" in demo | test) shift || true ;; *) mode=demo ;; esac
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${MHA_BUILD_DIR:-$root/build}

packages=(build-essential cmake pkg-config libeigen3-dev libglfw3-dev libimgui-dev libstb-dev
          python3-glad libcli11-dev nlohmann-json3-dev fonts-dejavu-core libgl1-mesa-dri
          libgtest-dev libbenchmark-dev xvfb xauth)
if [ "$mode" = test ]; then
    packages+=(xdotool imagemagick)
fi

# One dpkg-query for all packages: missing ones print nothing or a non-"installed" status.
installed=$(dpkg-query -W -f='${Package} ${db:Status-Status}\n' "${packages[@]}" 2>/dev/null || true)
missing=()
for p in "${packages[@]}"; do
    grep -qx "$p installed" <<<"$installed" || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" -eq 0 ]; then
        sudo=()
    elif command -v sudo >/dev/null 2>&1; then
        sudo=(sudo)
    else
        echo "setup: need root or sudo to install: ${missing[*]}" >&2
        exit 1
    fi
    echo "setup: installing ${missing[*]}"
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
        apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Configure every time (about a second): tools installed since the last run, such as the
# end-to-end test tools, are found again.
if [ -f "$build/CMakeCache.txt" ]; then
    cmake -S "$root" -B "$build" >/dev/null
else
    cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
# Show compile progress, hide the "Built target" lines of a no-op build; pipefail keeps
# cmake's exit status.
cmake --build "$build" --parallel "$(nproc)" 2>&1 | { grep -v 'Built target' || true; }

if [ "$mode" = test ]; then
    ctest --test-dir "$build" --output-on-failure --parallel "$(nproc)" "$@"
    exit $?
fi

if [ -z "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
    # No screen (SSH, CI): open the window under Xvfb and keep a picture of it.
    echo "setup: no display; opening the demo under Xvfb, screenshot -> $build/demo.png"
    xvfb-run -a -s "-screen 0 1600x1000x24" "$build/app/mha-viz" --screenshot "$build/demo.png" "$@"
    echo "setup: saved $build/demo.png"
    exit 0
fi
exec "$build/app/mha-viz" "$@"
