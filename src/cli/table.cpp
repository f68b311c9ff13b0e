#include "table.hpp"

#include <algorithm>
#include <cctype>

namespace morpheus::cli {

namespace {
bool numeric(const std::string &s) {
    return !s.empty() && (std::isdigit(static_cast<unsigned char>(s[0])) || s == "-");
}
}  // namespace

std::string Table::render(bool header) const {
    std::vector<size_t> width;
    for (const auto &row : rows_)
        for (size_t i = 0; i < row.size(); ++i) {
            if (width.size() <= i) width.push_back(0);
            width[i] = std::max(width[i], row[i].size());
        }
    std::string out;
    for (size_t r = header ? 0 : 1; r < rows_.size(); ++r) {
        const auto &row = rows_[r];
        std::string line;
        for (size_t i = 0; i < row.size(); ++i) {
            std::string pad(width[i] - row[i].size(), ' ');
            bool right = r > 0 && numeric(row[i]);
            line += right ? pad + row[i] : row[i] + (i + 1 < row.size() ? pad : "");
            if (i + 1 < row.size()) line += "  ";
        }
        while (!line.empty() && line.back() == ' ') line.pop_back();
        out += line + "\n";
    }
    return out;
}

}  // namespace morpheus::cli
