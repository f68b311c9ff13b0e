// Max-min fair sharing by progressive filling, recomputed at each flow start and end.
#include "flush_replay.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "flush.hpp"

namespace morpheus::sim {

namespace {

double percentile(std::vector<double> v, double q) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    size_t i = static_cast<size_t>(q * static_cast<double>(v.size() - 1) + 0.5);
    return v[std::min(i, v.size() - 1)];
}

// Rates for the active flows: progressive filling over the links they cross.
void max_min(const std::vector<FluidFlow> &flows, const std::vector<size_t> &active,
             const std::vector<double> &capacity, std::vector<double> &rate) {
    std::vector<double> left;
    std::vector<uint32_t> count;
    std::vector<uint32_t> used;  // links touched
    std::vector<int> slot(capacity.size(), -1);
    for (size_t f : active)
        for (uint32_t l : flows[f].links)
            if (slot[l] < 0) {
                slot[l] = static_cast<int>(used.size());
                used.push_back(l);
                left.push_back(capacity[l]);
                count.push_back(0);
            }
    for (size_t f : active)
        for (uint32_t l : flows[f].links) ++count[slot[l]];
    std::vector<uint8_t> frozen(active.size(), 0);
    size_t unfrozen = active.size();
    while (unfrozen) {
        double best = std::numeric_limits<double>::infinity();
        int at = -1;
        for (size_t k = 0; k < used.size(); ++k)
            if (count[k] && left[k] / count[k] < best) best = left[k] / count[k], at = static_cast<int>(k);
        // A paced flow whose own cap is lower than any link's fair share is frozen at its cap.
        size_t paced = SIZE_MAX;
        for (size_t a = 0; a < active.size(); ++a) {
            double cap = flows[active[a]].max_rate;
            if (!frozen[a] && cap > 0 && cap < best) best = cap, paced = a;
        }
        if (paced != SIZE_MAX) {
            rate[active[paced]] = best;
            frozen[paced] = 1;
            --unfrozen;
            for (uint32_t l : flows[active[paced]].links) {
                left[slot[l]] = std::max(0.0, left[slot[l]] - best);
                --count[slot[l]];
            }
            continue;
        }
        if (at < 0) break;
        for (size_t a = 0; a < active.size(); ++a) {
            if (frozen[a]) continue;
            const FluidFlow &fl = flows[active[a]];
            if (std::find_if(fl.links.begin(), fl.links.end(), [&](uint32_t l) { return slot[l] == at; }) ==
                fl.links.end())
                continue;
            rate[active[a]] = best;
            frozen[a] = 1;
            --unfrozen;
            for (uint32_t l : fl.links) {
                left[slot[l]] = std::max(0.0, left[slot[l]] - best);
                --count[slot[l]];
            }
        }
    }
    for (size_t a = 0; a < active.size(); ++a)
        if (!frozen[a]) rate[active[a]] = std::numeric_limits<double>::infinity();  // crosses no link
}

}  // namespace

std::vector<double> fluid_completions(const std::vector<FluidFlow> &flows, const std::vector<double> &capacity,
                                      std::vector<double> *load_seen, std::vector<double> *seconds_over,
                                      const std::vector<double> *over_threshold, std::vector<double> *seconds_busy) {
    std::vector<double> done(flows.size(), 0), left(flows.size()), rate(flows.size(), 0);
    std::vector<size_t> order(flows.size()), active;
    for (size_t i = 0; i < flows.size(); ++i) order[i] = i, left[i] = flows[i].bytes;
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return flows[a].start < flows[b].start; });
    std::vector<double> load(capacity.size(), 0);
    size_t next = 0;
    double now = flows.empty() ? 0 : flows[order[0]].start;
    auto account = [&](double dt) {
        if (dt <= 0) return;
        std::fill(load.begin(), load.end(), 0);
        std::vector<uint32_t> touched;
        for (size_t f : active)
            for (uint32_t l : flows[f].links) {
                if (load[l] == 0) touched.push_back(l);
                load[l] += rate[f];
            }
        for (uint32_t l : touched) {
            if (load_seen) (*load_seen)[l] = std::max((*load_seen)[l], load[l]);
            if (seconds_busy) (*seconds_busy)[l] += dt;
            if (seconds_over && over_threshold && load[l] > (*over_threshold)[l] * (1 + 1e-9)) (*seconds_over)[l] += dt;
        }
    };
    while (next < order.size() || !active.empty()) {
        // Admit every flow starting now.
        while (next < order.size() && flows[order[next]].start <= now + 1e-12) active.push_back(order[next++]);
        max_min(flows, active, capacity, rate);
        double step = next < order.size() ? flows[order[next]].start - now : std::numeric_limits<double>::infinity();
        for (size_t f : active) step = std::min(step, rate[f] > 0 ? left[f] / rate[f] : step);
        if (!std::isfinite(step)) break;  // nothing can move: flows with no capacity
        account(step);
        now += step;
        std::vector<size_t> still;
        for (size_t f : active) {
            left[f] -= rate[f] * step;
            if (left[f] <= flows[f].bytes * 1e-9 + 1e-6)
                done[f] = now;
            else
                still.push_back(f);
        }
        active.swap(still);
        if (active.empty() && next < order.size()) now = std::max(now, flows[order[next]].start);
    }
    return done;
}

FlushFigures replay_flushes(const ClusterModel &m, const SimResult &run, CheckpointMode mode) {
    FlushFigures out;
    const LinkPaths &paths = m.paths();
    const Fabric &f = m.fabric();
    const size_t links = paths.link_count();
    std::vector<double> full(links), share_cap(links);
    for (uint32_t l = 0; l < links; ++l) {
        full[l] = f.links[l].bandwidth_gbps * 1e9 / 8;
        share_cap[l] = paths.share_capacity(l);
    }
    const std::vector<double> &capacity = mode == CheckpointMode::Booked ? share_cap : full;

    // Every flush: its flows, and which flush each flow belongs to.
    std::vector<FluidFlow> flows;
    std::vector<size_t> flow_flush;
    std::vector<double> flush_start, alone;
    double run_seconds = 0;
    for (const CheckpointRun &c : run.checkpoints) {
        const JobOutcome &o = run.jobs[c.job];
        if (o.start < 0 || o.end < 0) continue;
        ++out.jobs;
        run_seconds += double(o.end - o.start);
        if (mode == CheckpointMode::Booked && c.window.period_s > c.asked_period_s) ++out.longer_period;
        Flush fl = flush_of(m, c.pods, c.stripes);
        std::vector<FluidFlow> shape;
        for (const FlushFlow &ff : fl.flows) {
            FluidFlow x;
            x.bytes = ff.bytes;
            if (mode == CheckpointMode::Booked && c.window.length_s > 0)
                x.max_rate =
                    ff.bytes / std::max(fl.seconds, 1e-9) * std::min(1.0, fl.seconds / double(c.window.length_s));
            x.links.assign(paths.path_begin(ff.pod, ff.blade), paths.path_end(ff.pod, ff.blade));
            shape.push_back(std::move(x));
        }
        if (shape.empty()) continue;
        std::vector<double> lone = fluid_completions(shape, capacity);
        const double alone_s = *std::max_element(lone.begin(), lone.end());
        const int64_t period = mode == CheckpointMode::Booked ? c.window.period_s : c.asked_period_s;
        if (period <= 0) continue;
        int64_t t = o.start + period;
        if (mode == CheckpointMode::Booked) {
            int64_t r = (c.window.phase_s - t) % period;
            t += r < 0 ? r + period : r;
        }
        for (; t + alone_s <= double(o.end); t += period) {
            for (FluidFlow x : shape) {
                x.start = double(t);
                flows.push_back(std::move(x));
                flow_flush.push_back(flush_start.size());
            }
            flush_start.push_back(double(t));
            alone.push_back(alone_s);
        }
    }
    out.flushes = flush_start.size();
    if (flows.empty()) return out;
    std::vector<double> seen(links, 0), over(links, 0), busy(links, 0);
    std::vector<double> done = fluid_completions(flows, capacity, &seen, &over, &share_cap, &busy);
    std::vector<double> finish(flush_start.size(), 0);
    for (size_t i = 0; i < flows.size(); ++i) finish[flow_flush[i]] = std::max(finish[flow_flush[i]], done[i]);
    std::vector<double> ratio, secs;
    double flushing = 0;
    for (size_t k = 0; k < finish.size(); ++k) {
        double d = finish[k] - flush_start[k];
        secs.push_back(d);
        ratio.push_back(alone[k] > 0 ? d / alone[k] : 1);
        flushing += d;
    }
    out.ratio_p50 = percentile(ratio, 0.5);
    out.ratio_p99 = percentile(ratio, 0.99);
    out.ratio_max = percentile(ratio, 1.0);
    out.seconds_p50 = percentile(secs, 0.5);
    out.seconds_p99 = percentile(secs, 0.99);
    out.share_of_run = run_seconds > 0 ? flushing / run_seconds : 0;
    double over_s = 0, busy_s = 0;
    for (uint32_t l = 0; l < links; ++l) {
        out.peak_load = std::max(out.peak_load, full[l] > 0 ? seen[l] / full[l] : 0);
        out.peak_over_share = std::max(out.peak_over_share, share_cap[l] > 0 ? seen[l] / share_cap[l] : 0);
        over_s += over[l];
        busy_s += busy[l];
    }
    out.time_over_share = busy_s > 0 ? over_s / busy_s : 0;
    return out;
}

}  // namespace morpheus::sim
