// One call at a time on an object whose state a call uses from start to end (a Generator's
// cache and sequence, a pipeline's queues): a call from another thread waits its turn; a call
// from inside a running one on the same thread (a token callback calling back in) is refused,
// since waiting would never end and going on would corrupt the outer call.
//
//   TIR_ASSIGN_OR_RETURN(SerialCalls::Turn turn, calls_.enter("generate"));
//   ... the call; the turn ends when `turn` goes out of scope
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string_view>
#include <thread>
#include <utility>

#include "core/status.h"

namespace tir {

class SerialCalls {
 public:
  class Turn {
   public:
    explicit Turn(SerialCalls* owner) : owner_(owner) {}
    Turn(Turn&& other) noexcept : owner_(std::exchange(other.owner_, nullptr)) {}
    Turn& operator=(Turn&&) = delete;
    ~Turn() {
      if (!owner_) return;
      owner_->running_on_.store(std::thread::id(), std::memory_order_relaxed);
      owner_->mutex_.unlock();
    }

   private:
    SerialCalls* owner_;
  };

  /// Waits until no call runs on another thread; an error naming `call` if this thread is
  /// inside one already.
  Result<Turn> enter(std::string_view call) {
    if (running_on_.load(std::memory_order_relaxed) == std::this_thread::get_id())
      return make_error(StatusCode::kInvalidArgument, call, " called again while a ", call,
                        " of the same object runs on this thread (from its callback?); one at a "
                        "time per object: use another object for a second conversation");
    mutex_.lock();
    running_on_.store(std::this_thread::get_id(), std::memory_order_relaxed);
    return Turn(this);
  }

 private:
  std::mutex mutex_;
  std::atomic<std::thread::id> running_on_{};
};

}  // namespace tir
