#include "gnuplot.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

#include <cstdlib>
#include <cstring>

#include "input_error.hpp"

namespace morpheus::cli {

namespace {
bool ends_with(const std::string &s, const char *suffix) {
    size_t n = std::strlen(suffix);
    return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}
}  // namespace

void check_plot_path(const std::string &path) {
    if (!ends_with(path, ".svg") && !ends_with(path, ".png"))
        throw InputError("", "--plot", "\"" + path + "\" is neither .svg nor .png", "e.g. --plot picture.svg");
}

std::string plot_terminal(const std::string &path, int width, int height) {
    std::string size = " size " + std::to_string(width) + "," + std::to_string(height);
    return ends_with(path, ".svg") ? "svg" + size + " dynamic background rgb 'white'" : "pngcairo" + size;
}

std::string gnuplot_string(const std::string &s) {
    std::string out = "\"";
    for (char c : s) {
        if (c == '\n') {  // a line break in a title
            out += "\\n";
            continue;
        }
        if (c == '"' || c == '\\') out += '\\';
        out += c;
    }
    return out + "\"";
}

void run_gnuplot(const std::string &script_path) {
    // The script's path is ours (mkdtemp: letters, digits, '/', '.', '-'), safe to quote plainly.
    if (std::system("command -v gnuplot >/dev/null 2>&1") != 0)
        throw InputError("", "--plot", "gnuplot is not installed",
                         "install gnuplot (Debian: gnuplot-nox), or use --json and plot it yourself");
    int rc = std::system(("gnuplot '" + script_path + "'").c_str());
    if (rc != 0)
        throw InputError("", "--plot",
                         "gnuplot failed (exit status " + std::to_string(WIFEXITED(rc) ? WEXITSTATUS(rc) : rc) + ")",
                         "see gnuplot's message above");
}

PlotScratch::PlotScratch() {
    char dir[] = "/tmp/morpheus-plot.XXXXXX";
    if (!::mkdtemp(dir))
        throw InputError("", "--plot", std::string("cannot make a temporary directory: ") + std::strerror(errno));
    dir_ = dir;
}

PlotScratch::~PlotScratch() {
    for (const std::string &f : files_) ::unlink(f.c_str());
    ::rmdir(dir_.c_str());
}

std::string PlotScratch::file(const std::string &name) {
    files_.push_back(dir_ + "/" + name);
    return files_.back();
}

}  // namespace morpheus::cli
