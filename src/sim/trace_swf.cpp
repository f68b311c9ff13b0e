// SWF reader: whitespace-separated columns, ';' comments, -1 for unknown.
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "input_error.hpp"
#include "trace.hpp"

namespace morpheus::sim {

namespace {

std::string read_gzip(const std::string &path) {
    // gzip itself, so the core needs no zlib; the path is passed quoted, never interpreted.
    std::string quoted = "'";
    for (char c : path) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    quoted += "'";
    FILE *p = ::popen(("gzip -dc -- " + quoted).c_str(), "r");
    if (!p) throw InputError(path, "", std::string("cannot run gzip: ") + std::strerror(errno));
    std::string text;
    char buf[65536];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) text.append(buf, n);
    if (::pclose(p) != 0) throw InputError(path, "", "gzip could not decompress it", "check that it is a .swf.gz file");
    return text;
}

}  // namespace

Trace parse_swf(const std::string &text, const std::string &name) {
    Trace t;
    t.source = name;
    std::istringstream in(text);
    std::string line;
    size_t lineno = 0;
    while (std::getline(in, line)) {
        ++lineno;
        size_t first = line.find_first_not_of(" \t\r");
        if (first == std::string::npos || line[first] == ';') continue;
        std::istringstream fields(line);
        std::vector<double> col;
        std::string word;
        while (fields >> word) {
            char *end = nullptr;
            double v = std::strtod(word.c_str(), &end);
            if (*end)
                throw InputError(name, "line " + std::to_string(lineno),
                                 "column " + std::to_string(col.size() + 1) + " is \"" + word + "\", not a number",
                                 "an SWF record is 18 numbers; -1 for unknown");
            col.push_back(v);
        }
        if (col.size() != 18)
            throw InputError(name, "line " + std::to_string(lineno),
                             std::to_string(col.size()) + " columns, SWF has 18", "comment lines must start with ';'");
        TraceJob j;
        j.id = static_cast<uint64_t>(col[0]);
        j.submit = static_cast<int64_t>(col[1]);
        j.runtime = static_cast<int64_t>(col[3]);
        j.processors = col[7] > 0 ? static_cast<int64_t>(col[7]) : static_cast<int64_t>(col[4]);
        j.requested_time = static_cast<int64_t>(col[8]);
        j.memory_kb = col[9] > 0 ? static_cast<int64_t>(col[9]) : static_cast<int64_t>(col[6]);
        j.status = static_cast<int>(col[10]);
        if (j.runtime <= 0 || j.processors <= 0) {
            ++t.skipped;  // nothing to replay: cancelled before it ran, or unknown size
            continue;
        }
        t.jobs.push_back(j);
    }
    // Logs are in submit order by definition, but some cleaned logs are not quite.
    std::stable_sort(t.jobs.begin(), t.jobs.end(),
                     [](const TraceJob &a, const TraceJob &b) { return a.submit < b.submit; });
    return t;
}

Trace read_swf(const std::string &path) {
    std::string text;
    if (path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0) {
        std::ifstream probe(path);
        if (!probe) throw InputError(path, "", std::string("cannot open: ") + std::strerror(errno));
        text = read_gzip(path);
    } else {
        std::ifstream in(path, std::ios::binary);
        if (!in) throw InputError(path, "", std::string("cannot open: ") + std::strerror(errno));
        std::ostringstream ss;
        ss << in.rdbuf();
        text = ss.str();
    }
    return parse_swf(text, path);
}

}  // namespace morpheus::sim
