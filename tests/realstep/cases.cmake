# The real-step cases: name, tolerance, then realstep.py's options. Each prints the measured
# and predicted peaks and the error; docs/realstep.md lists the last run's figures.
tb_realstep(llama_mha_b2_s256 0.05 --config llama-mha.json --micro-batch 2 --seq-len 256)
tb_realstep(llama_mha_b1_s512 0.05 --config llama-mha.json --micro-batch 1 --seq-len 512)
tb_realstep(llama_mha_b8_s64 0.05 --config llama-mha.json --micro-batch 8 --seq-len 64)
tb_realstep(llama_mha_sgd 0.05 --config llama-mha.json --micro-batch 2 --seq-len 256 --optimizer sgd)
tb_realstep(llama_mha_recompute_full 0.05 --config llama-mha.json --micro-batch 2 --seq-len 256 --recompute full)
tb_realstep(llama_mha_grad_accum4 0.05 --config llama-mha.json --micro-batch 2 --seq-len 128 --grad-accum 4)
tb_realstep(llama_mha_lora_qv 0.05 --config llama-mha.json --micro-batch 2 --seq-len 256 --method lora --lora-rank 8 --lora-targets q,v)
tb_realstep(llama_mha_lora_all 0.05 --config llama-mha.json --micro-batch 2 --seq-len 256 --method lora --lora-rank 16 --lora-targets all-linear)
tb_realstep(llama_gqa_tied_b2_s256 0.05 --config llama-gqa-tied.json --micro-batch 2 --seq-len 256)
tb_realstep(llama_gqa_tied_recompute_full 0.05 --config llama-gqa-tied.json --micro-batch 4 --seq-len 256 --recompute full)
tb_realstep(llama_gqa_tied_lora_all 0.05 --config llama-gqa-tied.json --micro-batch 2 --seq-len 256 --method lora --lora-targets all-linear)
tb_realstep(llama_big_vocab 0.05 --config llama-big-vocab.json --micro-batch 2 --seq-len 256)
tb_realstep(llama_big_vocab_sgd 0.05 --config llama-big-vocab.json --micro-batch 1 --seq-len 512 --optimizer sgd)
tb_realstep(gpt2_b2_s256 0.05 --config gpt2.json --micro-batch 2 --seq-len 256)
tb_realstep(gpt2_b4_s128_recompute_full 0.05 --config gpt2.json --micro-batch 4 --seq-len 128 --recompute full)
tb_realstep(mixtral_b2_s256 0.05 --config mixtral.json --micro-batch 2 --seq-len 256)
tb_realstep(mixtral_sgd_b4_s128 0.05 --config mixtral.json --micro-batch 4 --seq-len 128 --optimizer sgd)
# A parallel block from one LayerNorm (Phi-1.5/2's PhiDecoderLayer): attention and the MLP read
# one norm's output, so the layer keeps it once and has no second norm.
tb_realstep(phi_parallel_b2_s256 0.05 --config phi-tiny.json --micro-batch 2 --seq-len 256)
tb_realstep(phi_parallel_recompute_full 0.05 --config phi-tiny.json --micro-batch 4 --seq-len 128 --recompute full)
tb_realstep(phi_parallel_lora_all 0.05 --config phi-tiny.json --micro-batch 2 --seq-len 256 --method lora --lora-rank 8 --lora-targets all-linear)
tb_realstep(llama_gqa_tied_bf16 0.05 --config llama-gqa-tied.json --micro-batch 2 --seq-len 256 --dtype bf16)
# Preference objectives (docs/rl.md): chosen and rejected as one batch of twice the rows, the
# logits reduced to log-probs and let go; DPO's reference a frozen copy (full) or the base with
# the adapters off (LoRA), its forward under no_grad before the policy's.
tb_realstep(llama_mha_dpo_full 0.05 --config llama-mha.json --micro-batch 2 --seq-len 256 --trainer dpo)
tb_realstep(llama_mha_orpo_full 0.05 --config llama-mha.json --micro-batch 2 --seq-len 256 --trainer orpo)
tb_realstep(llama_mha_dpo_lora_qv 0.05 --config llama-mha.json --micro-batch 2 --seq-len 256 --trainer dpo --method lora --lora-rank 8 --lora-targets q,v)
tb_realstep(llama_gqa_tied_dpo_b1_s512 0.05 --config llama-gqa-tied.json --micro-batch 1 --seq-len 512 --trainer dpo)
# GRPO (docs/rl.md, "Online RL"): completions generated with a KV cache (greedy, as generate()
# runs), then trained on prompt + completion; both phases checked (generation: the states
# without gradients, the cache and the prefill's working set; update: the step's peak).
tb_realstep(llama_mha_grpo_g4 0.05 --config llama-mha.json --trainer grpo --micro-batch 8 --num-generations 4 --max-prompt-length 64 --max-completion-length 64)
tb_realstep(llama_gqa_tied_grpo_p128 0.05 --config llama-gqa-tied.json --trainer grpo --micro-batch 4 --num-generations 4 --max-prompt-length 128 --max-completion-length 128)
tb_realstep(gpt2_grpo_g8_long 0.05 --config gpt2.json --trainer grpo --micro-batch 8 --num-generations 8 --max-prompt-length 32 --max-completion-length 192)
# A vision-language model (docs/vision.md): Qwen2-VL's encoder (tests/realstep/vision.py) over
# one 224 x 224 image a sequence (256 patches, 64 + 2 tokens), frozen (a forward without
# gradients) or trained with the language model.
tb_realstep(qwen2_vl_tower_frozen 0.05 --config qwen2-vl-tiny.json --micro-batch 2 --seq-len 128 --images 1 --image-size 224)
tb_realstep(qwen2_vl_tower_trained 0.05 --config qwen2-vl-tiny.json --micro-batch 2 --seq-len 128 --images 1 --image-size 224 --train-vision-tower)
