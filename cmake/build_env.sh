# shellcheck shell=bash
# use_ccache ROOT: every compile of this clone through ccache (sourced by cmake/setup.sh and
# cmake/setup_web.sh). Paths under ROOT are hashed relative to it and the build folder is not
# hashed, so a clean clone in another folder reuses the objects an earlier run on this machine
# made; CMakeLists.txt picks ccache up as the compiler launcher, emscripten through
# EM_COMPILER_WRAPPER. ccache's own cache folder and size limit stay the user's (default
# ~/.cache/ccache, 5 GB).
use_ccache() {
    command -v ccache >/dev/null 2>&1 || return 0
    export CCACHE_BASEDIR="$1"
    export CCACHE_NOHASHDIR=1 # the build folder (in debug info) differs from clone to clone
    # The tests' precompiled header (tests/CMakeLists.txt): ccache hashes the .gch itself, which
    # holds the time of day and the macros of the compile that made it; both are the same for
    # every file that uses it.
    export CCACHE_SLOPPINESS=pch_defines,time_macros
    export EM_COMPILER_WRAPPER=ccache
}
