#pragma once
// A DRAM tier: the address mapping, one controller per channel, and the front end its clients (the AGCUs,
// or a trace) send requests through. A request is a list of byte ranges; it is split into transactions of
// the preset's size, which leave the client at a given rate and go to their channel's controller. A client
// may have a window: at most that many transactions in flight, a slot coming back a return latency after
// its data. A request completes when its last transaction's data has moved.
//
// The engine works in DRAM cycles and is plain C++: advanceTo(h) decides every cycle before h, channel by
// channel, and only steps channels together where a window couples them (a completion frees a slot no
// sooner than the shortest data latency plus return latency later, so channels run that far independently).
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <queue>
#include <string>
#include <vector>

#include "hw/mem/dram/AddressMapping.h"
#include "hw/mem/dram/ByteRange.h"
#include "hw/mem/dram/ClockRatio.h"
#include "hw/mem/dram/DramController.h"
#include "util/CountCalendar.h"

namespace steprdu::hw::mem {

struct MemorySystemOptions {
    ControllerOptions controller;
    std::optional<MappingScheme> mapping; // none: the preset's
    bool checkTiming = false;             // check every command with DramChecker
    ClockRatio clock;                     // DRAM cycles per fabric cycle
};

class MemorySystem : public TransactionSink {
  public:
    // `request` is the id submit() returned; `dataCycle` the DRAM cycle its (last) data moved.
    using OnData = std::function<void(int request, std::int64_t dataCycle)>;

    MemorySystem(const DramSpec& spec, const MemorySystemOptions& o);
    MemorySystem(const MemorySystem&) = delete;
    MemorySystem& operator=(const MemorySystem&) = delete;

    void onRequestDone(OnData f) { onRequest_ = std::move(f); }
    void onTransactionDone(OnData f) { onTransaction_ = std::move(f); }
    // At most `transactions` in flight for `client` (0: no window); a slot frees `returnLatency` fabric
    // cycles after its data.
    void setWindow(int client, int transactions, int returnLatency);

    // A request whose transactions leave `client` from fabric cycle `issue` on, `perCycle` per fabric cycle.
    // The DRAM cycle of `issue` must not be before the first undecided cycle. Returns the request's id.
    int submit(int client, bool write, const std::vector<ByteRange>& ranges, std::int64_t issue,
               double perCycle);
    // Decides every DRAM cycle before `h`.
    void advanceTo(std::int64_t h);
    // Decides the earliest pending event alone, if it is before `h`: one channel's cycle or one release of
    // window slots. Returns false if there is none.
    bool step(std::int64_t h);
    // The next DRAM cycle at which anything happens; kNeverCycle when every request has been scheduled.
    std::int64_t nextEvent() const;
    // Requests not yet complete.
    int pending() const { return pending_; }
    // Transactions of request `id`; valid until advanceTo is next called.
    std::int64_t transactionsOf(int id) const { return requests_[id].remaining; }

    const DramSpec& spec() const { return spec_; }
    const AddressMapping& mapping() const { return mapping_; }
    const ClockRatio& clock() const { return o_.clock; }
    int channels() const { return static_cast<int>(channels_.size()); }
    const DramController& controller(int c) const { return *channels_[c]; }
    const DramChecker* checker(int c) const { return checkers_.empty() ? nullptr : checkers_[c].get(); }
    std::int64_t bytesRead() const { return bytes_[0]; }
    std::int64_t bytesWritten() const { return bytes_[1]; }
    // The last data cycle of any transaction so far.
    std::int64_t lastData() const { return lastData_; }

    void transactionDone(int channel, const Transaction& x, std::int64_t data) override;
    void writeQueued(int channel, const Transaction& x, std::int64_t cycle) override;
    void inputDrained(int channel) override;

  private:
    // Transaction `x` is done for its client at DRAM cycle `at`: its window slot comes back, its request
    // completes with its last transaction.
    void done(const Transaction& x, std::int64_t at);
    struct Request {
        int client = 0;
        std::int64_t remaining = 0, last = 0;
    };
    struct Client {
        int cap = 0;
        int returnLatency = 0;
        int outstanding = 0;
        // Streams whose transactions wait for a window slot, in order; each makes its next transaction only
        // when that one leaves, so a large request holds no transactions of its own.
        std::deque<int> held;
        std::int64_t heldReady = 0; // the ready cycle of the front stream's next transaction
        CountCalendar frees;        // DRAM cycles at which slots in use come back
    };
    // The transactions of a windowless client's request not yet sent to their channels. They are sent in
    // (ready, seq) order across all streams, only as far as keeps every channel's input buffer non-empty:
    // each buffer's front is then the transaction it would be with every one sent at once, and a large
    // request costs a few buffered transactions per channel instead of all of its own.
    struct Stream {
        int request = -1;
        bool write = false;
        std::vector<ByteRange> ranges;
        std::size_t range = 0;
        std::uint64_t next = 1, last = 0; // transaction numbers (address / size) left in the current range
        std::int64_t j = 0;               // transactions made so far
        std::int64_t issue = 0, floor = 0, seq = 0;
        double perCycle = 0;
        std::int64_t first = 0; // the ready cycle of its first transaction
    };
    using Key = std::pair<std::int64_t, std::int64_t>; // (ready, seq) of a stream's next transaction
    // Moves `s` to its next transaction; false when it has none left.
    bool advance(Stream& s);
    std::int64_t readyOf(const Stream& s) const;
    // The stream's next transaction; returns its channel.
    int makeTransaction(Stream& s, std::int64_t ready, Transaction& x);
    // Queues stream `k` whose next transaction has `key`.
    void queueStream(int k, Key key);
    // Sends the transaction of least (ready, seq) not yet sent; next_ must be a stream.
    void sendNext();
    Client& client(int c);
    std::int64_t frontEndNext() const;
    void releaseHeld(std::int64_t t);
    // Keep the cached next events up to date after a channel or a client changes.
    void channelChanged(int c) { channelNext_[c] = channels_[c]->nextEvent(); }
    void clientChanged(int c);

    DramSpec spec_;
    MemorySystemOptions o_;
    AddressMapping mapping_;
    std::vector<std::unique_ptr<DramChecker>> checkers_;
    std::vector<std::unique_ptr<DramController>> channels_;
    std::vector<Client> clients_;
    // Each channel's and each client's next event, cached: the engine looks for the least of them several
    // times per cycle decided, and a scan of one array stays in the cache where the objects do not.
    std::vector<std::int64_t> channelNext_, clientNext_;
    std::vector<Request> requests_;
    std::vector<Stream> streams_;
    std::vector<int> freeStreams_;
    std::priority_queue<std::pair<Key, int>, std::vector<std::pair<Key, int>>, std::greater<>>
        pendingStreams_;
    int next_ = -1; // the stream of least key (outside the heap), or -1 when every transaction is sent
    Key nextKey_{0, 0};
    Key sent_{-1, -1}; // the largest key sent so far
    std::vector<int> freeRequests_;
    OnData onRequest_, onTransaction_;
    std::int64_t lookahead_ = 1; // DRAM cycles a command cannot affect the front end within
    std::int64_t pos_ = 0;       // every cycle before it is decided (lazily, channel by channel)
    std::int64_t seq_ = 0, lastData_ = 0;
    std::int64_t lastRelease_ = -1; // the front end's last release of window slots
    std::int64_t bytes_[2] = {0, 0};
    int pending_ = 0;
};

} // namespace steprdu::hw::mem
