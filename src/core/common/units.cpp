// Strict unit parsing: a typo ("64GG", "300 ms s", "-5G") is an error, never a guess.
#include "units.hpp"

#include <cmath>
#include <cstdio>
#include <limits>

#include "input_error.hpp"

namespace morpheus {
namespace {

struct Number {
    uint64_t whole;  // digits before the dot, exactly
    double fraction;  // digits after it, as a fraction in [0, 1)
    std::string_view suffix;
};

// Splits "<digits>[.<digits>]<suffix>" and refuses signs, exponents, empty numbers and whole
// parts beyond 64 bits. Whole parts stay integers so "18014398509481985" is not rounded.
Number split_number(std::string_view text, const std::string &what, const char *form) {
    auto too_large = [&] {
        return InputError("", what, "'" + std::string(text) + "' is too large", std::string("write it as ") + form);
    };
    size_t i = 0;
    while (i < text.size() && text[i] == ' ') ++i;
    bool digits = false;
    uint64_t whole = 0;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
        digits = true;
        if (__builtin_mul_overflow(whole, 10u, &whole) ||
            __builtin_add_overflow(whole, static_cast<unsigned>(text[i] - '0'), &whole))
            throw too_large();
        ++i;
    }
    double fraction = 0;
    if (i < text.size() && text[i] == '.') {
        size_t start = i++;
        while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
            digits = true;
            ++i;
        }
        fraction = std::strtod(std::string(text.substr(start, i - start)).c_str(), nullptr);
    }
    if (!digits)
        throw InputError("", what, "'" + std::string(text) + "' is not a number with a unit",
                         std::string("write it as ") + form);
    size_t end = text.size();
    while (end > i && text[end - 1] == ' ') --end;
    return {whole, fraction, text.substr(i, end - i)};
}

bool iequals(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
        if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i])))
            return false;
    return true;
}

// whole.fraction x scale in 64 bits; anything that does not fit is refused, never wrapped.
uint64_t checked_product(const Number &n, uint64_t scale, std::string_view text, const std::string &what,
                         const char *form) {
    uint64_t bytes, part = 0;
    if (n.fraction > 0) {
        long double f = static_cast<long double>(n.fraction) * static_cast<long double>(scale);
        part = static_cast<uint64_t>(std::llround(static_cast<double>(f)));  // f < scale <= 2^50
    }
    if (__builtin_mul_overflow(n.whole, scale, &bytes) || __builtin_add_overflow(bytes, part, &bytes))
        throw InputError("", what, "'" + std::string(text) + "' is too large",
                         std::string("write it as ") + form + ", at most 16E in all");
    return bytes;
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
    uint64_t scale;
    if (s.empty()) {
        scale = 1;
    } else if (s.size() == 1) {
        switch (std::toupper(static_cast<unsigned char>(s[0]))) {
        case 'K': scale = 1ULL << 10; break;
        case 'M': scale = 1ULL << 20; break;
        case 'G': scale = 1ULL << 30; break;
        case 'T': scale = 1ULL << 40; break;
        case 'P': scale = 1ULL << 50; break;
        default:
            throw InputError("", what,
                             "unknown size unit '" + std::string(n.suffix) + "' in '" + std::string(text) + "'",
                             std::string("write it as ") + form);
        }
    } else {
        throw InputError("", what, "unknown size unit '" + std::string(n.suffix) + "' in '" + std::string(text) + "'",
                         std::string("write it as ") + form);
    }
    return checked_product(n, scale, text, what, form);
}

uint64_t parse_latency(std::string_view text, const std::string &what) {
    static const char *form = "a number with ns, us, ms or s, e.g. 350ns or 1.2us";
    Number n = split_number(text, what, form);
    uint64_t scale;
    if (n.suffix.empty() || iequals(n.suffix, "ns"))
        scale = 1;
    else if (iequals(n.suffix, "us"))
        scale = 1000;
    else if (iequals(n.suffix, "ms"))
        scale = 1000000;
    else if (iequals(n.suffix, "s"))
        scale = 1000000000;
    else
        throw InputError("", what, "unknown time unit '" + std::string(n.suffix) + "' in '" + std::string(text) + "'",
                         std::string("write it as ") + form);
    uint64_t ns = checked_product(n, scale, text, what, form);
    if (ns > kMaxLatencyNs)
        throw InputError("", what, "'" + std::string(text) + "' is longer than the 1s maximum",
                         "give the latency of one link or bound, e.g. 350ns or 1.2us");
    return ns;
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
