// Non-blocking frame writer of the injection library (see pipe_writer.hpp).
#include "inject/detail/pipe_writer.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <ctime>

namespace solscope::inject {

auto write_frame(int fd, std::span<const std::uint8_t> frame) -> int {
  sigset_t pipe_only;
  sigset_t old_mask;
  sigemptyset(&pipe_only);
  sigaddset(&pipe_only, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_only, &old_mask);
  sigset_t pending;
  sigemptyset(&pending);
  sigpending(&pending);
  const bool was_pending = sigismember(&pending, SIGPIPE) == 1;
  int err = 0;
  for (;;) {
    const ssize_t n = ::write(fd, frame.data(), frame.size());
    if (n >= 0) {
      break;  // a pipe write of at most PIPE_BUF bytes is all or nothing
    }
    if (errno != EINTR) {
      err = errno;
      break;
    }
  }
  if (err == EPIPE && !was_pending) {
    const timespec zero{};
    sigtimedwait(&pipe_only, nullptr, &zero);  // consume the SIGPIPE this write raised
  }
  pthread_sigmask(SIG_SETMASK, &old_mask, nullptr);
  return err;
}

PipeWriter::PipeWriter(int fd, std::int32_t pid) : fd_(fd), encoder_(pid) {
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0 && (flags & O_NONBLOCK) == 0) {
    ::fcntl(fd, F_SETFL, flags | O_NONBLOCK);
  }
}

void PipeWriter::remember(const RecordBody& body) {
  if (const auto* h = std::get_if<Hello>(&body)) {
    hello_ = *h;
  } else if (const auto* d = std::get_if<Device>(&body)) {
    for (auto& known : devices_) {
      if (known.cuda_device == d->cuda_device) {
        known = *d;
        return;
      }
    }
    devices_.push_back(*d);
  } else if (const auto* c = std::get_if<Clock>(&body)) {
    clock_ = *c;
  }
}

void PipeWriter::add(const RecordBody& body) {
  if (!encoder_.add(body)) {
    send_frame();
    if (resend_pending_) {
      add_resend();
    }
    (void)encoder_.add(body);  // any single record fits an empty frame (names are cut to 512 bytes)
  }
  if (std::holds_alternative<Kernel>(body)) {
    ++kernels_in_frame_;
  }
}

void PipeWriter::add_resend() {
  resend_in_frame_ = true;
  if (hello_) {
    (void)encoder_.add(*hello_);
  }
  for (const auto& d : devices_) {
    (void)encoder_.add(d);
  }
  if (clock_) {
    (void)encoder_.add(*clock_);
  }
  (void)encoder_.add(dropped_);
  dropped_in_frame_ = dropped_;
}

void PipeWriter::on_record(const RecordBody& body) {
  if (!std::holds_alternative<Kernel>(body)) {
    remember(body);
  }
  if (encoder_.empty() && resend_pending_) {
    add_resend();
  }
  add(body);
}

void PipeWriter::add_cupti_dropped(std::uint64_t n) {
  dropped_.by_cupti += n;
}

void PipeWriter::flush() {
  if (encoder_.empty() && resend_pending_) {
    add_resend();
  } else if (dropped_ != dropped_sent_ && !dropped_in_frame_) {
    add(dropped_);
    dropped_in_frame_ = dropped_;
  }
  send_frame();
}

void PipeWriter::send_frame() {
  auto frame = encoder_.finish();
  if (frame.empty()) {
    return;
  }
  const int err = stats_.broken ? broken_errno_ : write_frame(fd_, frame);
  if (err == 0) {
    ++stats_.frames_sent;
    stats_.kernels_sent += kernels_in_frame_;
    if (resend_in_frame_) {
      resend_pending_ = false;
    }
    if (dropped_in_frame_) {
      dropped_sent_ = *dropped_in_frame_;
    }
  } else {
    if (err != EAGAIN && err != EWOULDBLOCK) {
      stats_.broken = true;
      broken_errno_ = err;
    }
    ++stats_.frames_dropped;
    stats_.kernels_dropped += kernels_in_frame_;
    dropped_.pipe_full += kernels_in_frame_;
    resend_pending_ = true;
  }
  encoder_.clear();
  kernels_in_frame_ = 0;
  resend_in_frame_ = false;
  dropped_in_frame_.reset();
}

}  // namespace solscope::inject
