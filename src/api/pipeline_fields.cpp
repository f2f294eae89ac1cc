// The uneven pipeline split's rows of the estimate's field table (docs/scale.md, "Pipeline
// stages"): Megatron-Core's num_layers_in_first_pipeline_stage and
// num_layers_in_last_pipeline_stage, as NeMo RL's and Megatron-Bridge's DeepSeek-V3 and
// Qwen3-235B recipes set them.
#include <array>
#include <string>

#include "field_checks.hpp"
#include "trainbudget/api/field.hpp"
#include "trainbudget/api/request.hpp"

namespace tb::api {
namespace {

using R = EstimateRequest&;
using V = std::string_view;
using checks::whole;

// A stage holds at most every layer the checks allow an architecture.
constexpr std::int64_t kMaxStageLayers = 1 << 16;

std::string stage_layer_counts() { return "1..65536 decoder layers"; }

const std::array kPipelineFields{
    Field{"first_stage_layers", FieldType::kInteger, "N", "layers", "",
          "Megatron-Core's num_layers_in_first_pipeline_stage: the first pipeline stage runs N "
          "decoder layers and the stages without a given count split the rest evenly (needs "
          "{pp} > 1, {virtual_stages} 1); default: the even split",
          stage_layer_counts,
          [](V v, R r) {
            r.job.parallel.first_stage_layers =
                static_cast<int>(whole(v, "first_stage_layers", kMaxStageLayers));
          },
          "layout"},
    Field{"last_stage_layers", FieldType::kInteger, "N", "layers", "",
          "Megatron-Core's num_layers_in_last_pipeline_stage: the last pipeline stage runs N "
          "decoder layers (as {first_stage_layers})",
          stage_layer_counts,
          [](V v, R r) {
            r.job.parallel.last_stage_layers =
                static_cast<int>(whole(v, "last_stage_layers", kMaxStageLayers));
          },
          "layout"},
};

}  // namespace

std::span<const Field> pipeline_fields() { return kPipelineFields; }

}  // namespace tb::api
