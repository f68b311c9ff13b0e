// Strict unit parsing: a typo ("64GG", "300 ms s", "-5G") is an error, never a guess.
#include "units.hpp"

#include <cmath>
#include <cstdio>
#include <limits>

#include "input_error.hpp"

namespace morpheus {
namespace {

struct Number {
    double value;
    std::string_view suffix;
};

// Splits "<digits>[.<digits>]<suffix>" and refuses signs, exponents and empty numbers.
Number split_number(std::string_view text, const std::string &what, const char *form) {
    size_t i = 0;
    while (i < text.size() && text[i] == ' ') ++i;
    size_t start = i;
    bool digits = false, dot = false;
    while (i < text.size()) {
        char c = text[i];
        if (c >= '0' && c <= '9') {
            digits = true;
        } else if (c == '.' && !dot) {
            dot = true;
        } else {
            break;
        }
        ++i;
    }
    if (!digits)
        throw InputError("", what, "'" + std::string(text) + "' is not a number with a unit",
                         std::string("write it as ") + form);
    std::string number(text.substr(start, i - start));
    size_t end = text.size();
    while (end > i && text[end - 1] == ' ') --end;
    double value = std::strtod(number.c_str(), nullptr);
    if (!std::isfinite(value) || value > 1e18)
        throw InputError("", what, "'" + std::string(text) + "' is too large",
                         std::string("write it as ") + form);
    return {value, text.substr(i, end - i)};
}

bool iequals(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
        if (std::tolower(static_cast<unsigned char>(a[i])) !=
            std::tolower(static_cast<unsigned char>(b[i])))
            return false;
    return true;
}

uint64_t checked_product(double value, double scale, std::string_view text, const std::string &what,
                         const char *form) {
    long double product = static_cast<long double>(value) * scale;
    if (product > static_cast<long double>(std::numeric_limits<uint64_t>::max() / 2))
        throw InputError("", what, "'" + std::string(text) + "' is too large",
                         std::string("write it as ") + form);
    return static_cast<uint64_t>(std::llround(static_cast<double>(product)));
}

}  // namespace

uint64_t parse_size(std::string_view text, const std::string &what) {
    static const char *form = "a number with an optional K, M, G, T or P suffix, e.g. 512G";
    Number n = split_number(text, what, form);
    std::string_view s = n.suffix;
    // Accept "G", "GB", "GiB" (all powers of 1024, as Slurm does).
    if (s.size() >= 2 && (s.substr(s.size() - 2) == "iB" || s.substr(s.size() - 2) == "ib"))
        s = s.substr(0, s.size() - 2);
    else if (s.size() >= 2 && (s.back() == 'B' || s.back() == 'b'))
        s = s.substr(0, s.size() - 1);
    double scale;
    if (s.empty()) {
        scale = 1;
    } else if (s.size() == 1) {
        switch (std::toupper(static_cast<unsigned char>(s[0]))) {
        case 'K': scale = 1024.0; break;
        case 'M': scale = 1024.0 * 1024; break;
        case 'G': scale = 1024.0 * 1024 * 1024; break;
        case 'T': scale = 1024.0 * 1024 * 1024 * 1024; break;
        case 'P': scale = 1024.0 * 1024 * 1024 * 1024 * 1024; break;
        default:
            throw InputError("", what, "unknown size unit '" + std::string(n.suffix) + "' in '" +
                                           std::string(text) + "'",
                             std::string("write it as ") + form);
        }
    } else {
        throw InputError("", what,
                         "unknown size unit '" + std::string(n.suffix) + "' in '" + std::string(text) + "'",
                         std::string("write it as ") + form);
    }
    return checked_product(n.value, scale, text, what, form);
}

uint64_t parse_latency(std::string_view text, const std::string &what) {
    static const char *form = "a number with ns, us, ms or s, e.g. 350ns or 1.2us";
    Number n = split_number(text, what, form);
    double scale;
    if (n.suffix.empty() || iequals(n.suffix, "ns"))
        scale = 1;
    else if (iequals(n.suffix, "us"))
        scale = 1e3;
    else if (iequals(n.suffix, "ms"))
        scale = 1e6;
    else if (iequals(n.suffix, "s"))
        scale = 1e9;
    else
        throw InputError("", what,
                         "unknown time unit '" + std::string(n.suffix) + "' in '" + std::string(text) + "'",
                         std::string("write it as ") + form);
    return checked_product(n.value, scale, text, what, form);
}

std::string format_size(uint64_t bytes) {
    static const char *units[] = {"", "K", "M", "G", "T", "P"};
    int u = 0;
    double v = static_cast<double>(bytes);
    while (v >= 1024 && u < 5) {
        v /= 1024;
        ++u;
    }
    char buf[32];
    if (v == std::floor(v))
        std::snprintf(buf, sizeof buf, "%.0f%s", v, units[u]);
    else
        std::snprintf(buf, sizeof buf, "%.1f%s", v, units[u]);
    return buf;
}

std::string format_latency(uint64_t ns) {
    char buf[32];
    if (ns < 1000)
        std::snprintf(buf, sizeof buf, "%lluns", static_cast<unsigned long long>(ns));
    else if (ns < 1000000)
        std::snprintf(buf, sizeof buf, "%gus", static_cast<double>(ns) / 1e3);
    else
        std::snprintf(buf, sizeof buf, "%gms", static_cast<double>(ns) / 1e6);
    return buf;
}

}  // namespace morpheus
