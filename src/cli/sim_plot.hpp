// Utilisation over time per policy, drawn by gnuplot (svg or png by the file's extension).
#pragma once
#include <string>
#include <vector>

#include "gnuplot.hpp"  // check_plot_path, checked before a long run
#include "simulator.hpp"

namespace morpheus::cli {

// Throws InputError when the extension is neither .svg nor .png or gnuplot fails.
void plot_utilisation(const std::string &path, const std::string &title,
                      const std::vector<morpheus::sim::SimResult> &runs);

}  // namespace morpheus::cli
