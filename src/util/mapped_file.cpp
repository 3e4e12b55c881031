#include "util/mapped_file.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <utility>
#include <wgrt/error.h>

#include "util/printable.h"

namespace wgrt {

namespace {

// The SIGBUS guard: a fixed table of live mappings, read by the signal handler with atomics only.
struct Slot {
  std::atomic<uintptr_t> begin{0}, end{0};
  std::atomic<bool> used{false}, faulted{false};
};
constexpr int kSlots = 256;
Slot g_slots[kSlots];
struct sigaction g_previous {};
uintptr_t g_page = 4096;

void on_sigbus(int sig, siginfo_t* info, void* ucontext) {
  const auto addr = reinterpret_cast<uintptr_t>(info->si_addr);
  for (Slot& s : g_slots) {
    if (addr < s.begin.load() || addr >= s.end.load()) continue;
    void* page = reinterpret_cast<void*>(addr & ~(g_page - 1));
    // Replace the vanished file page by a zero page: the faulting read is retried and completes.
    if (mmap(page, g_page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != MAP_FAILED) {
      s.faulted.store(true);
      return;
    }
    break;
  }
  // Not a read of a wgrt mapping: whatever handled SIGBUS before us, or the default action.
  if ((g_previous.sa_flags & SA_SIGINFO) && g_previous.sa_sigaction) {
    g_previous.sa_sigaction(sig, info, ucontext);
  } else if (g_previous.sa_handler != SIG_DFL && g_previous.sa_handler != SIG_IGN) {
    g_previous.sa_handler(sig);
  } else {
    signal(SIGBUS, SIG_DFL);  // returning re-runs the access, which now kills the process as before
  }
}

void install_guard() {
  static std::once_flag once;
  std::call_once(once, [] {
    g_page = uintptr_t(sysconf(_SC_PAGESIZE));
    struct sigaction sa {};
    sa.sa_sigaction = on_sigbus;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGBUS, &sa, &g_previous);
  });
}

int register_range(const uint8_t* p, size_t n) {
  for (int i = 0; i < kSlots; ++i) {
    bool expected = false;
    if (!g_slots[i].used.compare_exchange_strong(expected, true)) continue;
    g_slots[i].faulted.store(false);
    g_slots[i].begin.store(reinterpret_cast<uintptr_t>(p));  // begin first: [begin, 0) matches nothing
    g_slots[i].end.store(reinterpret_cast<uintptr_t>(p) + n);
    return i;
  }
  return -1;  // more than kSlots live mappings: this one is unguarded
}

const char* kind_of(mode_t m) {
  if (S_ISDIR(m)) return "a directory";
  if (S_ISFIFO(m)) return "a FIFO (named pipe)";
  if (S_ISSOCK(m)) return "a socket";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  return "not a regular file";
}

std::string quoted(const std::string& path) { return "'" + printable(path, 300) + "'"; }

}  // namespace

void require_regular_file(const std::string& path, const char* what) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    throw FormatError(std::string("cannot open ") + what + " " + quoted(path) + ": " + std::strerror(errno));
  if (!S_ISREG(st.st_mode))
    throw FormatError(std::string(what) + " " + quoted(path) + " is " + kind_of(st.st_mode) +
                      ", not a regular file");
}

MappedFile MappedFile::open(const std::string& path) {
  require_regular_file(path, "file");
  // O_NONBLOCK: if the path was swapped for a FIFO after the check, open() still returns at once.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) throw FormatError("cannot open " + quoted(path) + ": " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    int e = errno;
    ::close(fd);
    throw FormatError("cannot stat " + quoted(path) + ": " + std::strerror(e));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    throw FormatError("file " + quoted(path) + " is " + kind_of(st.st_mode) + ", not a regular file");
  }
  MappedFile m;
  m.path_ = path;
  m.size_ = static_cast<size_t>(st.st_size);
  m.dev_ = st.st_dev, m.ino_ = st.st_ino, m.mtime_ = st.st_mtim;
  if (m.size_ > 0) {
    install_guard();
    void* p = ::mmap(nullptr, m.size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      int e = errno;
      ::close(fd);
      throw FormatError("cannot mmap " + quoted(path) + ": " + std::strerror(e));
    }
    m.data_ = static_cast<const uint8_t*>(p);
    m.slot_ = register_range(m.data_, m.size_);
  }
  ::close(fd);
  return m;
}

bool MappedFile::faulted() const { return slot_ >= 0 && g_slots[slot_].faulted.load(); }

void MappedFile::check_unchanged() const {
  const std::string why = " (the file was overwritten or truncated while wgrt read it; copy model files "
                          "aside or replace them by rename, then load again)";
  if (faulted())
    throw FormatError("file " + quoted(path_) + " is shorter than when it was opened" + why);
  struct stat st {};
  if (data_ == nullptr || ::stat(path_.c_str(), &st) != 0) return;  // empty, deleted or renamed away
  if (uint64_t(st.st_dev) != dev_ || uint64_t(st.st_ino) != ino_) return;  // replaced: our mapping is intact
  if (size_t(st.st_size) != size_ || st.st_mtim.tv_sec != mtime_.tv_sec || st.st_mtim.tv_nsec != mtime_.tv_nsec)
    throw FormatError("file " + quoted(path_) + " changed" + why);
}

MappedFile::~MappedFile() { release(); }

MappedFile::MappedFile(MappedFile&& o) noexcept
    : data_(std::exchange(o.data_, nullptr)),
      size_(std::exchange(o.size_, 0)),
      slot_(std::exchange(o.slot_, -1)),
      path_(std::move(o.path_)),
      dev_(o.dev_),
      ino_(o.ino_),
      mtime_(o.mtime_) {}

MappedFile& MappedFile::operator=(MappedFile&& o) noexcept {
  if (this != &o) {
    release();
    data_ = std::exchange(o.data_, nullptr);
    size_ = std::exchange(o.size_, 0);
    slot_ = std::exchange(o.slot_, -1);
    path_ = std::move(o.path_);
    dev_ = o.dev_, ino_ = o.ino_, mtime_ = o.mtime_;
  }
  return *this;
}

void MappedFile::release() noexcept {
  if (slot_ >= 0) {  // leave the guard's table before the range can be reused by another mapping
    g_slots[slot_].end.store(0);
    g_slots[slot_].begin.store(0);
    g_slots[slot_].used.store(false);
  }
  if (data_) ::munmap(const_cast<uint8_t*>(data_), size_);
  data_ = nullptr;
  size_ = 0;
  slot_ = -1;
}

}  // namespace wgrt
