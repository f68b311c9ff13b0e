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
                      const std::string &message, int code = MORPHEUS_E_INPUT, int sys_errno = 0) {
    if (!err) return;
    copy_into(err->file, sizeof err->file, file);
    copy_into(err->where, sizeof err->where, where);
    copy_into(err->message, sizeof err->message, message);
    err->code = code;
    err->sys_errno = sys_errno;
}

// The exception's kind becomes err->code: the most specific class first.
template <typename F>
int guarded(morpheus_error_t *err, F &&f) {
    try {
        set_error(err, "", "", "", MORPHEUS_OK);
        return f();
    } catch (const Refusal &e) {
        set_error(err, "", "", e.what(), e.impossible() ? MORPHEUS_E_IMPOSSIBLE : MORPHEUS_E_PENDING);
    } catch (const SystemError &e) {
        set_error(err, e.file(), e.where(), e.what(), MORPHEUS_E_SYSTEM, e.sys_errno());
    } catch (const InputError &e) {
        set_error(err, e.file(), e.where(), e.what(), MORPHEUS_E_INPUT);
    } catch (const std::bad_alloc &) {
        set_error(err, "", "", "out of memory", MORPHEUS_E_NOMEM);
    } catch (const std::exception &e) {
        set_error(err, "", "", std::string("internal error: ") + e.what(), MORPHEUS_E_INTERNAL);
    } catch (...) {
        set_error(err, "", "", "internal error", MORPHEUS_E_INTERNAL);
    }
    return -1;
}

}  // namespace morpheus::capi
