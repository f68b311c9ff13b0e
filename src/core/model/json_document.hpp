// Reading JSON input files with errors that name the file, the JSON path and the fix.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

typedef struct json_t json_t;

namespace morpheus {

// A borrowed view of one JSON value plus the path that led to it ("$.blades[3].dram"), so
// every complaint can say exactly where it is. Views stay valid while their JsonDocument lives.
class JsonValue {
public:
    JsonValue(const std::string *file, json_t *value, std::string path)
        : file_(file), value_(value), path_(std::move(path)) {}

    const std::string &path() const { return path_; }
    bool is_object() const;
    bool is_array() const;
    bool is_string() const;
    bool is_number() const;
    bool is_null() const;

    // Members of an object; `required` members throw when absent.
    bool has(const char *key) const;
    JsonValue member(const char *key) const;  // required
    std::vector<JsonValue> elements() const;  // the value must be an array
    // The same, refusing more than `max` elements before any is visited.
    std::vector<JsonValue> elements(size_t max, const char *what) const;
    // Every key of the object must be in `known`; an unknown one is an error naming it.
    void expect_keys(const std::vector<std::string> &known) const;

    // Refuses control characters (they would reach slurmctld's log and terminals unescaped).
    std::string as_string() const;
    // The string as it stands, control characters and all: text Morpheus wrote itself (a
    // multi-line explanation, metrics), read back from its own answer.
    std::string as_text() const;
    double as_number() const;
    uint64_t as_count() const;  // non-negative integer
    // A non-negative integer no larger than `max` (the destination type's range, or a sane cap):
    // 2^32 given for a 32-bit count is an error, never 0.
    uint64_t as_count(uint64_t max) const;
    bool as_bool() const;
    // Sizes and latencies: a string with units ("2T", "350ns") or a plain number
    // (bytes / nanoseconds).
    uint64_t as_size() const;
    uint64_t as_latency() const;

    std::string string_or(const char *key, const std::string &fallback) const;
    double number_or(const char *key, double fallback) const;

    [[noreturn]] void fail(const std::string &problem, const std::string &fix = "") const;

private:
    const std::string *file_;
    json_t *value_;
    std::string path_;
};

// The whole of a regular file of at most `max_bytes`. A FIFO, device or directory is refused
// (opened non-blocking, so a FIFO cannot hang slurmctld), as is a larger file; errors name
// the file and say what to give instead.
std::string read_regular_file(const std::string &path, size_t max_bytes);

// A document for people and tools: indented, keys in insertion order, ending in a newline.
// Takes the reference to `root` (decref'ed here), as json_object_set_new does.
std::string document_text(json_t *root);
constexpr size_t kMaxInputFileBytes = 64u << 20;

// Owns a parsed file. Syntax errors throw InputError with line and column.
class JsonDocument {
public:
    static JsonDocument load_file(const std::string &path);
    static JsonDocument load_string(const std::string &text, const std::string &name);
    JsonDocument(JsonDocument &&other) noexcept;
    JsonDocument &operator=(JsonDocument &&) = delete;
    JsonDocument(const JsonDocument &) = delete;
    ~JsonDocument();
    JsonValue root() const { return JsonValue(&file_, root_, "$"); }
    const std::string &file() const { return file_; }

private:
    JsonDocument(std::string file, json_t *root) : file_(std::move(file)), root_(root) {}
    std::string file_;
    json_t *root_;
};

}  // namespace morpheus
