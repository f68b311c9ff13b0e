#include "durable_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "input_error.hpp"

namespace morpheus {

DurableFileOps real_durable_file_ops() { return {&::write, &::fsync, &::rename}; }

namespace {
std::string directory_of(const std::string &path) {
    std::string dir = path.find('/') == std::string::npos ? "." : path.substr(0, path.rfind('/'));
    return dir.empty() ? "/" : dir;
}
}  // namespace

// Order matters for power loss: the temporary's data must be on disk before the rename
// installs it, and the rename before we report success, so a power cut leaves the old or the
// new file, never an empty one. The previous file stays as STATE.prev (a hard link: cheap).
void write_durably(const std::string &path, const std::string &data, const DurableWrite &how,
                   const DurableFileOps &file_ops) {
    std::string tmp = path + ".new";
    int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, how.mode);
    if (fd < 0) {
        int e = errno;
        throw SystemError(tmp, "", std::string("cannot write: ") + std::strerror(e), e, how.on_open_failure);
    }
    // The mode asked for, whatever the umask; the owner when asked (root rewriting SlurmUser's file).
    (void)::fchmod(fd, how.mode);
    if ((how.uid != static_cast<uid_t>(-1) || how.gid != static_cast<gid_t>(-1)) &&
        ::fchown(fd, how.uid, how.gid) != 0) {
        // best effort: the file is still written, owned by the writer
    }
    auto fail = [&](const char *what, int e) {
        ::close(fd);
        ::unlink(tmp.c_str());
        throw SystemError(tmp, "", std::string(what) + std::strerror(e), e, how.on_failure);
    };
    size_t off = 0;
    while (off < data.size()) {
        ssize_t n = file_ops.write(fd, data.data() + off, data.size() - off);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) fail("write failed: ", n < 0 ? errno : ENOSPC);
        off += static_cast<size_t>(n);
    }
    if (file_ops.fsync(fd) != 0) fail("fsync failed: ", errno);
    if (::close(fd) != 0) {
        int e = errno;
        ::unlink(tmp.c_str());
        throw SystemError(tmp, "", std::string("close failed: ") + std::strerror(e), e);
    }
    std::string prev = path + ".prev";
    ::unlink(prev.c_str());
    if (::link(path.c_str(), prev.c_str()) != 0) {
        // best effort: there is no previous file on the first save
    }
    if (file_ops.rename(tmp.c_str(), path.c_str()) != 0) {
        int e = errno;
        ::unlink(tmp.c_str());
        throw SystemError(path, "", std::string("rename failed: ") + std::strerror(e), e);
    }
    int dfd = ::open(directory_of(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0 || file_ops.fsync(dfd) != 0) {
        int e = errno;
        if (dfd >= 0) ::close(dfd);
        throw SystemError(directory_of(path), "", std::string("fsync of the directory failed: ") + std::strerror(e), e);
    }
    ::close(dfd);
}

}  // namespace morpheus
