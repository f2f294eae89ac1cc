#!/usr/bin/env bash
# Hostile inputs, one class of failure each (issue: "Hardened inputs"). Builds the input in a
# scratch folder, then runs check.sh on it, so each case asserts the exit code, the one-line
# problem on stderr and an empty stdout (or valid JSON where the input is legal), and a hang
# fails: every command runs under `timeout 20`.
#   hostile.sh CASE TRAINBUDGET CHECK_SH TINY_MODEL_DIR
set -u
case_name=$1 tb=$2 check=$3 tiny=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 2
export XDG_CONFIG_HOME="$work/config"

run() { bash "$check" "$@"; }
expect() {  # expect EXIT STDERR_REGEX STDOUT_SPEC ARGS... (the trainbudget arguments)
  local code=$1 regex=$2 spec=$3
  shift 3
  run "$code" "$regex" "$spec" -- timeout 20 "$tb" "$@"
}
# A value nested N levels deep: [[[...1...]]].
nested() { python3 -c "import sys; n=int(sys.argv[1]); sys.stdout.write('['*n + '1' + ']'*n)" "$1"; }
# A safetensors file whose header is the given JSON text.
safetensors() {
  python3 -c "import struct,sys; h=sys.stdin.buffer.read(); sys.stdout.buffer.write(struct.pack('<Q', len(h)) + h)"
}
llama() {  # a valid tiny llama config with KEY: VALUE pairs added ($1 is raw JSON members)
  printf '{"model_type": "llama", "hidden_size": 8, "num_hidden_layers": 2, "intermediate_size": 16, "vocab_size": 10, "num_attention_heads": 2%s}' "${1:+, $1}"
}

case $case_name in
  # --- crash: recursion over user data --------------------------------------------------------
  deep_config_value)
    printf '{"model_type": "llama", "hidden_size": %s}' "$(nested 100000)" >config.json
    expect 1 "config.json: not valid JSON: nested 100001 levels deep, past the 64 accepted" empty \
      --model config.json ;;
  deep_safetensors_shape)
    mkdir m && llama >m/config.json
    printf '{"w": {"dtype": "F32", "shape": %s, "data_offsets": [0, 4]}}' "$(nested 100000)" \
      | safetensors >m/model.safetensors
    expect 1 "model.safetensors: header is not valid JSON: nested 100002 levels deep" empty \
      --model m ;;
  deep_gemma3_text_config)
    python3 -c "
import sys; n=100000
sys.stdout.write('{\"model_type\": \"gemma3\", \"text_config\": ' + '{\"a\": '*n + '1' + '}'*n + '}')" >config.json
    expect 1 "nested 100001 levels deep" empty --model config.json ;;
  deep_request)
    printf '{"model": %s}' "$(nested 100000)" >request.json
    expect 1 "^trainbudget: error: --request: nested 100001 levels deep, past the 64 accepted$" empty \
      estimate --request request.json ;;
  deep_toml_header)
    # toml++ walks a table header's parts recursively; the pre-scan refuses it first.
    mkdir -p config/trainbudget/hardware
    python3 -c "import sys; sys.stdout.write('[' + '.'.join(['t'] * 22000) + ']\n')" >config/trainbudget/hardware/deep.toml
    expect 1 "deep.toml: TOML refused at line 1: a table header that is not \[a.b\] or \[\[a.b\]\] \(at most 32 keys\) on one line$" empty &&
      python3 -c "import sys; sys.stdout.write('.'.join(['t'] * 22000) + ' = 1\\n')" >config/trainbudget/hardware/deep.toml &&
      expect 1 "deep.toml: TOML refused at line 1: keys nested more than 32 levels deep$" empty ;;
  toml_unicode_whitespace)
    mkdir -p config/trainbudget/hardware && printf '\xc5\xa9' >config/trainbudget/hardware/u.toml
    expect 1 "u.toml: TOML refused at line 1: a non-ASCII character outside a string or comment$" empty ;;
  request_many_keys)
    python3 -c "import json; print(json.dumps({f'k{i}': 1 for i in range(50000)}))" >request.json
    expect 1 "^trainbudget: error: --request: holds 50000 keys; a request has at most 256" empty \
      estimate --request request.json ;;
  request_many_problems)
    python3 -c "import json; print(json.dumps({f'micro_bach{i}': 1 for i in range(200)}))" >request.json
    run 1 "" empty -- timeout 20 "$tb" estimate --request request.json &&
      [[ $("$tb" estimate --request request.json 2>&1 | wc -l) -eq 11 ]] &&
      "$tb" estimate --request request.json 2>&1 | tail -1 | grep -q "^trainbudget: error: and 190 more problems$" ;;
  # --- silent integer overflow ------------------------------------------------------------------
  mla_overflow)
    # Each dimension is in range, and the MLA query path's q_lora_rank x heads x head width
    # passes int64 (the truth is ~2e21 parameters).
    printf '{"model_type": "deepseek_v3", "hidden_size": 1, "num_hidden_layers": 1000, "intermediate_size": 1, "vocab_size": 10, "num_attention_heads": 10000, "q_lora_rank": 10000000, "qk_nope_head_dim": 10000000, "qk_rope_head_dim": 10000000, "v_head_dim": 1, "kv_lora_rank": 1, "n_routed_experts": 0}' >config.json
    expect 1 "config.json: the dimensions give about 2e\+21 parameters, past the 1e\+15 accepted" empty \
      --model config.json ;;
  lora_overflow)
    # 2.4e14 parameters (in range), but rank 65536 adapters on 100,000 experts x 100 layers of a
    # 10-million-wide gate/up/down pass int64.
    printf '{"model_type": "mixtral", "hidden_size": 1, "num_hidden_layers": 100, "intermediate_size": 8000000, "vocab_size": 10, "num_attention_heads": 1, "num_local_experts": 100000, "num_experts_per_tok": 2}' >config.json
    expect 1 "^trainbudget: error: --lora-rank: rank 65536 on these --lora-targets gives more than 9.2e18 adapter parameters" empty \
      --model config.json --method lora --lora-rank 65536 --lora-targets gate,up,down ;;
  # --- nonsense in output -------------------------------------------------------------------------
  huge_tokens) expect 1 "^trainbudget: error: --tokens: '1e308' is past 1e\+16" empty --tokens 1e308 ;;
  tiny_utilization)
    expect 1 "^trainbudget: error: --utilization: 5e-324 is out of range; accepted: a value in \[0.001, 1\]$" empty \
      --utilization 5e-324 ;;
  huge_device_rate)
    mkdir -p config/trainbudget/hardware
    sed -e 's/^id = .*/id = "fast"/' -e 's/^dense_tflops = .*/dense_tflops = 1e300/' \
      "$(dirname "$check")/user_hardware/my-box.toml" >config/trainbudget/hardware/fast.toml
    expect 1 "fast.toml: .*dense_tflops: 1e\+300 is outside the accepted 1e-06 to 1e\+07" empty \
      --machine fast ;;
  extreme_but_legal)
    # The largest job on the slowest device the limits allow: every figure finite, in e-notation
    # where it is huge, devices_to_fit clamped.
    mkdir -p config/trainbudget/hardware
    sed -e 's/^id = .*/id = "slow"/' -e 's/^dense_tflops = .*/dense_tflops = 1e-6/' \
      -e 's/^capacity_gb = .*/capacity_gb = 1e-6/' -e 's/^capacity_gib = .*/capacity_gib = 1e-6/' \
      "$(dirname "$check")/user_hardware/my-box.toml" >config/trainbudget/hardware/slow.toml
    expect 0 "" "jq:.machines[0].hours > 1e24 and .machines[0].hours < 1e26 and .machines[0].devices_to_fit == 2000000000 and ([.. | numbers | select(. != . or . < 0)] | length == 0)" \
      --params 1e15 --tokens 1e16 --utilization 0.001 --machine slow --format json &&
      expect 0 "" "regex:1\.67e\+25 h" --params 1e15 --tokens 1e16 --utilization 0.001 --machine slow ;;
  # --- effective hangs: quadratic loops, blocking opens -------------------------------------------
  many_moe_layers)
    printf '{"model_type": "deepseek_v3", "hidden_size": 64, "num_hidden_layers": 100000, "intermediate_size": 128, "vocab_size": 100, "num_attention_heads": 4, "kv_lora_rank": 16, "q_lora_rank": null, "n_routed_experts": 8, "moe_intermediate_size": 32, "num_experts_per_tok": 2, "moe_layer_freq": 2, "first_k_dense_replace": 1}' >config.json
    expect 1 "config.json: num_hidden_layers: 100000 must be between 1 and 4096$" empty \
      --model config.json &&
      sed 's/100000/4096/' config.json >deepest.json &&
      expect 0 "" "jq:.model.params_total > 0" compare --model deepest.json --format json ;;
  many_shards)
    mkdir m && llama >m/config.json
    python3 -c "
import json; print(json.dumps({'weight_map': {f't{i}': f'model-{i:06d}.safetensors' for i in range(100000)}}))" \
      >m/model.safetensors.index.json
    expect 1 "model.safetensors.index.json: 10 problems: \[weight_map names model-000000.safetensors, which is not in the folder\].* \[and 99991 more files it names are not in the folder\]$" empty \
      --model m ;;
  many_machines)
    # 100,000 repeats of one machine (through a request: too long for one argument) are one row.
    python3 -c "import json; print(json.dumps({'machine': ','.join(['h100-sxm'] * 100000), 'format': 'json'}))" >request.json
    expect 0 "" "jq:.machines | length == 1" estimate --request request.json ;;
  fifo_index)
    mkdir m && llama >m/config.json && mkfifo m/model.safetensors.index.json
    expect 1 "model.safetensors.index.json: is a FIFO, not a regular file$" empty --model m ;;
  fifo_config)
    mkfifo config.json
    expect 1 "config.json: is a FIFO, not a regular file$" empty --model config.json ;;
  # --- internal errors ------------------------------------------------------------------------------
  symlink_loop_model)
    mkdir m && llama >m/config.json && ln -s model.safetensors m/model.safetensors
    expect 1 "m/model.safetensors: cannot be read: Too many levels of symbolic links$" empty --model m ;;
  symlink_loop_hardware)
    mkdir -p config/trainbudget/hardware && ln -s loop.toml config/trainbudget/hardware/loop.toml
    expect 1 "hardware/loop.toml: cannot be read: Too many levels of symbolic links$" empty ;;
  non_utf8_path)
    name=$(printf 'model-\xff\xfe')
    mkdir "$name" && cp "$tiny"/* "$name"/
    expect 0 "" 'jq:.model.origin | endswith("model-\\xFF\\xFE")' --model "$name" --format json ;;
  # --- unbounded or unsafe messages -----------------------------------------------------------------
  huge_value)
    python3 -c "import sys; sys.stdout.write('{\"model_type\": \"llama\", \"hidden_size\": \"' + 'x' * 10000000 + '\"}')" >config.json
    expect 1 'hidden_size: "x{160}\.\.\. \(10000000 bytes\)" must be an integer' empty --model config.json ;;
  control_characters)
    printf '{"model_type": "lla\\nma\\u001b[31m"}' >config.json
    expect 1 'model_type: "lla\\nma\\x1B\[31m" is not supported' empty --model config.json ;;
  huge_flag_value)
    # 100 kB fits one argument (Linux caps each at 128 kB); 900 kB goes through a request file.
    expect 1 "^trainbudget: error: --model: 'y{160}\.\.\. \(100000 bytes\)' is not a config.json" empty \
      --model "$(python3 -c "print('y' * 100000)")" &&
      python3 -c "import json; print(json.dumps({'model': 'y' * 900000}))" >request.json &&
      expect 1 "^trainbudget: error: --model: 'y{160}\.\.\. \(900000 bytes\)' is not a config.json" empty \
        estimate --request request.json ;;
  # --- silently accepted ---------------------------------------------------------------------------
  empty_model) expect 1 "^trainbudget: error: --model: empty" empty --model '' ;;
  empty_micro_batch)
    expect 1 "^trainbudget: error: --micro-batch: '' is not a number" empty --model "$tiny" --micro-batch '' ;;
  empty_attention)
    expect 1 "^trainbudget: error: --attention: unknown attention ''" empty --model "$tiny" --attention '' ;;
  empty_recompute)
    expect 1 "^trainbudget: error: --recompute: .*''" empty --model "$tiny" --recompute '' ;;
  negative_context)
    llama '"max_position_embeddings": -1' >config.json
    expect 1 "config.json: max_position_embeddings: -1 must be between 0 and 1073741824$" empty \
      --model config.json ;;
  fractional_params) expect 1 "^trainbudget: error: --params: '0.5' is less than 1" empty --params 0.5 ;;
  # --- issue 25's leftovers: accepted or mis-said ---------------------------------------------------
  empty_request_path)
    expect nonzero "^trainbudget: error: --request: an empty path names no file" empty --request '' ;;
  request_nul_byte)
    printf '{"params": "7B"}\0{"micro_batch": 0}' >request.json
    expect 1 "^trainbudget: error: --request: holds a NUL byte at byte 16: not JSON text$" empty \
      --request request.json ;;
  request_huge_integer)
    printf '{"micro_batch": 9223372036854775808}' >request.json
    expect 1 "^trainbudget: error: --micro-batch: 9223372036854775808 is out of range" empty \
      --request request.json ;;
  request_unknown_key)
    printf '{"modle": "llama-3.1-8b"}' >request.json
    expect 1 "^trainbudget: error: request key 'modle' is not a field of an estimate request; did you mean model\?$" empty \
      --request request.json ;;
  lora_dropout_one)
    expect 1 "^trainbudget: error: --lora-dropout: 1 is out of range; accepted: a value in \[0, 1\)$" empty \
      --model "$tiny" --method lora --lora-dropout 1 ;;
  upper_case_device_id)
    mkdir -p config/trainbudget/hardware
    printf 'id = "My-Box"\nname = "a box"\nvendor = "other"\ncategory = "workstation-gpu"\n[memory]\ncapacity_gb = 48\nbandwidth_gb_per_s = 960\nsource = "x"\n[compute.bf16]\ndense_tflops = 100\nkind = "spec"\nsource = "x"\n' >config/trainbudget/hardware/My-Box.toml
    expect 1 "My-Box.toml: id: 'My-Box' is not an id \(lower-case letters" empty ;;
  control_in_device_name)
    mkdir -p config/trainbudget/hardware
    printf 'id = "box"\nname = "a \\u001b[31mbox"\nvendor = "other"\ncategory = "workstation-gpu"\n[memory]\ncapacity_gb = 48\nbandwidth_gb_per_s = 960\nsource = "x"\n[compute.bf16]\ndense_tflops = 100\nkind = "spec"\nsource = "x"\n' >config/trainbudget/hardware/box.toml
    expect 1 "box.toml: name: 'a \\\\x1B\[31mbox' holds a control character$" empty hardware list ;;
  date_value_in_toml)
    mkdir -p config/trainbudget/hardware && printf 'na_per_s = 8507-02-o2 7 "c\n' >config/trainbudget/hardware/d.toml
    expect 1 "d.toml: TOML refused at line 1: a date or time value \(no field here is one\)$" empty ;;
  sliding_window_pattern_zero)
    printf '{"model_type": "gemma3_text", "hidden_size": 8, "num_hidden_layers": 2, "intermediate_size": 16, "vocab_size": 10, "num_attention_heads": 2, "num_key_value_heads": 1, "head_dim": 4, "sliding_window_pattern": 0}' >config.json
    expect 1 "config.json: sliding_window_pattern: 0 must be at least 1" empty --model config.json ;;
  fifo_named_shard)
    mkdir m && llama >m/config.json && mkfifo m/model.safetensors
    expect 1 "model.safetensors: is named like a safetensors shard but is not a regular file$" empty \
      --model m ;;
  user_braces_quoted)
    expect 1 "^trainbudget: error: --machine: unknown machine '\{model\}x'" empty --machine '{model}x' ;;
  long_choice_value)
    expect 1 "^trainbudget: error: --format: unknown value 'x{160}\.\.\. \(3000 bytes\)'" empty \
      --format "$(printf 'x%.0s' $(seq 3000))" ;;
  yaml_alias_bomb)
    # "Billion laughs": aliases that expand tenfold per level, refused while copied out.
    python3 -c "
print('base_model: llama-3-8b')
print('a: &a [x, x, x, x, x, x, x, x, x, x]')
for i, n in enumerate('bcdefgh'):
    prev = 'abcdefgh'[i]
    print(f'{n}: &{n} [' + ', '.join(['*' + prev] * 10) + ']')" >bomb.yaml
    expect 1 "^trainbudget: error: --config: holds more than 20000 values$" empty --config bomb.yaml ;;
  json_many_keys)
    # A flat JSON of 50,000 keys is refused before any reader walks it (a fuzzer-grown one took
    # seconds under every format's reader).
    python3 -c "
import json; print(json.dumps({'per_device_train_batch_size': 1, **{f'k{i}': i for i in range(50000)}}))" >many.json
    expect 1 "^trainbudget: error: --config: holds more than 20000 values$" empty --config many.json ;;
  deepspeed_many_keys)
    printf '{"per_device_train_batch_size": 1, "deepspeed": "ds.json"}' >args.json
    python3 -c "
import json; print(json.dumps({'zero_optimization': {'stage': 2}, **{f'k{i}': i for i in range(30000)}}))" >ds.json
    expect 1 "^trainbudget: error: --config: the DeepSpeed config it names, .*ds.json, holds more than 20000 values$" \
      empty --config args.json ;;
  yaml_deep)
    python3 -c "import sys; n=10000; sys.stdout.write('a: ' + '['*n + ']'*n + '\\n')" >deep.yaml
    expect 1 "^trainbudget: error: --config: nests more than 64 levels$" empty --config deep.yaml ;;
  deep_named_deepspeed)
    # The DeepSpeed JSON a TrainingArguments config names is bounded like the config itself.
    printf '{"per_device_train_batch_size": 1, "deepspeed": "ds.json"}' >args.json
    printf '{"zero_optimization": %s}' "$(nested 100000)" >ds.json
    expect 1 "^trainbudget: error: --config: the DeepSpeed config it names, .*ds.json, nests more than 64 levels$" \
      empty --config args.json ;;
  yaml_list_key)
    printf '? [a, b]\n: 1\n' >k.yaml
    expect 1 "^trainbudget: error: --config: line 1: a mapping key must be a plain name, not a list or a mapping$" \
      empty --config k.yaml ;;
  yaml_empty_key)
    printf 'x: 1\n: 3\n' >k.yaml
    expect 1 "^trainbudget: error: --config: line 2: a mapping key must be a plain name, not empty$" \
      empty --config k.yaml ;;
  fifo_dataset)
    mkfifo ds.jsonl
    expect 1 "^trainbudget: error: --dataset-file: ds.jsonl: is a FIFO, not a regular file" empty \
      --dataset-file ds.jsonl ;;
  folder_dataset)
    mkdir ds.jsonl
    expect 1 "^trainbudget: error: --dataset-file: ds.jsonl: is a directory, not a regular file" empty \
      --dataset-file ds.jsonl ;;
  *) echo "unknown case $case_name"; exit 2 ;;
esac
