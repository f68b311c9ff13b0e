// Column-aligned tables for people, in the manner of sinfo/squeue.
#pragma once
#include <string>
#include <vector>

namespace morpheus::cli {

class Table {
public:
    explicit Table(std::vector<std::string> headers) : rows_{std::move(headers)} {}
    void add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
    // Numbers (and sizes) are right-aligned, text left-aligned. Without the header line for
    // -h/--noheader, as sinfo and squeue print (the widths still count it, so columns line up
    // the same with and without).
    std::string render(bool header = true) const;

private:
    std::vector<std::vector<std::string>> rows_;
};

}  // namespace morpheus::cli
