#include "fabric_view.hpp"

#include "json_document.hpp"

#include <jansson.h>

#include <cstdlib>

namespace morpheus {

std::string fabric_json(const ClusterModel &m, const Ledger &l) {
    const Fabric &f = m.fabric();
    const Inventory &inv = m.inventory();
    json_t *root = json_object();
    json_object_set_new(root, "hot_bound_ns",
                        json_integer(static_cast<json_int_t>(m.settings().default_hot_latency_ns)));
    json_t *pods = json_array();
    for (const Pod &p : f.pods) {
        json_t *o = json_object();
        json_object_set_new(o, "pod", json_string(p.name.c_str()));
        json_object_set_new(o, "nodes", json_string(p.nodes_expr.c_str()));
        json_array_append_new(pods, o);
    }
    json_object_set_new(root, "pods", pods);
    json_t *blades = json_array();
    for (uint32_t b = 0; b < f.blades.size(); ++b) {
        json_t *o = json_object();
        json_object_set_new(o, "blade", json_string(f.blades[b].name.c_str()));
        json_object_set_new(o, "state", json_string(blade_state_name(inv.blades[b].state)));
        json_object_set_new(o, "dram_free",
                            json_integer(static_cast<json_int_t>(inv.admits(b) ? l.free(b, Tier::Dram, inv) : 0)));
        json_array_append_new(blades, o);
    }
    json_object_set_new(root, "blades", blades);
    json_t *matrix = json_array();
    for (uint32_t p = 0; p < f.pods.size(); ++p) {
        json_t *row = json_array();
        for (uint32_t b = 0; b < f.blades.size(); ++b) {
            uint32_t ns = m.latency().latency(p, b);
            json_array_append_new(row, ns == kUnreachable ? json_null() : json_integer(ns));
        }
        json_array_append_new(matrix, row);
    }
    json_object_set_new(root, "latency_ns", matrix);
    return document_text(root);
}

}  // namespace morpheus
