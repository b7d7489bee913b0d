#!/usr/bin/env bash
# Whether two bundled engines give the same bytes: the dumps (embed, encoder.0, final_norm, head.0,
# markers, logits, act_logits: names every layout has) and the answers of gen_requests.py's fourteen
# requests, with and without dumps, on the CUDA backend. For a change that claims "the same bits" (a reordering, a fusion of the same
# arithmetic) against the build before it. Run ON the GPU machine from the repository root with
# the bundle carried (bundle.sh with LAYA_BASELINE_BIN: laya-engine-base is the build before).
#
# usage: [LAYA_COMPARE_ENV_A / LAYA_COMPARE_ENV_B="VAR=VALUE ..."] [LAYA_COMPARE_ARGS="--precision fp16 ..."] \
#          scripts/gpu/compare_answers.sh [BIN_A [BIN_B [LAYOUT]]]
#        (default laya-engine-base laya-engine english; LAYA_COMPARE_ENV_B: switches for B's runs
#        only, e.g. an experiment switch of one build against its default; LAYA_COMPARE_ENV_A: A's,
#        e.g. two forms of one experiment against each other; LAYA_COMPARE_ARGS: more
#        `decide` options for both); prints one line per comparison, exit 1 if any differs or a run
#        failed.
set -u
PH=none
OUT=${OUT:-/tmp/laya-compare}
source "$(dirname "$0")/suite_common.sh"
A=${1:-laya-engine-base} B=${2:-laya-engine} LAYOUT=${3:-english}
synth_layout "$LAYOUT" > /dev/null
CK=/tmp/ck-$LAYOUT
W=$(mktemp -d)
python3 "$(dirname "$0")/gen_requests.py" 7 > "$W/req.jsonl"
read -r -a args <<< "${LAYA_COMPARE_ARGS:-}"
rc=0
for side in A B; do
  b=${!side}
  envs=()
  env_var=LAYA_COMPARE_ENV_$side
  read -r -a envs <<< "${!env_var:-}"
  env "${envs[@]}" $R "$b" decide --model "$CK" --backend cuda "${args[@]}" --input "$W/req.jsonl" --dump "$W/d-$side" \
    --dump-names embed,encoder.0,final_norm,head.0,markers,logits,act_logits > "$W/ans-dump-$side.jsonl" 2> "$W/err-$side.log" || rc=1
  env "${envs[@]}" $R "$b" decide --model "$CK" --backend cuda "${args[@]}" --input "$W/req.jsonl" > "$W/ans-$side.jsonl" \
    2>> "$W/err-$side.log" || rc=1
  (cd "$W/d-$side" && find . -name '*.f32' | sort | xargs md5sum) > "$W/md5-$side.txt"
  echo "$side = $b ${envs[*]}: $(wc -l < "$W/ans-$side.jsonl") answers, $(wc -l < "$W/md5-$side.txt") dump files"
done
same() {  # usage: same WHAT FILE_A FILE_B
  if cmp -s "$2" "$3"; then echo "$1 identical: yes"; else echo "$1 identical: NO"; rc=1; fi
}
same dumps "$W/md5-A.txt" "$W/md5-B.txt"
same "answers (with dumps)" "$W/ans-dump-A.jsonl" "$W/ans-dump-B.jsonl"
same answers "$W/ans-A.jsonl" "$W/ans-B.jsonl"
echo "input tokens: $(grep -o '"input_tokens":[0-9]*' "$W/ans-B.jsonl" | cut -d: -f2 | tr '\n' ' ')"
rm -rf "$W"
exit $rc
