// Sanitizer and fuzz builds only (STEPRDU_SANITIZE, STEPRDU_FUZZ): the operator fibers use Boost.Context's
// ucontext implementation, which tells ASan about every stack switch (BOOST_USE_ASAN). Debian's
// libboost_context is built for the assembly implementation and lacks the one out-of-line function the
// ucontext headers need: the running fiber's activation record, per thread, starting with the thread's own
// context.
#include <boost/context/fiber.hpp>

namespace boost::context::detail {

fiber_activation_record*& fiber_activation_record::current() noexcept {
    thread_local fiber_activation_record threadContext;
    thread_local fiber_activation_record* running = &threadContext;
    return running;
}

} // namespace boost::context::detail
