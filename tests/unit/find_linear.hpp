// The linear layer at a module path in a model's list, or a test failure naming the path (the
// hybrid families' tests: mamba_hybrid_test.cpp, lfm2_test.cpp).
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "trainbudget/model/linear_layers.hpp"

namespace tb::testing_models {

inline LinearLayer find_linear(const std::vector<LinearLayer>& all, const std::string& path) {
  for (const LinearLayer& l : all) {
    if (l.path == path) return l;
  }
  ADD_FAILURE() << path;
  return LinearLayer{};
}

}  // namespace tb::testing_models
