// jansson behind a small checked interface; every type or range problem becomes an InputError.
#include "json_document.hpp"

#include <jansson.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "input_error.hpp"
#include "units.hpp"

namespace morpheus {

bool JsonValue::is_object() const { return json_is_object(value_); }
bool JsonValue::is_array() const { return json_is_array(value_); }
bool JsonValue::is_string() const { return json_is_string(value_); }
bool JsonValue::is_number() const { return json_is_number(value_); }
bool JsonValue::is_null() const { return json_is_null(value_); }

void JsonValue::fail(const std::string &problem, const std::string &fix) const {
    throw InputError(*file_, path_, problem, fix);
}

bool JsonValue::has(const char *key) const { return json_is_object(value_) && json_object_get(value_, key) != nullptr; }

JsonValue JsonValue::member(const char *key) const {
    if (!json_is_object(value_)) fail("expected an object");
    json_t *v = json_object_get(value_, key);
    if (!v)
        fail(std::string("missing required field \"") + key + "\"", std::string("add \"") + key + "\" to this object");
    return JsonValue(file_, v, path_ + "." + key);
}

std::vector<JsonValue> JsonValue::elements() const {
    if (!json_is_array(value_)) fail("expected an array");
    std::vector<JsonValue> out;
    out.reserve(json_array_size(value_));
    for (size_t i = 0; i < json_array_size(value_); ++i)
        out.emplace_back(file_, json_array_get(value_, i), path_ + "[" + std::to_string(i) + "]");
    return out;
}

std::vector<JsonValue> JsonValue::elements(size_t max, const char *what) const {
    if (json_is_array(value_) && json_array_size(value_) > max)
        fail(std::to_string(json_array_size(value_)) + " " + what + ", more than the " + std::to_string(max) +
                 " Morpheus handles",
             std::string("split the fabric or merge ") + what);
    return elements();
}

void JsonValue::expect_keys(const std::vector<std::string> &known) const {
    if (!json_is_object(value_)) fail("expected an object");
    const char *key;
    json_t *v;
    json_object_foreach(value_, key, v) {
        if (std::find(known.begin(), known.end(), key) == known.end()) {
            std::string list;
            for (const auto &k : known) list += (list.empty() ? "" : ", ") + k;
            throw InputError(*file_, path_ + "." + key, std::string("unknown field \"") + key + "\"",
                             "known fields here are: " + list);
        }
    }
}

std::string JsonValue::as_text() const {
    if (!json_is_string(value_)) fail("expected a string");
    return std::string(json_string_value(value_), json_string_length(value_));
}

std::string JsonValue::as_string() const {
    std::string s = as_text();
    for (size_t i = 0; i < s.size(); ++i) {
        unsigned char c = static_cast<unsigned char>(s[i]);
        // C0 controls, DEL, and the C1 controls U+0080..U+009F (UTF-8 C2 80..C2 9F).
        bool c1 = c == 0xC2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) >= 0x80 &&
                  static_cast<unsigned char>(s[i + 1]) <= 0x9F;
        if (c < 0x20 || c == 0x7F || c1) {
            char code[8];
            std::snprintf(code, sizeof code, "0x%02X", c1 ? static_cast<unsigned char>(s[i + 1]) : c);
            fail("text has the control character " + std::string(code) + " at byte " + std::to_string(i),
                 "use printable characters only");
        }
    }
    return s;
}

double JsonValue::as_number() const {
    if (!json_is_number(value_)) fail("expected a number");
    double v = json_number_value(value_);
    if (!std::isfinite(v)) fail("number is not finite");
    return v;
}

uint64_t JsonValue::as_count() const {
    if (!json_is_integer(value_)) fail("expected a whole number");
    json_int_t v = json_integer_value(value_);
    if (v < 0) fail("must not be negative, got " + std::to_string(v));
    return static_cast<uint64_t>(v);
}

uint64_t JsonValue::as_count(uint64_t max) const {
    uint64_t v = as_count();
    if (v > max) fail(std::to_string(v) + " is too large", "give at most " + std::to_string(max));
    return v;
}

bool JsonValue::as_bool() const {
    if (!json_is_boolean(value_)) fail("expected true or false");
    return json_is_true(value_);
}

uint64_t JsonValue::as_size() const {
    if (json_is_integer(value_)) return as_count();
    if (json_is_real(value_)) {
        double v = json_real_value(value_);
        if (v < 0) fail("must not be negative");
        if (!(v < 9.2e18)) fail("size is too large", "give bytes below 8E, or a size such as \"512G\"");
        return static_cast<uint64_t>(v);
    }
    if (!json_is_string(value_)) fail("expected a size such as \"512G\"");
    std::string s = as_string();
    if (!s.empty() && s[0] == '-') fail("size must not be negative, got \"" + s + "\"");
    try {
        return parse_size(s, path_);
    } catch (const InputError &e) {
        throw InputError(*file_, path_, e.problem(), e.fix());
    }
}

uint64_t JsonValue::as_latency() const {
    if (json_is_number(value_)) {
        double v = json_number_value(value_);
        if (v < 0) fail("latency must not be negative");
        // Compared as a double first: an int64-max latency must not wrap later path sums.
        if (!(v <= static_cast<double>(kMaxLatencyNs)))
            fail("latency " +
                     (json_is_integer(value_) ? std::to_string(json_integer_value(value_)) : std::to_string(v)) +
                     "ns is longer than the 1s maximum",
                 "give the latency of this link in nanoseconds or with a unit, e.g. 350 or \"1.2us\"");
        return json_is_integer(value_) ? static_cast<uint64_t>(json_integer_value(value_))
                                       : static_cast<uint64_t>(std::llround(v));
    }
    if (!json_is_string(value_)) fail("expected a latency such as \"350ns\"");
    std::string s = as_string();
    if (!s.empty() && s[0] == '-') fail("latency must not be negative, got \"" + s + "\"");
    try {
        return parse_latency(s, path_);
    } catch (const InputError &e) {
        throw InputError(*file_, path_, e.problem(), e.fix());
    }
}

std::string JsonValue::string_or(const char *key, const std::string &fallback) const {
    return has(key) ? member(key).as_string() : fallback;
}

double JsonValue::number_or(const char *key, double fallback) const {
    return has(key) ? member(key).as_number() : fallback;
}

std::string read_regular_file(const std::string &path, size_t max_bytes) {
    int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        throw InputError(path, "", std::string("cannot read: ") + std::strerror(errno),
                         "check the path and its permissions");
    struct FdCloser {
        int fd;
        ~FdCloser() { ::close(fd); }
    } closer{fd};
    struct stat st;
    if (::fstat(fd, &st) != 0)
        throw InputError(path, "", std::string("cannot read: ") + std::strerror(errno),
                         "check the path and its permissions");
    if (!S_ISREG(st.st_mode))
        throw InputError(path, "", "not a regular file (a FIFO, device or directory)", "give the path of a plain file");
    if (static_cast<uint64_t>(st.st_size) > max_bytes)
        throw InputError(
            path, "",
            "file is " + std::to_string(st.st_size) + " bytes, more than the " + std::to_string(max_bytes) + " allowed",
            "give the right file; real ones are far smaller");
    std::string text;
    char buf[65536];
    for (;;) {
        ssize_t n = ::read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) throw InputError(path, "", std::string("cannot read: ") + std::strerror(errno), "check the file");
        if (n == 0) break;
        if (text.size() + static_cast<size_t>(n) > max_bytes)  // grew while we read
            throw InputError(path, "", "file is larger than the " + std::to_string(max_bytes) + " bytes allowed",
                             "give the right file; real ones are far smaller");
        text.append(buf, static_cast<size_t>(n));
    }
    return text;
}

JsonDocument JsonDocument::load_file(const std::string &path) {
    return load_string(read_regular_file(path, kMaxInputFileBytes), path);
}

JsonDocument JsonDocument::load_string(const std::string &text, const std::string &name) {
    json_error_t err;
    json_t *root = json_loadb(text.data(), text.size(), JSON_REJECT_DUPLICATES, &err);
    if (!root)
        throw InputError(name, "line " + std::to_string(err.line) + ", column " + std::to_string(err.column),
                         std::string("invalid JSON: ") + err.text, "correct the JSON syntax there");
    return JsonDocument(name, root);
}

JsonDocument::JsonDocument(JsonDocument &&other) noexcept : file_(std::move(other.file_)), root_(other.root_) {
    other.root_ = nullptr;
}

JsonDocument::~JsonDocument() {
    if (root_) json_decref(root_);
}

std::string document_text(json_t *root) {
    char *text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    std::string out = text ? text : "{}";
    std::free(text);
    json_decref(root);
    return out + "\n";
}

}  // namespace morpheus
