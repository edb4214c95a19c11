// rfdb_floor: the least CPU any ingester of a corpus must spend to meet the
// issue 12 requirements, measured without rfdb: walk the eval dirs, read
// every *.json file, hash it (sha256, for "unchanged" and the copy check),
// parse it once (simdjson DOM) and compress it (zstd at rfdb's level 5, no
// dictionary: DB size ≤ 0.5× the JSON). No database is written, so the real
// floor is higher still. Four passes over the same files, each adding one
// step; the process CPU (user + system, getrusage) of each pass is printed
// as "<step> <seconds>", one line each. tools/bench/bench.py prints it
// beside the Python reference's CPU. A program, never a timed unit test.
#include <openssl/evp.h>

#include <cstdio>
#include <fcntl.h>
#include <filesystem>
#include <simdjson.h>
#include <string>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>
#include <zstd.h>

namespace {

namespace fs = std::filesystem;

double cpu_seconds()
{
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  const auto s = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
  };
  return s(u.ru_utime) + s(u.ru_stime);
}

// The whole file with open, fstat and read: the cheapest way to take it in.
std::string read_file(const fs::path& p)
{
  std::string text;
  const int fd = ::open(p.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return text;
  }
  struct stat st {};
  if (::fstat(fd, &st) == 0) {
    text.resize(static_cast<std::size_t>(st.st_size));
    std::size_t done = 0;
    while (done < text.size()) {
      const ssize_t n = ::read(fd, text.data() + done, text.size() - done);
      if (n <= 0) {
        break;
      }
      done += static_cast<std::size_t>(n);
    }
    text.resize(done);
  }
  ::close(fd);
  return text;
}

} // namespace

int main(int argc, char** argv)
{
  if (argc != 2) {
    std::fprintf(stderr, "usage: rfdb_floor CORPUS_DIR\n");
    return 2;
  }
  const fs::path corpus = argv[1];
  if (!fs::is_directory(corpus)) {
    std::fprintf(stderr, "rfdb_floor: %s: not a directory\n", argv[1]);
    return 2;
  }
  simdjson::dom::parser parser;
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  std::vector<char> packed;
  unsigned char digest[EVP_MAX_MD_SIZE];
  const char* steps[] = {"walk+read", "+sha256", "+parse", "+zstd"};
  std::size_t files = 0;
  std::size_t bytes = 0;
  for (int step = 0; step < 4; ++step) {
    files = 0;
    bytes = 0;
    const double t0 = cpu_seconds();
    for (const auto& e : fs::recursive_directory_iterator(corpus)) {
      if (!e.is_regular_file() || e.path().extension() != ".json") {
        continue;
      }
      const std::string text = read_file(e.path());
      ++files;
      bytes += text.size();
      if (step >= 1) {
        unsigned int n = 0;
        EVP_Digest(text.data(), text.size(), digest, &n, EVP_sha256(), nullptr);
      }
      if (step >= 2) {
        // Errors are the input's business (comments, BOM): the floor only
        // needs the work of one pass over the text.
        (void)parser.parse(text.data(), text.size(), true);
      }
      if (step >= 3) {
        packed.resize(ZSTD_compressBound(text.size()));
        (void)ZSTD_compressCCtx(cctx, packed.data(), packed.size(), text.data(), text.size(), 5);
      }
    }
    std::printf("%s %.3f\n", steps[step], cpu_seconds() - t0);
    std::fflush(stdout);
  }
  std::printf("files %zu\nbytes %zu\n", files, bytes);
  ZSTD_freeCCtx(cctx);
  return 0;
}
