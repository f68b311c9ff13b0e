// Replacing a file so that a crash or a power cut leaves the old or the new one, never a
// torn one: temporary, write, fsync, rename (the previous kept as PATH.prev), fsync of the
// directory. The ledger and `morpheus update`'s inventory both write this way.
#pragma once
#include <sys/types.h>

#include <string>

namespace morpheus {

// The system calls it goes through (a test seam: the ledger's tests fail a write or record
// the order).
struct DurableFileOps {
    ssize_t (*write)(int fd, const void *data, size_t size);
    int (*fsync)(int fd);
    int (*rename)(const char *from, const char *to);
};
DurableFileOps real_durable_file_ops();

struct DurableWrite {
    mode_t mode = 0600;
    // Owner of the new file; -1 leaves it to the writer (chown needs root anyway).
    uid_t uid = static_cast<uid_t>(-1);
    gid_t gid = static_cast<gid_t>(-1);
    std::string on_failure;  // the fix a failed write suggests, e.g. "the file is unchanged"
    std::string on_open_failure;
};

// Throws SystemError (with errno) naming the file on any failure, the old file left in place.
void write_durably(const std::string &path, const std::string &data, const DurableWrite &how,
                   const DurableFileOps &ops = real_durable_file_ops());

}  // namespace morpheus
