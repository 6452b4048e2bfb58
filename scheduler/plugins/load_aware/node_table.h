#pragma once
// NodeTable<Record>: per-node records a Trimaran plugin derives from (one MetricsView ×
// one Node object), precomputed once and found in Score by the kube::Node pointer, so
// the per-node hot path does no string hashing, no Quantity conversion and takes no lock
// (issue 7, "Benchmark": the TargetLoadPacking overhead at 5,000 nodes).
//
// Key: NodeInfo::node(), the cache's shared immutable Node object. A record is a pure
// function of that object and of the table's view, so the pointer identifies it
// exactly; the table holds a reference to every keyed Node (a shared_ptr beside the
// records, off the hot path), so the object cannot be freed and its address reused by
// another node while the table lives (no ABA). A node whose object changed (an update) or that is
// new is simply not found: the caller computes the record the slow way and calls NoteMiss(), and
// the next rebuild (Build with `previous`) adds it.
//
// Lookup: records are laid out in the order of the `nodes` they were built from, which
// is the order Score visits them in (the runtime hands each worker contiguous chunks of
// PreScore's node list), so Find first tries the record after this thread's previous
// hit in this table (a thread-local cursor, verified by the key: a wrong guess only
// costs the fallback): sequential memory, no hashing. Otherwise: open addressing over a
// power-of-two slot array (load ≤ 1/2) with a multiplicative hash of the pointer, linear
// probing; a slot holds the key pointer and the record's index.
//
// Lifetime and threads: built on the scheduling thread (PreScore), then immutable but
// for the records' own atomics and the miss counter; shared as
// shared_ptr<const NodeTable> through the cycle state, so concurrent Score workers read
// it without a lock and a rebuild never disturbs a cycle in flight.
//
// Record requirements: default-constructible and copy-assignable (a record with atomic
// per-node caches, e.g. the reported fallback state, copies them by value: a rebuilt
// table carries them over), with a member `const kube::Node* key`, which Build sets.
// Keep it small (one cache line): Score walks 5,000 of them per cycle.

#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "absl/base/optimization.h"
#include "kube/api/node.h"
#include "scheduler/framework/node_info.h"
#include "scheduler/plugins/load_aware/metrics_view.h"

namespace trimaran::sched::plugins::load_aware {

template <typename Record>
class NodeTable {
 public:
  // Computes the record of one node (node_info.node() non-null) for `view` (may be null).
  using MakeRecord = void (*)(const void* ctx, const MetricsView* view, const NodeInfo& node_info,
                              Record& out);

  // A table over `nodes` (entries with a null node() are skipped) for `view`. Records
  // of `previous` (same view only; may be null) are reused for nodes whose Node object
  // is unchanged, and kept for nodes absent from `nodes` (a Filter may drop a node for
  // one pod and not for the next) unless `previous` holds more than 2 × |nodes| + 16
  // records (deleted nodes then go: the table stays O(nodes)); `make` runs only for the
  // nodes without a reusable record. O(nodes) plus `make`'s cost per new record.
  static std::shared_ptr<const NodeTable> Build(std::shared_ptr<const MetricsView> view,
                                                std::span<const NodeInfo* const> nodes,
                                                const NodeTable* previous, MakeRecord make,
                                                const void* ctx) {
    auto table = std::shared_ptr<NodeTable>(new NodeTable());
    if (previous != nullptr && previous->view_ != view) previous = nullptr;
    const size_t capacity = nodes.size() + (previous == nullptr ? 0 : previous->size_);
    table->view_ = std::move(view);
    table->records_ = std::make_unique<Record[]>(capacity);
    table->nodes_.reserve(capacity);
    const size_t num_slots = std::bit_ceil(std::max<size_t>(16, 2 * capacity));
    table->slots_.assign(num_slots, Slot{});
    table->mask_ = num_slots - 1;
    table->shift_ = 64 - std::countr_zero(num_slots);
    for (const NodeInfo* info : nodes) {
      const kube::Node* node = info->node();
      if (node == nullptr || table->Lookup(node) != nullptr) continue;
      Record& r = table->records_[table->size_];
      const Record* old = previous == nullptr ? nullptr : previous->Lookup(node);
      if (old != nullptr) {
        r = *old;
      } else {
        make(ctx, table->view_.get(), *info, r);
      }
      r.key = node;
      table->nodes_.push_back(info->shared_node());
      table->Insert(node, table->size_++);
    }
    if (previous != nullptr && previous->size_ <= 2 * nodes.size() + 16) {
      for (size_t i = 0; i < previous->size_; ++i) {
        const Record& old = previous->records_[i];
        if (table->Lookup(old.key) != nullptr) continue;
        Record& r = table->records_[table->size_];
        r = old;
        table->nodes_.push_back(previous->nodes_[i]);
        table->Insert(old.key, table->size_++);
      }
    }
    return table;
  }

  // The record of `node`, or nullptr when the table has none (new or updated node).
  const Record* Find(const kube::Node* node) const {
    Cursor& cursor = ThreadCursor();
    if (cursor.table != this) cursor = Cursor{this, 0};
    return Find(node, cursor.next);
  }
  // As Find, with the caller's own cursor (start: 0; a batch scoring consecutive nodes
  // keeps one across its loop instead of the thread-local one): `next` is the index of
  // the record expected next, tried first, and is moved past the record found.
  const Record* Find(const kube::Node* node, size_t& next) const {
    if (ABSL_PREDICT_TRUE(next < size_ && records_[next].key == node)) return &records_[next++];
    const Record* record = Lookup(node);
    if (record != nullptr) next = static_cast<size_t>(record - records_.get()) + 1;
    return record;
  }

  // A hint for a batch walking the records in order: fetch the record at `index` (a
  // cursor value some nodes ahead) into the cache. No effect past the end.
  void Prefetch(size_t index) const {
    if (index < size_) __builtin_prefetch(&records_[index]);
  }

  const MetricsView* view() const { return view_.get(); }
  size_t size() const { return size_; }

  // Score found no record (a new or updated node): the next PreScore rebuilds.
  void NoteMiss() const { misses_.store(true, std::memory_order_relaxed); }
  bool had_misses() const { return misses_.load(std::memory_order_relaxed); }

 private:
  struct Slot {
    const kube::Node* key = nullptr;
    size_t index = 0;
  };

  // The next record this thread expects in `table` (only a hint: always verified).
  struct Cursor {
    const NodeTable* table = nullptr;
    size_t next = 0;
  };
  static Cursor& ThreadCursor() {
    static thread_local Cursor cursor;
    return cursor;
  }

  NodeTable() = default;

  // The hash lookup (also used while building).
  const Record* Lookup(const kube::Node* node) const {
    for (size_t i = Hash(node);; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.key == node) return &records_[s.index];
      if (s.key == nullptr) return nullptr;
    }
  }

  size_t Hash(const kube::Node* node) const {
    // Fibonacci hashing: the top bits of pointer × 2^64/φ.
    return static_cast<size_t>((reinterpret_cast<uintptr_t>(node) * 0x9E3779B97F4A7C15ull) >>
                               shift_);
  }
  void Insert(const kube::Node* node, size_t index) {
    size_t i = Hash(node);
    while (slots_[i].key != nullptr) i = (i + 1) & mask_;
    slots_[i] = Slot{node, index};
  }

  std::shared_ptr<const MetricsView> view_;
  std::unique_ptr<Record[]> records_;
  size_t size_ = 0;
  // nodes_[i] keeps records_[i].key alive.
  std::vector<std::shared_ptr<const kube::Node>> nodes_;
  std::vector<Slot> slots_;
  size_t mask_ = 0;
  int shift_ = 64;
  mutable std::atomic<bool> misses_{false};
};

}  // namespace trimaran::sched::plugins::load_aware
