// InputError: a problem in a file or value the user gave us, with where it is and how to fix it.
#pragma once
#include <stdexcept>
#include <string>

namespace morpheus {

class InputError : public std::runtime_error {
public:
    // file: the path (or "" for a command-line value); where: JSON path, "line N" or flag name.
    InputError(std::string file, std::string where, std::string problem, std::string fix = "")
        : std::runtime_error(compose(file, where, problem, fix)),
          file_(std::move(file)),
          where_(std::move(where)),
          problem_(std::move(problem)),
          fix_(std::move(fix)) {}

    const std::string &file() const { return file_; }
    const std::string &where() const { return where_; }
    const std::string &problem() const { return problem_; }
    const std::string &fix() const { return fix_; }

private:
    static std::string compose(const std::string &file, const std::string &where, const std::string &problem,
                               const std::string &fix) {
        std::string s;
        if (!file.empty()) s += file + ": ";
        if (!where.empty()) s += where + ": ";
        s += problem;
        if (!fix.empty()) s += " (fix: " + fix + ")";
        return s;
    }
    std::string file_, where_, problem_, fix_;
};

// The operating system refused (write, fsync, rename, permissions): the user's input was fine.
// An InputError still (file and fix for people), told apart at the C ABI by its code and errno.
class SystemError : public InputError {
public:
    SystemError(std::string file, std::string where, std::string problem, int sys_errno, std::string fix = "")
        : InputError(std::move(file), std::move(where), std::move(problem), std::move(fix)), errno_(sys_errno) {}
    int sys_errno() const { return errno_; }

private:
    int errno_;
};

// Not a failure: a verdict. The job cannot be placed now (pending) or ever (impossible), and
// what() says why in words a pending reason can carry.
class Refusal : public InputError {
public:
    Refusal(std::string reason, bool impossible) : InputError("", "", std::move(reason)), impossible_(impossible) {}
    bool impossible() const { return impossible_; }

private:
    bool impossible_;
};

}  // namespace morpheus
