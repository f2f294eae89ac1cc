// config.json reader of DBRX ("dbrx", DbrxConfig).
#pragma once

#include "field_reader.hpp"
#include "trainbudget/spec/architecture.hpp"

namespace tb::io {

ModelArchitecture read_dbrx(FieldReader<JsonSource>& f);

}  // namespace tb::io
