#include "view.hpp"

#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <ctime>

#include "input_error.hpp"

namespace morpheus::cli {

bool take_view_option(int c, const char *arg, ViewOptions &v) {
    switch (c) {
    case 'o': v.format = arg; return true;
    case 'O': v.Format = arg; return true;
    case 'p': {
        auto more = split_list(arg);
        v.pods.insert(v.pods.end(), more.begin(), more.end());
        return true;
    }
    case 't': {
        auto more = split_list(arg);
        v.states.insert(v.states.end(), more.begin(), more.end());
        return true;
    }
    case 'i': {
        char *end = nullptr;
        long s = std::strtol(arg, &end, 10);
        if (!*arg || *end || s <= 0 || s > 86400)
            throw InputError("", "-i", std::string("'") + arg + "' is not a number of seconds",
                             "give the seconds between two prints, e.g. -i 5");
        v.iterate = static_cast<int>(s);
        return true;
    }
    case kOptJson: v.output = ViewOptions::Json; return true;
    case kOptYaml: v.output = ViewOptions::Yaml; return true;
    case 'h': v.header = false; return true;  // as sinfo/squeue: -h is --noheader
    default: return false;
    }
}

std::vector<std::string> split_list(const std::string &s) {
    std::vector<std::string> out;
    size_t start = 0;
    while (start <= s.size()) {
        size_t comma = s.find(',', start);
        std::string item = s.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        if (!item.empty()) out.push_back(item);
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return out;
}

void take_job_ids(const char *arg, const char *option, std::vector<std::string> &out) {
    for (const std::string &j : split_list(arg)) {
        if (j.find_first_not_of("0123456789") != std::string::npos || j.size() > 10 || std::atol(j.c_str()) <= 0)
            throw InputError("", option, "'" + j + "' is not a job id",
                             std::string("give job ids, e.g. ") + option + " 42,43");
        out.push_back(std::to_string(std::atol(j.c_str())));
    }
}

namespace {

std::string field_names(const std::vector<Field> &fields) {
    std::string s;
    for (const Field &f : fields) s += (s.empty() ? "" : ",") + std::string(f.name);
    return s;
}

std::string field_letters(const std::vector<Field> &fields) {
    std::string s;
    for (const Field &f : fields) s += (s.empty() ? "%" : " %") + std::string(1, f.letter) + "=" + f.name;
    return s;
}

// The text of one cell: padded to width, or cut to it (as squeue cuts).
std::string fit(const std::string &value, size_t width, bool right) {
    if (width == 0) return value;
    if (value.size() >= width) return value.substr(0, width);
    std::string pad(width - value.size(), ' ');
    return right ? pad + value : value + pad;
}

}  // namespace

Layout parse_format(const std::string &format, const std::vector<Field> &fields) {
    Layout l;
    l.printf_like = true;
    std::string text;
    for (size_t i = 0; i < format.size(); ++i) {
        if (format[i] != '%') {
            text += format[i];
            continue;
        }
        if (i + 1 < format.size() && format[i + 1] == '%') {
            text += '%';
            ++i;
            continue;
        }
        Column c;
        size_t j = i + 1;
        if (j < format.size() && format[j] == '.') {
            c.right = true;
            ++j;
        }
        while (j < format.size() && std::isdigit(static_cast<unsigned char>(format[j])))
            c.width = c.width * 10 + static_cast<size_t>(format[j++] - '0');
        if (j >= format.size())
            throw InputError("", "--format", "'" + format + "' ends inside a field",
                             "fields: " + field_letters(fields));
        bool found = false;
        for (size_t f = 0; f < fields.size() && !found; ++f)
            if (fields[f].letter == format[j]) {
                c.field = f;
                found = true;
            }
        if (!found)
            throw InputError("", "--format", std::string("unknown field letter '%") + format[j] + "'",
                             "fields: " + field_letters(fields) + "; or -O with the names");
        c.before = text;
        text.clear();
        l.columns.push_back(c);
        i = j;
    }
    l.after = text;
    if (l.columns.empty())
        throw InputError("", "--format", "'" + format + "' names no field",
                         "write %LETTER fields (" + field_letters(fields) + "), or -O " + field_names(fields));
    return l;
}

Layout parse_Format(const std::string &Format, const std::vector<Field> &fields) {
    Layout l;
    for (const std::string &item : split_list(Format)) {
        std::string name = item.substr(0, item.find(':'));
        Column c;
        bool found = false;
        for (size_t f = 0; f < fields.size() && !found; ++f)
            if (name == fields[f].name) {
                c.field = f;
                found = true;
            }
        if (!found) throw InputError("", "--Format", "unknown field '" + name + "'", "use " + field_names(fields));
        if (item.find(':') != std::string::npos) {
            std::string w = item.substr(item.find(':') + 1);
            if (!w.empty() && w[0] == '.') {
                c.right = true;
                w.erase(0, 1);
            }
            if (w.empty() || w.find_first_not_of("0123456789") != std::string::npos || w.size() > 4)
                throw InputError("", "--Format", "bad width in '" + item + "'", "write NAME:WIDTH or NAME:.WIDTH");
            c.width = static_cast<size_t>(std::atoi(w.c_str()));
        }
        l.columns.push_back(c);
    }
    if (l.columns.empty()) throw InputError("", "--Format", "no field named", "use " + field_names(fields));
    return l;
}

Layout all_fields(const std::vector<Field> &fields, const std::vector<std::string> &names) {
    std::string list;
    for (const std::string &n : names) list += (list.empty() ? "" : ",") + n;
    return parse_Format(list, fields);
}

std::string render_layout(const Layout &l, const std::vector<Field> &fields,
                          const std::vector<std::vector<std::string>> &rows, bool header) {
    std::vector<size_t> width;
    for (const Column &c : l.columns) {
        size_t w = c.width;
        if (w == 0 && !l.printf_like) {
            w = std::string(fields[c.field].header).size();
            for (const auto &row : rows) w = std::max(w, row[c.field].size());
        }
        width.push_back(w);
    }
    std::string out;
    auto line = [&](const std::function<std::string(size_t)> &cell) {
        std::string s;
        for (size_t i = 0; i < l.columns.size(); ++i) {
            const Column &c = l.columns[i];
            s += l.printf_like ? c.before : (i ? "  " : "");
            s += fit(cell(i), width[i], c.right);
        }
        s += l.after;
        if (!l.printf_like)
            while (!s.empty() && s.back() == ' ') s.pop_back();
        out += s + "\n";
    };
    if (header) line([&](size_t i) { return std::string(fields[l.columns[i].field].header); });
    for (const auto &row : rows) line([&](size_t i) { return row[l.columns[i].field]; });
    return out;
}

namespace {

bool plain_key(const char *k) {
    if (!*k) return false;
    for (const char *p = k; *p; ++p)
        if (!std::isalnum(static_cast<unsigned char>(*p)) && *p != '_' && *p != '-' && *p != '@') return false;
    return true;
}

std::string scalar(json_t *v) {
    if (json_is_string(v) || json_is_integer(v) || json_is_real(v) || json_is_boolean(v) || json_is_null(v)) {
        char *s = json_dumps(v, JSON_ENCODE_ANY);
        std::string out = s ? s : "null";
        std::free(s);
        return out;
    }
    return "";
}

bool empty_container(json_t *v) {
    return (json_is_object(v) && json_object_size(v) == 0) || (json_is_array(v) && json_array_size(v) == 0);
}

void yaml(json_t *v, int indent, std::string &out) {
    std::string pad(static_cast<size_t>(indent), ' ');
    if (json_is_object(v)) {
        const char *key;
        json_t *child;
        json_object_foreach(v, key, child) {
            json_t *k = json_string(key);
            out += pad + (plain_key(key) ? std::string(key) : scalar(k)) + ":";
            json_decref(k);
            if (empty_container(child))
                out += json_is_object(child) ? " {}\n" : " []\n";
            else if (json_is_object(child) || json_is_array(child)) {
                out += "\n";
                yaml(child, indent + 2, out);
            } else
                out += " " + scalar(child) + "\n";
        }
    } else if (json_is_array(v)) {
        size_t i;
        json_t *child;
        json_array_foreach(v, i, child) {
            if (empty_container(child))
                out += pad + (json_is_object(child) ? "- {}\n" : "- []\n");
            else if (json_is_object(child) || json_is_array(child)) {
                // "- " then the first line of the child on the same line, the rest indented.
                std::string inner;
                yaml(child, indent + 2, inner);
                out += pad + "- " + inner.substr(static_cast<size_t>(indent) + 2);
            } else
                out += pad + "- " + scalar(child) + "\n";
        }
    } else {
        out += pad + scalar(v) + "\n";
    }
}

}  // namespace

std::string to_yaml(json_t *doc) {
    std::string out = "---\n";
    if (empty_container(doc)) return out + (json_is_object(doc) ? "{}\n" : "[]\n");
    yaml(doc, 0, out);
    return out;
}

std::string dump_document(json_t *doc, ViewOptions::Output out) {
    if (out == ViewOptions::Yaml) return to_yaml(doc);
    char *s = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    std::string text = s ? s : "{}";
    std::free(s);
    return text + "\n";
}

int run_view(const ViewOptions &v, const std::function<std::string()> &once) {
    if (!v.iterate) {
        std::fputs(once().c_str(), stdout);
        return 0;
    }
    for (;;) {
        std::time_t now = std::time(nullptr);
        char when[64];
        std::strftime(when, sizeof when, "%a %b %d %H:%M:%S %Y", std::localtime(&now));
        std::string text = once();  // before the time line: an error prints no orphan header
        std::printf("%s\n%s", when, text.c_str());
        if (v.output == ViewOptions::Text) std::printf("\n");
        std::fflush(stdout);
        ::sleep(static_cast<unsigned>(v.iterate));
    }
}

std::vector<std::string> blade_states(const ViewOptions &v) {
    std::vector<std::string> states;
    for (const std::string &s : v.states) states.push_back(s == "drain" ? "draining" : s == "down" ? "failed" : s);
    require_known(states, {"up", "draining", "failed", "absent"}, "-t", "blade state",
                  "use up, draining (drain), failed (down) or absent");
    return states;
}

bool listed(const std::vector<std::string> &list, const std::string &value) {
    for (const std::string &s : list)
        if (s == value) return true;
    return false;
}

void require_known(const std::vector<std::string> &wanted, const std::vector<std::string> &known, const char *option,
                   const char *what, const char *hint) {
    for (const std::string &w : wanted)
        if (!listed(known, w)) throw InputError("", option, std::string("invalid ") + what + ": " + w, hint);
}

}  // namespace morpheus::cli
