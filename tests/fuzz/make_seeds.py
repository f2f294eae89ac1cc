#!/usr/bin/env python3
"""Writes the large hostile fuzz seeds into OUT/<target>/ (too big to commit): deep nesting,
long strings and arrays, 100,000-layer configs, a 100,000-entry index. Usage: make_seeds.py OUT"""
import json
import os
import struct
import sys

DEPTH = 100_000  # levels of nesting
LONG = 300_000  # bytes of a long string
MANY = 100_000  # entries of a long list, layers of a deep model

LLAMA = {"model_type": "llama", "hidden_size": 4096, "intermediate_size": 14336,
         "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8,
         "vocab_size": 128256}
DEEPSEEK = {"model_type": "deepseek_v3", "hidden_size": 7168, "intermediate_size": 18432,
            "moe_intermediate_size": 2048, "num_hidden_layers": 61, "num_attention_heads": 128,
            "num_key_value_heads": 128, "n_shared_experts": 1, "n_routed_experts": 256,
            "num_experts_per_tok": 8, "first_k_dense_replace": 3, "moe_layer_freq": 1,
            "kv_lora_rank": 512, "q_lora_rank": 1536, "qk_nope_head_dim": 128,
            "qk_rope_head_dim": 64, "v_head_dim": 128, "vocab_size": 129280}
QWEN_MOE = {"model_type": "qwen3_moe", "hidden_size": 2048, "intermediate_size": 6144,
            "moe_intermediate_size": 768, "num_hidden_layers": 48, "num_attention_heads": 32,
            "num_key_value_heads": 4, "head_dim": 128, "num_experts": 128,
            "num_experts_per_tok": 8, "decoder_sparse_step": 1, "vocab_size": 151936}


def nested_list(depth, inner="1"):
    return "[" * depth + inner + "]" * depth


def nested_object(depth, key="a"):
    return '{"%s":' % key * depth + "1" + "}" * depth


def with_(base, **changes):
    out = dict(base)
    out.update(changes)
    return json.dumps(out)


def json_seeds():
    """Hostile shapes any JSON parser gets."""
    return {
        "deep-list": nested_list(DEPTH),
        "deep-object": nested_object(DEPTH),
        "deep-unclosed": "[" * DEPTH,
        "deep-in-string": '{"a": "' + "[" * DEPTH + '"}',
        "long-key": json.dumps({"k" * LONG: 1}),
        "long-number": '{"a": ' + "9" * LONG + "}",
        "long-array": json.dumps({"a": list(range(MANY))}),
        "many-keys": json.dumps({f"k{i}": i for i in range(MANY)}),
    }


def hf_config_seeds():
    seeds = json_seeds()
    seeds.update({
        "deep-hidden-size": '{"model_type": "llama", "hidden_size": ' + nested_list(DEPTH) + "}",
        "long-model-type": with_(LLAMA, model_type="x" * LONG),
        "long-string-field": with_(LLAMA, hidden_act="\\u0000" * (LONG // 6)),
        "llama-many-layers": with_(LLAMA, num_hidden_layers=MANY),
        "deepseek-many-layers-moe-freq": with_(DEEPSEEK, num_hidden_layers=MANY, moe_layer_freq=2,
                                               first_k_dense_replace=0),
        "deepseek-huge-dims": with_(DEEPSEEK, hidden_size=10_000_000, kv_lora_rank=10_000_000,
                                    q_lora_rank=10_000_000, qk_nope_head_dim=10_000_000,
                                    v_head_dim=10_000_000, num_attention_heads=10_000_000),
        # Vision-language encoders (io/vision_config.cpp): huge ratios and widths, many or
        # out-of-range full-attention blocks, a vision_config of the wrong kind.
        "qwen2-vl-huge-ratio": with_(LLAMA, model_type="qwen2_vl",
                                     vision_config={"embed_dim": 10_000_000, "mlp_ratio": 64,
                                                    "depth": MANY, "num_heads": 1}),
        "qwen2-5-vl-many-full-blocks": with_(LLAMA, model_type="qwen2_5_vl",
                                             vision_config={"depth": 32,
                                                            "fullatt_block_indexes":
                                                                list(range(-MANY, MANY))}),
        "qwen2-vl-vision-list": with_(LLAMA, model_type="qwen2_vl", vision_config=[1, 2]),
        # The Mamba-2 hybrids (io/hf_mamba.cpp): huge and zero mixer widths, a head width that is
        # not a number, attention layers out of range and repeated, a layer type per many layers.
        "falcon-h1-huge-mixer": with_(LLAMA, model_type="falcon_h1", mamba_d_ssm=10_000_000,
                                      mamba_n_heads=1, mamba_d_state=10_000_000,
                                      mamba_n_groups=10_000_000, mamba_d_head="auto"),
        "falcon-h1-zero-heads": with_(LLAMA, model_type="falcon_h1", mamba_n_heads=0,
                                      mamba_d_state=16, mamba_d_head=[64]),
        "bamba-layers-out-of-range": with_(LLAMA, model_type="bamba", mamba_n_heads=8,
                                           mamba_d_state=16,
                                           attn_layer_indices=list(range(-MANY, MANY, 7)) * 2),
        "granite-many-layer-types": with_(LLAMA, model_type="granitemoehybrid",
                                          num_hidden_layers=MANY, mamba_n_heads=8,
                                          mamba_d_state=16, num_local_experts=4,
                                          num_experts_per_tok=2, shared_intermediate_size=64,
                                          layer_types=["mamba", "attention"] * (MANY // 2)),
        "qwen2-5-vl-text-config": with_({}, model_type="qwen2_5_vl", text_config=LLAMA,
                                        vision_config={"spatial_merge_size": 0,
                                                       "patch_size": 0}),
        "qwen-moe-mlp-only-layers": with_(QWEN_MOE, num_hidden_layers=MANY,
                                          mlp_only_layers=list(range(0, MANY, 2))),
        "gemma3-layer-types": with_(LLAMA, model_type="gemma3_text",
                                    layer_types=["sliding_attention"] * MANY),
        "llama-many-unknown-keys": with_(LLAMA, **{f"unknown_{i}": i for i in range(MANY)}),
    })
    return seeds


def safetensors_file(header, data=b""):
    text = header if isinstance(header, bytes) else header.encode()
    return struct.pack("<Q", len(text)) + text + data


def safetensors_seeds():
    tensors = {f"t{i}": {"dtype": "BF16", "shape": [1], "data_offsets": [2 * i, 2 * i + 2]}
               for i in range(MANY // 10)}
    return {
        "deep-header": safetensors_file(nested_list(DEPTH)),
        "deep-shape": safetensors_file('{"t": {"dtype": "F32", "shape": ' + nested_list(DEPTH)
                                       + ', "data_offsets": [0, 4]}}'),
        "long-dtype": safetensors_file(json.dumps(
            {"t": {"dtype": "F" * LONG, "shape": [1], "data_offsets": [0, 4]}})),
        "long-shape": safetensors_file(json.dumps(
            {"t": {"dtype": "F32", "shape": [1] * MANY, "data_offsets": [0, 4]}})),
        "long-metadata": safetensors_file(json.dumps({"__metadata__": {"m": "v" * LONG}})),
        "many-tensors": safetensors_file(json.dumps(tensors), b"\0" * (2 * (MANY // 10))),
        "length-past-end": struct.pack("<Q", 2**64 - 1) + b"{}",
    }


def shard_index_seeds():
    seeds = json_seeds()
    files = [f"m-{i:02}.safetensors" for i in range(100)]
    seeds.update({
        "many-entries": json.dumps({"metadata": {"total_size": 10**12},
                                    "weight_map": {f"t{i}": files[i % 100] for i in range(MANY)}}),
        "many-bad-entries": json.dumps({"weight_map": {f"t{i}": "../x" for i in range(MANY)}}),
        "long-file-name": json.dumps({"weight_map": {"t": "f" * LONG}}),
        "deep-weight-map": '{"weight_map": ' + nested_object(DEPTH) + "}",
    })
    return seeds


def toml_seeds():
    """Hostile shapes any TOML parser gets."""
    return {
        "deep-array": "a = " + nested_list(DEPTH),
        "deep-inline-table": "a = " + "{b = " * DEPTH + "1" + "}" * DEPTH,
        "long-dotted-key": ".".join(["k"] * (LONG // 2)) + " = 1",
        "deep-table-header": "[" + ".".join(["t"] * (LONG // 2)) + "]",
        "long-string": 'id = "' + "x" * LONG + '"',
        "long-multiline": 'notes = """' + "\\\n" * (LONG // 2) + '"""',
        "long-array": "a = [" + ", ".join("1" for _ in range(MANY)) + "]",
        "many-tables": "\n".join(f"[t{i}]\nv = {i}" for i in range(MANY // 4)),
        "long-number": "a = " + "9" * LONG,
    }


DEVICE = '''id = "fuzz"
name = "Fuzz"
vendor = "acme"
category = "datacenter-gpu"

[memory]
capacity_gb = 80
bandwidth_gb_per_s = 3350
source = "s"

[compute.bf16]
dense_tflops = 989.5
kind = "spec"
source = "s"
'''


def device_toml_seeds():
    seeds = toml_seeds()
    seeds.update({
        "long-notes": DEVICE + 'notes = "' + "n" * LONG + '"\n',
        "many-compute": DEVICE + "".join(
            f'[compute.x{i}]\ndense_tflops = 1\nkind = "spec"\nsource = "s"\n'
            for i in range(MANY // 10)),
    })
    return seeds


def preset(config):
    lines = ['name = "Fuzz"', 'hf_repo = "fuzz/fuzz"', 'source = "s"',
             "published_params = 1000000", "", "[config]"]
    lines += [f"{k} = {json.dumps(v)}" for k, v in config.items()]
    return "\n".join(lines) + "\n"


def model_preset_seeds():
    seeds = toml_seeds()
    seeds.update({
        "deepseek-many-layers-moe-freq": preset(dict(DEEPSEEK, num_hidden_layers=MANY,
                                                     moe_layer_freq=2, first_k_dense_replace=0)),
        "qwen-moe-mlp-only-layers": preset(dict(QWEN_MOE, num_hidden_layers=MANY,
                                                mlp_only_layers=list(range(0, MANY, 2)))),
        "deepseek-huge-dims": preset(dict(DEEPSEEK, hidden_size=10_000_000,
                                          kv_lora_rank=10_000_000, q_lora_rank=10_000_000,
                                          qk_nope_head_dim=10_000_000, v_head_dim=10_000_000)),
        "deep-config": "[config]\nhidden_size = " + nested_list(DEPTH) + "\n",
        "long-name": preset(LLAMA).replace('"Fuzz"', '"' + "n" * LONG + '"'),
    })
    return seeds


def quantity_seeds():
    """The first byte picks the parser (quantity_fuzz.cpp), the rest is the text."""
    ids = ["h100-sxm", "m3-ultra", "a100-sxm-80gb"]
    return {
        "count-long-digits": b"\0" + b"1" * LONG,
        "count-long-fraction": b"\0" + b"0." + b"0" * LONG + b"1",
        "count-long-exponent": b"\0" + b"1e" + b"9" * LONG,
        "number-long-digits": b"\1" + b"0." + b"9" * LONG,
        "machine-many": b"\3" + ",".join(ids[i % 3] + ":bf16" for i in range(MANY)).encode(),
        "machine-long-id": b"\3" + b"h" * LONG,
        "list-many-commas": b"\4" + b"," * LONG,
        "list-many-items": b"\4" + b"a, " * MANY + b"a",
        "list-spaces": b"\4" + b" \t" * LONG,
        "lora-many-targets": b"\5" + b",".join([b"q", b"k", b"v"] * MANY),
        "method-long": b"\6" + b"l" * LONG,
    }


def request_seeds():
    seeds = json_seeds()
    seeds.update({
        "machine-long-list": json.dumps({"machine": ["h100-sxm"] * MANY}),
        "long-model": json.dumps({"model": "m" * LONG}),
        "long-params": json.dumps({"params": "9" * LONG}),
        "many-unknown-keys": json.dumps({f"micro_bach{i}": 1 for i in range(MANY // 10)}),
        "lora-many-targets": json.dumps({"model": "gpt2", "method": "lora",
                                         "lora_targets": ["q"] * MANY}),
        "huge-numbers": json.dumps({"micro_batch": 1e308, "seq_len": -1e308, "grad_accum": 2**63,
                                    "lora_rank": 18446744073709551615, "devices": 1.5}),
    })
    return seeds


def training_config_seeds():
    seeds = json_seeds()
    # The test configs (tests/data/configs: TRL, DeepSpeed, axolotl, LLaMA-Factory, torchtune,
    # accelerate, verl) as seeds, read where they are rather than copied into the corpus.
    configs = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "configs")
    for name in sorted(os.listdir(configs)):
        with open(os.path.join(configs, name), "rb") as f:
            seeds["config-" + name] = f.read()
    words = " \\\n    ".join(f"actor_rollout_ref.k{i}={i}" for i in range(MANY // 10))
    seeds.update({
        "yaml-deep-flow": "a: " + nested_list(DEPTH // 1000),
        "yaml-many-dotted": "\n".join(f"actor_rollout_ref.x{i}.y: {i}" for i in range(MANY // 10)),
        "verl-script-long": "python3 -m verl.trainer.main_ppo \\\n    " + words + "\n",
        "verl-script-long-value": "python3 -m verl.trainer.main_ppo data.train_batch_size="
                                  + "9" * LONG + "\n",
        # Arrays of overrides (NAME=( ... ), "${NAME[@]}"): a 10,000-word one, one never
        # closed, one whose words hold parentheses, quotes and comments.
        "verl-script-array-long": "A=(\n    " + words.replace(" \\\n", "\n") + "\n)\n"
                                  "python3 -m verl.trainer.main_ppo \"${A[@]}\"\n",
        "verl-script-array-open": "A=( 'x=1' \"y=(\" # )\n" * 100
                                  + "python3 -m verl.trainer.main_ppo \"${A[@]}\" a.b=1\n",
        "trl-grpo-types": json.dumps({"num_generations": [8], "use_vllm": "yes",
                                      "vllm_mode": 5, "per_device_train_batch_size": "x"}),
    })
    return seeds


def http_request_seeds():
    host = "Host: 127.0.0.1:8765\r\n"
    return {
        "many-fields": "GET / HTTP/1.1\r\n" + host + "".join(f"X-{i}: {i}\r\n" for i in range(MANY // 100)) + "\r\n",
        "long-target": "GET /" + "a" * LONG + " HTTP/1.1\r\n" + host + "\r\n",
        "many-chunks": "POST /api/estimate HTTP/1.1\r\n" + host + "Transfer-Encoding: chunked\r\n\r\n"
                       + "1\r\nx\r\n" * (MANY // 10) + "0\r\n\r\n",
        "huge-chunk-size": "POST /api/plan HTTP/1.1\r\n" + host + "Transfer-Encoding: chunked\r\n\r\n"
                           + "f" * 40 + "\r\nx\r\n",
        "percent-run": "GET /?q=" + "%41" * (LONG // 3) + " HTTP/1.1\r\n" + host + "\r\n",
    }


def dataset_text_seeds():
    return {
        "many-lines": "\n".join(json.dumps({"text": f"line {i}"}) for i in range(MANY)),
        "deep-record": nested_object(DEPTH),
        "long-string": json.dumps({"text": "x" * LONG}),
        "many-blank-lines": "\n" * MANY,
    }


def hub_cache_seeds():
    return {"long-ref": "a" * LONG, "many-lines": "c0ffee\n" * MANY}


def verl_script_seeds():
    # The hostile verl seeds and the test configs' verl scripts (tests/data/configs/verl*.sh).
    seeds = {k: v for k, v in training_config_seeds().items()
             if k.startswith("verl-") or (k.startswith("config-verl") and k.endswith(".sh"))}
    seeds["deep-arithmetic"] = "data.train_batch_size=$((" * 1000 + "1" + "))" * 1000 + "\n"
    # Shell variables before the command (the target repeats its input there): a long chain of
    # arithmetic on earlier ones, overflow, division by zero, deep parentheses, unclosed forms.
    chain = "\n".join(["v0=1"] + [f"v{i}=$(( v{i - 1} * 2 + 1 ))" for i in range(1, MANY // 10)])
    seeds["many-variables"] = chain + "\ndata.train_batch_size=${v" + str(MANY // 10 - 1) + "}\n"
    seeds["hostile-arithmetic"] = "\n".join([
        "a=$((9223372036854775807 * 2))", "b=$(( 1 / 0 ))", "c=$(( -9223372036854775807 - 1 ))",
        "d=$(( c / -1 ))", "e=$(( " + "(" * 200 + "1" + ")" * 200 + " ))", "f=$(( 1 +",
        "g=${", "h=\"abc", "i=${a:-${b}}", "j=$((a)) data.train_batch_size=$j",
        "data.train_batch_size=$(( 2 * ${nproc:-4} ))"]) + "\n"
    return seeds


TARGETS = {
    "http_request": http_request_seeds,
    "dataset_text": dataset_text_seeds,
    "hub_cache": hub_cache_seeds,
    "verl_script": verl_script_seeds,
    "hf_config": hf_config_seeds,
    "safetensors": safetensors_seeds,
    "shard_index": shard_index_seeds,
    "device_toml": device_toml_seeds,
    "model_preset": model_preset_seeds,
    "quantity": quantity_seeds,
    "request": request_seeds,
    "training_config": training_config_seeds,
}


def main():
    out = sys.argv[1]
    for target, make in TARGETS.items():
        os.makedirs(os.path.join(out, target), exist_ok=True)
        for name, seed in make().items():
            data = seed if isinstance(seed, bytes) else seed.encode()
            with open(os.path.join(out, target, name), "wb") as f:
                f.write(data)


if __name__ == "__main__":
    main()
