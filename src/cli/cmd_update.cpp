// morpheus update blade=NAME state=drain|up|failed reason="...": what scontrol update
// nodename=... state=drain reason=... is for nodes. Edits the blade's entry of the inventory
// (state, reason, since), keeps every other member and blade as it was, checks the result
// with the reader slurmctld uses, and replaces the file durably; slurmctld reloads it.
#include <jansson.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>

#include "config.hpp"
#include "durable_file.hpp"
#include "fabric.hpp"
#include "input_error.hpp"
#include "inventory.hpp"
#include "options.hpp"
#include "status_source.hpp"
#include "morpheus/morpheus_env.h"

namespace morpheus::cli {

namespace {

// Slurm's words too: drain, resume, down.
const char *inventory_state(const std::string &word) {
    if (!strcasecmp(word.c_str(), "up") || !strcasecmp(word.c_str(), "resume")) return "up";
    if (!strcasecmp(word.c_str(), "drain") || !strcasecmp(word.c_str(), "draining")) return "draining";
    if (!strcasecmp(word.c_str(), "failed") || !strcasecmp(word.c_str(), "fail") || !strcasecmp(word.c_str(), "down"))
        return "failed";
    return nullptr;
}

std::string read_text(const std::string &path) {
    std::ifstream in(path);
    if (!in) throw InputError(path, "", std::string("cannot read: ") + std::strerror(errno));
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

}  // namespace

int cmd_update(int argc, char **argv) {
    Sources s;
    static const option longopts[] = {{"conf", required_argument, nullptr, 'c'},
                                      {"help", no_argument, nullptr, 'h'},
                                      {"usage", no_argument, nullptr, 'h'},
                                      {nullptr, 0, nullptr, 0}};
    if (int rc = parse_options(
            argc, argv, "c:h", longopts,
            [&](int c, const char *arg) -> int {
                switch (c) {
                case 'c': s.conf = arg; return kGoOn;
                case 'h':
                    std::printf(
                        "usage: morpheus update [--conf FILE | FABRIC INVENTORY] blade=NAME state=drain|up|failed "
                        "[reason=TEXT]\n"
                        "  drain and failed need a reason, as scontrol's state=drain does; up clears it\n");
                    return kOk;
                default: return kUsage;
                }
            });
        rc != kGoOn)
        return rc;
    std::string blade, state_word, reason;
    bool has_reason = false;
    std::vector<std::string> positional;
    for (int i = optind; i < argc; ++i) {
        std::string a = argv[i];
        size_t eq = a.find('=');
        if (eq == std::string::npos) {
            positional.push_back(a);
            continue;
        }
        std::string key = a.substr(0, eq), value = a.substr(eq + 1);
        if (!strcasecmp(key.c_str(), "blade") || !strcasecmp(key.c_str(), "bladename"))
            blade = value;
        else if (!strcasecmp(key.c_str(), "state"))
            state_word = value;
        else if (!strcasecmp(key.c_str(), "reason")) {
            reason = value;
            has_reason = true;
        } else
            throw InputError("", key, "unknown key \"" + key + "\"",
                             "use blade=NAME state=drain|up|failed reason=TEXT");
    }
    if (positional.size() == 1 || positional.size() > 2) {
        std::fprintf(stderr, "morpheus update: give FABRIC and INVENTORY, or --conf FILE\n");
        return kUsage;
    }
    if (blade.empty() || state_word.empty())
        throw InputError("", "update", "blade= and state= are needed",
                         "e.g. morpheus update blade=blade3 state=drain reason=\"DIMM errors\"");
    const char *state = inventory_state(state_word);
    if (!state)
        throw InputError("", "state", "unknown state \"" + state_word + "\"",
                         "use drain, up (resume) or failed (down)");
    if (std::strcmp(state, "up") != 0 && (!has_reason || reason.empty()))
        throw InputError("", "reason", std::string("a blade set ") + state + " needs a reason",
                         "add reason=\"why\", as scontrol update state=drain asks");
    take_positional_sources(s, positional);
    if (s.conf.empty() && s.fabric.empty()) s.conf = morpheus_conf_beside_slurm_conf();
    std::string fabric_path = s.fabric, inventory_path = s.inventory;
    if (!s.conf.empty()) {
        Config conf = read_config(s.conf);
        if (fabric_path.empty()) fabric_path = conf.fabric_file;
        if (inventory_path.empty()) inventory_path = conf.inventory_file;
    }
    Fabric fabric = read_fabric(fabric_path);
    read_inventory(inventory_path, fabric);  // the file as it is must be valid: we edit, not repair
    if (fabric.blade_index(blade) < 0)
        throw InputError(fabric.source, "", "no blade \"" + blade + "\" in the fabric",
                         "see morpheus pools for the blades");

    json_error_t err;
    json_t *root = json_loads(read_text(inventory_path).c_str(), 0, &err);
    if (!root) throw InputError(inventory_path, "line " + std::to_string(err.line), err.text);
    json_t *entry = nullptr;
    size_t i;
    json_t *b;
    json_array_foreach(json_object_get(root, "blades"), i, b) {
        json_t *name = json_object_get(b, "name");
        if (json_is_string(name) && blade == json_string_value(name)) entry = b;
    }
    if (!entry) {
        json_decref(root);
        throw InputError(inventory_path, "$.blades", "blade \"" + blade + "\" has no entry",
                         "add it with its capacity first (morpheus-inventory(5))");
    }
    json_t *old_state = json_object_get(entry, "state");
    std::string before = json_is_string(old_state) ? json_string_value(old_state) : "up";
    json_object_set_new(entry, "state", json_string(state));
    if (!std::strcmp(state, "up")) {
        json_object_del(entry, "reason");  // as scontrol's resume clears a node's reason
    } else {
        json_object_set_new(entry, "reason", json_string(reason.c_str()));
    }
    json_object_set_new(entry, "since", json_integer(static_cast<json_int_t>(std::time(nullptr))));
    // 15 digits give a number written by hand (0.1) back as written, not as
    // 0.10000000000000001; 17 when 15 would change a value (0.30000000000000004).
    std::string data;
    for (int digits : {15, 17}) {
        char *text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(digits));
        data = std::string(text ? text : "") + "\n";
        std::free(text);
        json_t *back = json_loads(data.c_str(), 0, &err);
        bool same = back && json_equal(back, root);
        json_decref(back);
        if (same) break;
    }
    json_decref(root);

    // The new file must read back with the reader slurmctld uses before it replaces the old.
    parse_inventory(data, inventory_path + " (as updated)", fabric);
    struct stat st {};
    if (::stat(inventory_path.c_str(), &st) != 0)
        throw InputError(inventory_path, "", std::string("cannot stat: ") + std::strerror(errno));
    DurableWrite how;
    how.mode = st.st_mode & 07777;
    if (::geteuid() == 0) {  // keep SlurmUser's ownership when root edits the file
        how.uid = st.st_uid;
        how.gid = st.st_gid;
    }
    how.on_open_failure = "run as a user who may write the inventory's directory (root or SlurmUser)";
    how.on_failure = "the inventory is unchanged";
    write_durably(inventory_path, data, how);
    std::printf("%s: blade %s: %s -> %s%s\n", inventory_path.c_str(), blade.c_str(), before.c_str(), state,
                std::strcmp(state, "up") ? (" (reason: " + reason + ")").c_str() : "");
    return kOk;
}

}  // namespace morpheus::cli
