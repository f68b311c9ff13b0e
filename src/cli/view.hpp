// What every status view (pools, jobs, fabric) shares, with sinfo/squeue's habits: -o and -O
// output formats, -p/-t/-j/-u comma lists, -h, -i SECONDS, --json and --yaml.
#pragma once
#include <getopt.h>
#include <jansson.h>

#include <functional>
#include <string>
#include <vector>

namespace morpheus::cli {

// One column a view can print: its -O name, its -o letter, and its header.
struct Field {
    const char *name;
    char letter;
    const char *header;
};

struct ViewOptions {
    std::string format;  // -o "%[.][WIDTH]LETTER ...", squeue's printf-like form
    std::string Format;  // -O "NAME[:[.]WIDTH],...", fields by name
    std::vector<std::string> pods, states, jobs, users;
    int iterate = 0;  // -i SECONDS: print again every SECONDS, as squeue -i
    enum Output { Text, Json, Yaml } output = Text;
    bool header = true;
};

// The options shared by the views: short "o:O:p:t:i:h" and their long forms.
constexpr const char *kViewShortOptions = "o:O:p:t:i:h";
constexpr int kOptJson = 3000, kOptYaml = 3001;
#define MORPHEUS_VIEW_LONG_OPTIONS \
    {"format", required_argument, nullptr, 'o'}, {"Format", required_argument, nullptr, 'O'}, \
        {"pod", required_argument, nullptr, 'p'}, {"pods", required_argument, nullptr, 'p'}, \
        {"states", required_argument, nullptr, 't'}, {"iterate", required_argument, nullptr, 'i'}, \
        {"json", no_argument, nullptr, morpheus::cli::kOptJson}, \
        {"yaml", no_argument, nullptr, morpheus::cli::kOptYaml}, { \
        "noheader", no_argument, nullptr, 'h' \
    }

// Takes a shared option into v; returns false when c is not one of them.
bool take_view_option(int c, const char *arg, ViewOptions &v);

// "a,b,,c" -> {"a", "b", "c"}
std::vector<std::string> split_list(const std::string &s);
// -j's "42,43": each a job id (digits, > 0), appended to `out` in canonical form; else an
// InputError naming `option`.
void take_job_ids(const char *arg, const char *option, std::vector<std::string> &out);

// Which fields, how wide, and the literal text between them.
struct Column {
    size_t field;
    size_t width = 0;  // 0: as wide as the widest value (-O) or the value itself (-o)
    bool right = false;
    std::string before;  // -o: the text before the field
};
struct Layout {
    std::vector<Column> columns;
    std::string after;  // -o: the text after the last field
    bool printf_like = false;
};
// -o: squeue's form; text is copied, %% is a percent sign, %[.][WIDTH]LETTER a field.
Layout parse_format(const std::string &format, const std::vector<Field> &fields);
// -O: NAME[:[.]WIDTH],... fields by name.
Layout parse_Format(const std::string &Format, const std::vector<Field> &fields);
// Every field of the list, in order (the default layout of a view printed with -O syntax).
Layout all_fields(const std::vector<Field> &fields, const std::vector<std::string> &names);
// rows[i][f] is the value of field f in row i.
std::string render_layout(const Layout &l, const std::vector<Field> &fields,
                          const std::vector<std::vector<std::string>> &rows, bool header);

// A JSON document as YAML (block style; strings double-quoted, so every value reads back).
std::string to_yaml(json_t *doc);
// The document as the user asked: --json or --yaml.
std::string dump_document(json_t *doc, ViewOptions::Output out);

// A typed status value (status_model.hpp) as the document the user asked for.
template <class T>
std::string dump_value(const T &value, ViewOptions::Output out) {
    json_t *doc = to_json(value);
    std::string text = dump_document(doc, out);
    json_decref(doc);
    return text;
}

// -t of the views over blades (pools, fabric): the blade states named, in the status document's
// words (Slurm's drain and down taken for draining and failed); an unknown one is an error.
std::vector<std::string> blade_states(const ViewOptions &v);

// Prints once(), or every v.iterate seconds with squeue -i's time line before each, until
// killed. once() may throw; the error ends the loop.
int run_view(const ViewOptions &v, const std::function<std::string()> &once);

// Checks every element of wanted against known; an unknown one is an error naming it.
void require_known(const std::vector<std::string> &wanted, const std::vector<std::string> &known, const char *option,
                   const char *what, const char *hint);
bool listed(const std::vector<std::string> &list, const std::string &value);

}  // namespace morpheus::cli
