#!/usr/bin/env bash
# Runs every libFuzzer target of a MHA_FUZZ=ON build for SECONDS each, on the seed corpus
# (tests/fuzz/corpus, the demo scenes) plus what earlier runs found (the repo is never written to).
#   bash tests/fuzz/run_fuzzers.sh BUILD_DIR [SECONDS]       (default 60)
# Prints per target: executions, exec/s, corpus size and coverage gained over the seeds.
# Exits 1 if any target crashed (or leaked, or hit UB or a timeout), naming the input that
# did it; that folder is kept. MHA_FUZZ_TARGETS="fuzz_tokenizer ..." picks targets,
# MHA_FUZZ_SEED=N libFuzzer's seed (default 1; 0: random; cmake/setup.sh test passes one made
# from the commit), MHA_FUZZ_CORPUS=DIR keeps each target's corpus in DIR/TARGET from run to run
# (cmake/setup.sh test: build-asan/fuzz-corpus), so that every run starts where the last stopped.
set -euo pipefail

if [ $# -lt 1 ]; then
    echo "usage: $0 BUILD_DIR [SECONDS]" >&2
    exit 2
fi
build=$(cd "$1" && pwd)
seconds=${2:-60}
# One seed by default, so a run here and CI's explore the same inputs in the same order (a
# crash found is found again); MHA_FUZZ_SEED=0 lets libFuzzer pick one at random.
seed=${MHA_FUZZ_SEED:-1}
echo "fuzz: seed $seed (MHA_FUZZ_SEED=$seed replays), corpus ${MHA_FUZZ_CORPUS:-a temporary folder}"
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
all_targets="fuzz_tokenizer fuzz_scene_json fuzz_cli_path fuzz_run_files fuzz_model_files
             fuzz_gpt2_tokenizer fuzz_wordpiece_tokenizer fuzz_tokenizer_json fuzz_gguf
             fuzz_attention_file fuzz_spm"
targets=(${MHA_FUZZ_TARGETS:-$all_targets})

work=$(mktemp -d "${TMPDIR:-/tmp}/mha-fuzz.XXXXXX")
export OMP_NUM_THREADS=1 # one input at a time; threads would only add noise and overhead
failed=()

for target in "${targets[@]}"; do
    exe=$(find "$build" -type f -name "$target" -perm -u+x | head -n 1)
    if [ -z "$exe" ]; then
        echo "fuzz: $target not found in $build (configure with -DMHA_FUZZ=ON)" >&2
        exit 2
    fi
    corpus=${MHA_FUZZ_CORPUS:+$MHA_FUZZ_CORPUS/$target}
    corpus=${corpus:-$work/$target/corpus}
    mkdir -p "$corpus" "$work/$target/crashes"
    # Seeds: sentences for the tokenizer; for the scene targets the shipped demo scenes plus
    # small and broken ones (small: they run in microseconds, so mutations explore more).
    case "$target" in
    fuzz_tokenizer)
        max_len=2048 dict=$here/tokenizer.dict
        cp -n "$here/corpus/tokenizer/"* "$corpus/" ;;
    fuzz_gpt2_tokenizer) # vocabulary, merges and text (fuzz_gpt2_tokenizer.cpp)
        max_len=4096 dict=$here/tokenizer.dict
        cp -n "$here/corpus/gpt2_tokenizer/"* "$corpus/" ;;
    fuzz_wordpiece_tokenizer) # a mode byte, a vocabulary, a text (fuzz_wordpiece_tokenizer.cpp)
        max_len=4096 dict=$here/tokenizer.dict
        cp -n "$here/corpus/wordpiece_tokenizer/"* "$corpus/" ;;
    fuzz_tokenizer_json) # a mode byte, a tokenizer.json or regex part, a text (fuzz_tokenizer_json.cpp)
        max_len=4096 dict=$here/tokenizer.dict
        cp -n "$here/corpus/tokenizer_json/"* "$corpus/" ;;
    fuzz_spm) # a mode byte, a SentencePiece model, charsmap or piece lines, a text (fuzz_spm.cpp)
        max_len=8192 dict=$here/tokenizer.dict
        cp -n "$here/corpus/spm/"* "$corpus/" ;;
    fuzz_run_files) # a checkpoint and model.json of a tiny run (D 2, 1 layer, seq 4)
        max_len=4096 dict=$here/scene_json.dict
        cp -n "$here/corpus/run_files/"* "$corpus/" ;;
    fuzz_gguf) # GGUF files: a tiny Llama, Qwen 3 and Phi-3 (make_gguf_fixtures.py), a broken one
        max_len=8192 dict=$here/gguf.dict
        cp -n "$here/corpus/gguf/"* "$corpus/" ;;
    fuzz_attention_file) # attention files (docs/attention-files.md): F32, F16, BF16, cross
        max_len=4096 dict=$here/scene_json.dict
        cp -n "$here/corpus/attention_file/"* "$corpus/" ;;
    fuzz_model_files) # config.json files and shard indexes, good and broken
        max_len=4096 dict=$here/scene_json.dict
        cp -n "$here/corpus/model_files/"* "$corpus/" ;;
    *)
        max_len=4096 dict=$here/scene_json.dict
        cp -n "$here/corpus/scenes/"* "$here/../../assets/scenes/"*.json "$corpus/" ;;
    esac
    log=$work/$target/log.txt

    status=0
    # TMPDIR: a target's scratch files (fuzz_model_files writes its folder there) go with $work.
    TMPDIR="$work/$target" "$exe" "$corpus" -max_total_time="$seconds" -max_len="$max_len" \
        -rss_limit_mb=2048 -timeout=30 -dict="$dict" -print_final_stats=1 -seed="$seed" \
        -artifact_prefix="$work/$target/crashes/" >"$log" 2>&1 || status=$?

    # From libFuzzer's status lines ("#N NEW cov: C ft: F corp: U/S ...") and final stats.
    field() { # field LINE_PATTERN NAME: NAME's value on the last matching line
        awk -v pat="$1" -v name="$2:" '$0 ~ pat {
            for (i = 1; i < NF; i++) if ($i == name) v = $(i + 1) } END { print v }' "$log"
    }
    final_stat() { sed -nE "s/^stat::$1: +([0-9]+).*/\1/p" "$log"; }
    runs=$(final_stat number_of_executed_units)
    rate=$(final_stat average_exec_per_sec)
    cov0=$(field 'INITED' cov)
    cov1=$(field '^#[0-9]+[[:space:]]+(INITED|NEW|REDUCE|pulse|DONE)' cov)
    corp=$(field '^#[0-9]+[[:space:]]+(INITED|NEW|REDUCE|pulse|DONE)' corp)
    printf 'fuzz: %-16s %ss  runs %s  exec/s %s  corpus %s  cov %s -> %s\n' "$target" \
        "$seconds" "${runs:-?}" "${rate:-?}" "${corp:-?}" "${cov0:-?}" "${cov1:-?}"

    if [ "$status" -ne 0 ]; then
        failed+=("$target")
        echo "fuzz: $target FAILED (exit $status); last lines of $log:" >&2
        tail -n 40 "$log" >&2
        for crash in "$work/$target/crashes/"*; do
            [ -e "$crash" ] && echo "fuzz: $target crash input: $crash" >&2
        done
    fi
done

if [ ${#failed[@]} -gt 0 ]; then
    echo "fuzz: FAILED: ${failed[*]}; inputs and logs kept in $work" >&2
    echo "fuzz: reproduce with: <BUILD_DIR>/tests/fuzz/<target> <crash input>" >&2
    exit 1
fi
rm -rf "$work"
echo "fuzz: all ${#targets[@]} targets ran ${seconds}s each without a crash"
