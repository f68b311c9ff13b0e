// Inventory JSON reader.
#include "inventory.hpp"

#include <unordered_set>

#include "input_error.hpp"
#include "json_document.hpp"

namespace morpheus {

const char *tier_name(Tier t) { return t == Tier::Dram ? "dram" : "pmem"; }

const char *blade_state_name(BladeState s) {
    switch (s) {
    case BladeState::Up: return "up";
    case BladeState::Draining: return "draining";
    case BladeState::Failed: return "failed";
    case BladeState::Absent: return "absent";
    }
    return "?";
}

namespace {

Inventory build(const JsonDocument &doc, const Fabric &fabric) {
    Inventory inv;
    inv.source = doc.file();
    inv.blades.assign(fabric.blades.size(), BladeStock{});
    JsonValue root = doc.root();
    if (!root.is_object()) root.fail("an inventory must be a JSON object");
    root.expect_keys({"version", "blades"});
    if (root.has("version") && root.member("version").as_count() != 1)
        root.member("version").fail("unsupported version", "use \"version\": 1");
    std::unordered_set<int> seen;
    for (const JsonValue &b : root.member("blades").elements()) {
        b.expect_keys({"name", "dram", "pmem", "state", "load", "reason", "since"});
        std::string name = b.member("name").as_string();
        if (bad_name_byte(name) >= 0)  // not echoed: it may hold bytes a log or terminal would act on
            b.member("name").fail("blade name has a character no fabric name may hold",
                                  "use the blade's name from the fabric map (letters, digits, '-', '_', '.')");
        int index = fabric.blade_index(name);
        if (index < 0)
            b.member("name").fail("blade \"" + name + "\" is not in the fabric map " + fabric.source,
                                  "add it to the fabric's \"blades\" or correct the name");
        if (!seen.insert(index).second) b.member("name").fail("blade \"" + name + "\" is listed twice");
        BladeStock &stock = inv.blades[index];
        stock.capacity[static_cast<size_t>(Tier::Dram)] = b.has("dram") ? b.member("dram").as_size() : 0;
        stock.capacity[static_cast<size_t>(Tier::Pmem)] = b.has("pmem") ? b.member("pmem").as_size() : 0;
        std::string state = b.string_or("state", "up");
        if (state == "up")
            stock.state = BladeState::Up;
        else if (state == "draining" || state == "drain")
            stock.state = BladeState::Draining;
        else if (state == "failed" || state == "down")
            stock.state = BladeState::Failed;
        else
            b.member("state").fail("unknown state \"" + state + "\"", "use \"up\", \"draining\" or \"failed\"");
        if (b.has("reason")) {
            stock.reason = b.member("reason").as_string();
            // Shown in pools, logs and terminals: printable text of a sensible length only.
            bool printable = stock.reason.size() <= kMaxBladeReason;
            for (unsigned char ch : stock.reason) printable = printable && ch >= 0x20 && ch != 0x7f;
            if (!printable)
                b.member("reason").fail(
                    "a reason is printable text of at most " + std::to_string(kMaxBladeReason) + " bytes",
                    "say why in a short line, e.g. \"DIMM errors, ticket 4711\"");
        }
        if (b.has("since")) stock.since = static_cast<int64_t>(b.member("since").as_count(INT64_MAX));
        stock.load = b.number_or("load", 0.0);
        if (stock.load < 0 || stock.load > 1)
            b.member("load").fail("load must be between 0 and 1", "give the share of bandwidth in use, e.g. 0.25");
    }
    for (size_t i = 0; i < fabric.blades.size(); ++i)
        if (!seen.count(static_cast<int>(i)))
            inv.warnings.push_back(inv.source + ": blade \"" + fabric.blades[i].name +
                                   "\" of the fabric has no inventory entry; it offers no memory");
    return inv;
}

}  // namespace

Inventory read_inventory(const std::string &path, const Fabric &fabric) {
    return build(JsonDocument::load_file(path), fabric);
}

Inventory parse_inventory(const std::string &json_text, const std::string &name, const Fabric &fabric) {
    return build(JsonDocument::load_string(json_text, name), fabric);
}

}  // namespace morpheus
