// What every C entry point of the core shares: copying an error into morpheus_error_t, and
// guarded(), which turns any exception into -1 plus that error so none unwinds into Slurm.
#pragma once
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>

#include "input_error.hpp"
#include "morpheus/morpheus.h"

#define MORPHEUS_API extern "C" __attribute__((visibility("default")))

namespace morpheus::capi {

inline void copy_into(char *dst, size_t size, const std::string &src) {
    std::strncpy(dst, src.c_str(), size - 1);
    dst[size - 1] = '\0';
}

inline void set_error(morpheus_error_t *err, const std::string &file, const std::string &where,
                      const std::string &message) {
    if (!err) return;
    copy_into(err->file, sizeof err->file, file);
    copy_into(err->where, sizeof err->where, where);
    copy_into(err->message, sizeof err->message, message);
}

template <typename F>
int guarded(morpheus_error_t *err, F &&f) {
    try {
        set_error(err, "", "", "");
        return f();
    } catch (const InputError &e) {
        set_error(err, e.file(), e.where(), e.what());
    } catch (const std::bad_alloc &) {
        set_error(err, "", "", "out of memory");
    } catch (const std::exception &e) {
        set_error(err, "", "", std::string("internal error: ") + e.what());
    } catch (...) {
        set_error(err, "", "", "internal error");
    }
    return -1;
}

}  // namespace morpheus::capi
