// Hostlist expansion follows Slurm's rules: zero-padded ranges keep their width.
#include "hostlist.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "input_error.hpp"

namespace morpheus {
namespace {

// Splits at top-level commas (commas inside brackets belong to ranges).
std::vector<std::string_view> split_top_level(std::string_view expr, const std::string &where) {
    std::vector<std::string_view> parts;
    int depth = 0;
    size_t start = 0;
    for (size_t i = 0; i < expr.size(); ++i) {
        char c = expr[i];
        if (c == '[') {
            if (++depth > 1) throw InputError("", where, "nested '[' in '" + std::string(expr) + "'");
        } else if (c == ']') {
            if (--depth < 0) throw InputError("", where, "unmatched ']' in '" + std::string(expr) + "'");
        } else if (c == ',' && depth == 0) {
            parts.push_back(expr.substr(start, i - start));
            start = i + 1;
        }
    }
    if (depth != 0)
        throw InputError("", where, "unmatched '[' in '" + std::string(expr) + "'",
                         "close the range, e.g. gpu[000-127]");
    parts.push_back(expr.substr(start));
    return parts;
}

bool all_digits(std::string_view s) {
    if (s.empty()) return false;
    for (char c : s)
        if (c < '0' || c > '9') return false;
    return true;
}

// One item of a bracket group: "000-127" or "7".
struct Range {
    unsigned long first, last;
    int width;  // zero-padded width, 0 for none
};

int decimal_digits(unsigned long v) {
    int n = 1;
    while (v >= 10) v /= 10, ++n;
    return n;
}

// "000-127,200" -> its ranges, nothing expanded yet.
std::vector<Range> parse_ranges(std::string_view body, const std::string &where, std::string_view expr) {
    std::vector<Range> out;
    size_t start = 0;
    while (start <= body.size()) {
        size_t comma = body.find(',', start);
        std::string_view item = body.substr(start, comma == std::string_view::npos ? body.npos : comma - start);
        size_t dash = item.find('-');
        std::string_view lo = item.substr(0, dash);
        std::string_view hi = dash == std::string_view::npos ? lo : item.substr(dash + 1);
        if (!all_digits(lo) || !all_digits(hi) || lo.size() > 9 || hi.size() > 9)
            throw InputError("", where, "bad range '" + std::string(item) + "' in '" + std::string(expr) + "'",
                             "use [first-last] with decimal numbers, e.g. gpu[0000-0511]");
        unsigned long a = std::strtoul(std::string(lo).c_str(), nullptr, 10);
        unsigned long b = std::strtoul(std::string(hi).c_str(), nullptr, 10);
        if (b < a)
            throw InputError("", where,
                             "range '" + std::string(item) + "' runs backwards in '" + std::string(expr) + "'");
        int width = lo.size() > 1 && lo[0] == '0' ? static_cast<int>(lo.size()) : 0;
        out.push_back({a, b, width});
        if (comma == std::string_view::npos) break;
        start = comma + 1;
    }
    return out;
}

// A literal ("gpu") or a bracket group ("[000-127,200]") of one name pattern.
struct Group {
    std::string literal;  // when ranges is empty
    std::vector<Range> ranges;
    size_t count = 1;  // names it stands for
    size_t longest = 0;  // bytes of its longest piece
};

std::vector<std::string> expand_group(const Group &g) {
    if (g.ranges.empty()) return {g.literal};
    std::vector<std::string> out;
    out.reserve(g.count);
    for (const Range &r : g.ranges)
        for (unsigned long v = r.first; v <= r.last; ++v) {
            char buf[16];
            std::snprintf(buf, sizeof buf, "%0*lu", r.width, v);
            out.emplace_back(buf);
        }
    return out;
}

// One comma-free name pattern: literal text and bracket groups, expanded as a cartesian
// product. The product's size (names and bytes) is counted with overflow checks and held
// against what is left of the budget before a single name is built.
void expand_one(std::string_view name, const std::string &where, std::string_view expr, HostlistLimits &left,
                std::vector<std::string> &out) {
    std::vector<Group> groups;
    size_t total = 1, name_bytes = 0;
    auto too_many = [&] {
        return InputError("", where,
                          "hostlist '" + std::string(expr.substr(0, 200)) + "' names too many hosts: more than " +
                              std::to_string(left.max_hosts) + " or " + std::to_string(left.max_bytes) +
                              " bytes of names (with what came before)",
                          "check the ranges; a fabric holds at most 1000000 nodes");
    };
    while (!name.empty()) {
        size_t open = name.find('[');
        std::string_view literal = name.substr(0, open);
        if (literal.find(']') != std::string_view::npos)
            throw InputError("", where, "unmatched ']' in '" + std::string(expr) + "'");
        if (!literal.empty()) {
            Group g;
            g.literal = std::string(literal);
            g.longest = literal.size();
            groups.push_back(std::move(g));
        }
        if (open == std::string_view::npos) break;
        size_t close = name.find(']', open);
        Group g;
        g.ranges = parse_ranges(name.substr(open + 1, close - open - 1), where, expr);
        g.count = 0;
        for (const Range &r : g.ranges) {
            if (__builtin_add_overflow(g.count, static_cast<size_t>(r.last - r.first) + 1, &g.count)) throw too_many();
            g.longest = std::max<size_t>(g.longest, std::max(r.width, decimal_digits(r.last)));
        }
        groups.push_back(std::move(g));
        name = name.substr(close + 1);
    }
    for (const Group &g : groups) {
        if (__builtin_mul_overflow(total, g.count, &total)) throw too_many();
        name_bytes += g.longest;  // at most the pattern's length
    }
    size_t bytes;
    if (__builtin_mul_overflow(total, name_bytes, &bytes) || total > left.max_hosts || bytes > left.max_bytes)
        throw too_many();
    left.max_hosts -= total;
    left.max_bytes -= bytes;

    std::vector<std::vector<std::string>> pieces;
    pieces.reserve(groups.size());
    for (const Group &g : groups) pieces.push_back(expand_group(g));
    std::vector<size_t> at(pieces.size(), 0);
    for (size_t n = 0; n < total; ++n) {
        std::string host;
        for (size_t g = 0; g < pieces.size(); ++g) host += pieces[g][at[g]];
        out.push_back(std::move(host));
        for (size_t g = pieces.size(); g-- > 0;) {  // odometer, last group fastest
            if (++at[g] < pieces[g].size()) break;
            at[g] = 0;
        }
    }
}

}  // namespace

std::vector<std::string> expand_hostlist(std::string_view expr, const std::string &where) {
    HostlistLimits limits;
    return expand_hostlist(expr, where, limits);
}

std::vector<std::string> expand_hostlist(std::string_view expr, const std::string &where, HostlistLimits &limits) {
    std::vector<std::string> out;
    for (std::string_view part : split_top_level(expr, where)) {
        if (part.empty()) throw InputError("", where, "empty host name in '" + std::string(expr) + "'");
        for (char c : part)
            if (c == ' ' || c == '\t' || c == '\n')
                throw InputError("", where, "space in hostlist '" + std::string(expr) + "'",
                                 "separate hosts with commas only");
        expand_one(part, where, expr, limits, out);
    }
    return out;
}

std::string compress_hostlist(const std::vector<std::string> &names) {
    struct Run {
        std::string prefix;
        size_t width;
        unsigned long first, last;
    };
    std::vector<Run> runs;
    std::vector<std::string> groups;  // one entry per prefix group, in order of first appearance
    auto flush_group = [&](std::vector<Run> &rs) {
        if (rs.empty()) return;
        std::string s = rs[0].prefix;
        bool bracket = rs.size() > 1 || rs[0].first != rs[0].last;
        if (bracket) s += "[";
        for (size_t i = 0; i < rs.size(); ++i) {
            char a[16], b[16];
            std::snprintf(a, sizeof a, "%0*lu", static_cast<int>(rs[i].width), rs[i].first);
            std::snprintf(b, sizeof b, "%0*lu", static_cast<int>(rs[i].width), rs[i].last);
            if (i) s += ",";
            s += a;
            if (rs[i].last != rs[i].first) s += std::string("-") + b;
        }
        if (bracket) s += "]";
        groups.push_back(s);
        rs.clear();
    };
    for (const std::string &n : names) {
        size_t d = n.size();
        while (d > 0 && n[d - 1] >= '0' && n[d - 1] <= '9') --d;
        if (d == n.size() || n.size() - d > 9) {
            flush_group(runs);
            groups.push_back(n);
            continue;
        }
        std::string prefix = n.substr(0, d);
        size_t width = (n[d] == '0' && n.size() - d > 1) ? n.size() - d : 0;
        unsigned long v = std::strtoul(n.c_str() + d, nullptr, 10);
        if (!runs.empty() && runs.back().prefix == prefix && runs.back().width == width && runs.back().last + 1 == v) {
            runs.back().last = v;
        } else if (!runs.empty() && runs.back().prefix == prefix && runs.back().width == width) {
            runs.push_back({prefix, width, v, v});
        } else {
            flush_group(runs);
            runs.push_back({prefix, width, v, v});
        }
    }
    flush_group(runs);
    std::string out;
    for (size_t i = 0; i < groups.size(); ++i) out += (i ? "," : "") + groups[i];
    return out;
}

}  // namespace morpheus
