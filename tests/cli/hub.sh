#!/usr/bin/env bash
# --model owner/name through the Hugging Face Hub's file endpoint, served locally by
# hub_server.py (no network): fetched into a fresh cache in huggingface_hub's layout, then read
# from that cache offline; offline without the cache, gated without and with a token, a missing
# repo, revision and file, and an endpoint nobody listens on each answer one line.
#   hub.sh TRAINBUDGET CHECK_SH HUB_ROOT
set -u
tb=$1 check=$2 root=$3
work=$(mktemp -d)
server=
trap '[[ -n $server ]] && kill "$server" 2>/dev/null; rm -rf "$work"' EXIT
cd "$work" || exit 2
export XDG_CONFIG_HOME="$work/config" HOME="$work/home"
unset HF_TOKEN HF_HOME HF_TOKEN_PATH HF_HUB_OFFLINE
# The served repos: the committed ones, and one with weights but no config.json.
cp -r "$root" served && mkdir -p served/someone/Weights-Only
python3 "$(dirname "$0")/hub_server.py" served port &
server=$!
for _ in $(seq 100); do [[ -s port ]] && break; sleep 0.1; done
[[ -s port ]] || { echo "the test Hub did not start"; exit 1; }
endpoint="http://127.0.0.1:$(cat port)"
fails=0
expect() {  # expect EXIT STDERR_REGEX STDOUT_SPEC ENV... -- ARGS...
  local code=$1 regex=$2 spec=$3
  shift 3
  local envs=()
  while [[ $1 != -- ]]; do envs+=("$1"); shift; done
  shift
  bash "$check" "$code" "$regex" "$spec" -- env "${envs[@]}" timeout 30 "$tb" "$@" || fails=$((fails + 1))
}
repo=Qwen/Qwen3-4B-Instruct-2507
commit=$(python3 -c "import hashlib,sys; print(hashlib.sha1(sys.argv[1].encode()).hexdigest())" "$repo")
cache=$work/cache

# Fetched: the exact count (Qwen3-4B: 4,022,468,096), the source named, the cache as the Hub's
# clients lay it out.
expect 0 "" 'jq:.model.params_total == 4022468096 and .model.source == "hf-hub" and .model.name == "Qwen/Qwen3-4B-Instruct-2507"' \
  HF_ENDPOINT="$endpoint" HF_HUB_CACHE="$cache" -- --model "$repo" --format json
entry=$cache/models--Qwen--Qwen3-4B-Instruct-2507
[[ $(cat "$entry/refs/main") == "$commit" ]] || { echo "refs/main does not hold the commit"; fails=$((fails + 1)); }
[[ -L $entry/snapshots/$commit/config.json && $(readlink "$entry/snapshots/$commit/config.json") == ../../blobs/* ]] ||
  { echo "the snapshot's config.json is not a link into blobs/"; fails=$((fails + 1)); }
cmp -s "$entry/snapshots/$commit/config.json" "$root/$repo/config.json" || { echo "the cached config differs"; fails=$((fails + 1)); }
# The same answer offline, from the cache, with the endpoint gone.
expect 0 "" 'jq:.model.params_total == 4022468096 and .model.source == "hf-cache"' \
  HF_ENDPOINT="http://127.0.0.1:9" HF_HUB_CACHE="$cache" HF_HUB_OFFLINE=1 -- --model "$repo" --format json
# A revision by commit hash, fetched into a second cache.
expect 0 "" 'jq:.model.params_total == 4022468096' \
  HF_ENDPOINT="$endpoint" HF_HUB_CACHE="$work/cache2" -- --model "$repo@$commit" --format json
# Offline without it: one line naming the cache searched (a repo no preset's name matches; the
# Qwen repo would read as the preset qwen3-4b, said so: cli.model_dated_release).
expect 1 "^trainbudget: error: --model: 'someone/Model-X' is not in the Hugging Face cache \(.*empty-cache\) and HF_HUB_OFFLINE is set" empty \
  HF_ENDPOINT="$endpoint" HF_HUB_CACHE="$work/empty-cache" HF_HUB_OFFLINE=yes -- --model someone/Model-X
# Gated: without a token, with a token that has no access, with one that has.
expect 1 "^trainbudget: error: --model: 'gated-org/Llama-Gated' on .* is gated: set HF_TOKEN" empty \
  HF_ENDPOINT="$endpoint" HF_HUB_CACHE="$cache" -- --model gated-org/Llama-Gated
expect 1 "is gated: the token in HF_TOKEN has no access" empty \
  HF_ENDPOINT="$endpoint" HF_HUB_CACHE="$cache" HF_TOKEN=bad-token -- --model gated-org/Llama-Gated
mkdir -p "$work/hf-home" && printf 'good-token\n' >"$work/hf-home/token"
expect 0 "" 'jq:.model.params_total == 4022468096' \
  HF_ENDPOINT="$endpoint" HF_HUB_CACHE="$cache" HF_HOME="$work/hf-home" -- --model gated-org/Llama-Gated --format json
# Missing repo, revision and file.
expect 1 "^trainbudget: error: --model: 'someone/No-Such-Model' is not on .* \(or is private: set HF_TOKEN\)" empty \
  HF_ENDPOINT="$endpoint" HF_HUB_CACHE="$cache" -- --model someone/No-Such-Model
expect 1 "has no revision 'v9'" empty \
  HF_ENDPOINT="$endpoint" HF_HUB_CACHE="$work/cache3" -- --model "$repo@v9"
expect 1 "'someone/Weights-Only' has no config.json on" empty \
  HF_ENDPOINT="$endpoint" HF_HUB_CACHE="$cache" -- --model someone/Weights-Only
# Nobody listening: one line, and a preset of the same name is still an answer, said so.
expect 1 "^trainbudget: error: --model: could not reach http://127.0.0.1:9 \(" empty \
  HF_ENDPOINT="http://127.0.0.1:9" HF_HUB_CACHE="$work/cache4" -- --model someone/Model-X
expect 0 "not in the local Hugging Face cache and the Hub could not be reached; read as the preset llama-3.1-8b" "regex:." \
  HF_ENDPOINT="http://127.0.0.1:9" HF_HUB_CACHE="$work/cache4" -- --model NousResearch/Meta-Llama-3.1-8B-Instruct
# A cache that cannot be written: one line naming it.
mkdir -p "$work/ro" && chmod 500 "$work/ro"
if [[ $(id -u) -ne 0 ]]; then
  expect 1 "cannot write the Hugging Face cache" empty \
    HF_ENDPOINT="$endpoint" HF_HUB_CACHE="$work/ro/cache" -- --model "$repo"
fi
exit $((fails > 0))
