#include "tokenizer/bpe_model.h"

#include <queue>
#include <utility>

namespace tir::tokenizer {

BpeModel::BpeModel(std::unordered_map<std::string, TokenId> bytes_to_id,
                   const std::vector<std::array<TokenId, 3>>& merges, BpeModelOptions options)
    : bytes_to_id_(std::move(bytes_to_id)), options_(options) {
  byte_ids_.fill(-1);
  for (int b = 0; b < 256; ++b) {
    auto it = bytes_to_id_.find(std::string(1, static_cast<char>(b)));
    if (it != bytes_to_id_.end()) byte_ids_[b] = it->second;
  }
  // A pair listed twice keeps its last rank, as the reference's map construction does.
  for (size_t rank = 0; rank < merges.size(); ++rank)
    merges_[pair_key(merges[rank][0], merges[rank][1])] = {static_cast<uint32_t>(rank),
                                                           merges[rank][2]};
}

void BpeModel::encode_word(std::string_view word, std::vector<TokenId>* out) const {
  if (word.empty()) return;
  if (options_.ignore_merges) {
    auto it = bytes_to_id_.find(std::string(word));
    if (it != bytes_to_id_.end()) {
      out->push_back(it->second);
      return;
    }
  }
  // Symbols form a linked list; a merge empties the right symbol (len 0).
  struct Symbol {
    TokenId id;
    int prev, next;
    uint32_t len;
  };
  std::vector<Symbol> symbols;
  symbols.reserve(word.size());
  auto add = [&](TokenId id, uint32_t len) {
    const int i = static_cast<int>(symbols.size());
    symbols.push_back({id, i - 1, i + 1, len});
  };
  // As the reference's merge_word: unknown bytes wait in `unk` (fused or not) until a known
  // byte comes; byte-fallback ids do not flush it.
  std::optional<Symbol> unk;
  for (unsigned char b : word) {
    if (byte_ids_[b] >= 0) {
      if (unk) add(unk->id, unk->len);
      unk.reset();
      add(byte_ids_[b], 1);
    } else if (!options_.byte_fallback.empty() && !options_.byte_fallback[b].empty()) {
      for (TokenId id : options_.byte_fallback[b]) add(id, 1);
    } else if (options_.unk_id) {
      if (unk && options_.fuse_unk) {
        unk->len++;
        continue;
      }
      if (unk) add(unk->id, unk->len);
      unk = Symbol{*options_.unk_id, 0, 0, 1};
    }
  }
  if (unk) add(unk->id, unk->len);
  if (symbols.empty()) return;
  symbols.back().next = -1;

  struct Candidate {
    uint32_t rank;
    int pos;
    TokenId merged;
    bool operator>(const Candidate& o) const {
      return rank != o.rank ? rank > o.rank : pos > o.pos;
    }
  };
  std::priority_queue<Candidate, std::vector<Candidate>, std::greater<>> queue;
  auto push = [&](int pos) {
    if (pos < 0 || symbols[pos].next < 0) return;
    auto it = merges_.find(pair_key(symbols[pos].id, symbols[symbols[pos].next].id));
    if (it != merges_.end()) queue.push({it->second.rank, pos, it->second.merged});
  };
  for (int i = 0; i + 1 < static_cast<int>(symbols.size()); ++i) push(i);

  while (!queue.empty()) {
    const Candidate top = queue.top();
    queue.pop();
    Symbol& left = symbols[top.pos];
    if (left.len == 0 || left.next < 0) continue;
    // Stale entry: one side was merged into something else since it was queued.
    auto it = merges_.find(pair_key(left.id, symbols[left.next].id));
    if (it == merges_.end() || it->second.merged != top.merged) continue;
    Symbol& right = symbols[left.next];
    left.id = top.merged;
    left.len += right.len;
    left.next = right.next;
    right.len = 0;
    if (left.next >= 0) symbols[left.next].prev = top.pos;
    push(left.prev);
    push(top.pos);
  }
  for (int i = 0; i >= 0; i = symbols[i].next) out->push_back(symbols[i].id);
}

}  // namespace tir::tokenizer
