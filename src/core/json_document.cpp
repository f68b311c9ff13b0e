// jansson behind a small checked interface; every type or range problem becomes an InputError.
#include "json_document.hpp"

#include <jansson.h>

#include <algorithm>
#include <cmath>

#include "input_error.hpp"
#include "units.hpp"

namespace morpheus {

bool JsonValue::is_object() const { return json_is_object(value_); }
bool JsonValue::is_array() const { return json_is_array(value_); }
bool JsonValue::is_string() const { return json_is_string(value_); }
bool JsonValue::is_number() const { return json_is_number(value_); }

void JsonValue::fail(const std::string &problem, const std::string &fix) const {
    throw InputError(*file_, path_, problem, fix);
}

bool JsonValue::has(const char *key) const {
    return json_is_object(value_) && json_object_get(value_, key) != nullptr;
}

JsonValue JsonValue::member(const char *key) const {
    if (!json_is_object(value_)) fail("expected an object");
    json_t *v = json_object_get(value_, key);
    if (!v) fail(std::string("missing required field \"") + key + "\"",
                 std::string("add \"") + key + "\" to this object");
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

std::string JsonValue::as_string() const {
    if (!json_is_string(value_)) fail("expected a string");
    return std::string(json_string_value(value_), json_string_length(value_));
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
    if (json_is_integer(value_)) return as_count();
    if (json_is_real(value_)) {
        double v = json_real_value(value_);
        if (v < 0) fail("latency must not be negative");
        if (!(v < 9.2e18)) fail("latency is too large", "give nanoseconds, e.g. 350");
        return static_cast<uint64_t>(std::llround(v));
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

JsonDocument JsonDocument::load_file(const std::string &path) {
    json_error_t err;
    json_t *root = json_load_file(path.c_str(), JSON_REJECT_DUPLICATES, &err);
    if (!root) {
        if (err.line < 0)
            throw InputError(path, "", std::string("cannot read: ") + err.text,
                             "check the path and its permissions");
        throw InputError(path, "line " + std::to_string(err.line) + ", column " + std::to_string(err.column),
                         std::string("invalid JSON: ") + err.text, "correct the JSON syntax there");
    }
    return JsonDocument(path, root);
}

JsonDocument JsonDocument::load_string(const std::string &text, const std::string &name) {
    json_error_t err;
    json_t *root = json_loadb(text.data(), text.size(), JSON_REJECT_DUPLICATES, &err);
    if (!root)
        throw InputError(name, "line " + std::to_string(err.line) + ", column " + std::to_string(err.column),
                         std::string("invalid JSON: ") + err.text, "correct the JSON syntax there");
    return JsonDocument(name, root);
}

JsonDocument::JsonDocument(JsonDocument &&other) noexcept
    : file_(std::move(other.file_)), root_(other.root_) {
    other.root_ = nullptr;
}

JsonDocument::~JsonDocument() {
    if (root_) json_decref(root_);
}

}  // namespace morpheus
