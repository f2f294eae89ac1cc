// Which training framework runs a layout (docs/frameworks.md, "Who runs the layout"): each
// framework's own refusals, read in its code, as predicates over a layout. A plan row names the
// framework that runs it, and `--framework` narrows the search to what that framework accepts.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "trainbudget/model/profile.hpp"
#include "trainbudget/spec/enum_names.hpp"
#include "trainbudget/spec/framework.hpp"
#include "trainbudget/spec/layout.hpp"

namespace tb {

// The frameworks a planner hands a layout to.
enum class Runner : std::uint8_t {
  kMegatron,    // Megatron-Core (Megatron-LM, NeMo, Megatron-Bridge)
  kFsdp,        // FSDP2 as torchtitan composes it (also torchtune's distributed recipes)
  kDeepspeed,   // the DeepSpeed engine (Megatron-DeepSpeed, a DeepSpeed script)
  kAccelerate,  // transformers' Trainer through accelerate (DeepSpeed or FSDP underneath)
  kUnsloth,     // unsloth: one GPU, TRL's trainers over its patched model
};
inline constexpr std::size_t kRunners = 5;

template <>
struct EnumNames<Runner> {
  static constexpr std::array<std::pair<Runner, std::string_view>, kRunners> kNames{
      {{Runner::kMegatron, "megatron-core"},
       {Runner::kFsdp, "fsdp2"},
       {Runner::kDeepspeed, "deepspeed"},
       {Runner::kAccelerate, "hf-accelerate"},
       {Runner::kUnsloth, "unsloth"}}};
};

// The runners a framework profile stands for, in the order a plan names them: megatron,
// deepspeed, hf, unsloth each their own; fsdp, torchtitan, torchtune, pytorch and litgpt FSDP2;
// generic any of the four: for a fine-tune transformers' Trainer first, then FSDP2, DeepSpeed and
// Megatron-Core; for pretraining Megatron-Core first, then FSDP2, DeepSpeed and the Trainer.
[[nodiscard]] std::span<const Runner> runners_of(Framework framework,
                                                 bool fine_tuning = false) noexcept;

// Whether `runner` runs the layout: none of its refusals applies.
[[nodiscard]] bool runs(Runner runner, const ModelProfile& profile, const Layout& layout) noexcept;

// The first of `runners` that runs the layout; nullopt: none does.
[[nodiscard]] std::optional<Runner> runner_for(std::span<const Runner> runners,
                                               const ModelProfile& profile,
                                               const Layout& layout) noexcept;

// Why `runner` refuses the layout, in one line citing the framework's code; empty: it runs it.
[[nodiscard]] std::string refusal(Runner runner, const ModelProfile& profile, const Layout& layout);

}  // namespace tb
