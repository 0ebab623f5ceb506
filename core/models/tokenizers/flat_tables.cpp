// The BPE model's flat hash tables (flat_tables.h): linear probing, a power-of-two size, at
// most half full.
#include "models/tokenizers/flat_tables.h"

#include <cstring>

namespace core::models {
namespace {

std::size_t tableSize(std::size_t count) {
    std::size_t size = 16;
    while (size < count * 2) size *= 2;
    return size;
}

} // namespace

std::uint64_t TokenIndex::hash(std::string_view s) {
    std::uint64_t h = 0x9E3779B97F4A7C15ull ^ s.size();
    std::size_t i = 0;
    for (; i + 8 <= s.size(); i += 8) {
        std::uint64_t chunk;
        std::memcpy(&chunk, s.data() + i, 8);
        h = (h ^ chunk) * 0xFF51AFD7ED558CCDull;
        h ^= h >> 32;
    }
    std::uint64_t tail = 0;
    if (i < s.size()) std::memcpy(&tail, s.data() + i, s.size() - i);
    h = (h ^ tail) * 0xC4CEB9FE1A85EC53ull;
    return h ^ (h >> 29);
}

void TokenIndex::reserve(std::size_t count) {
    if (slots_.size() < tableSize(count)) {
        std::vector<Slot> old = std::move(slots_);
        slots_.assign(tableSize(count), Slot{});
        for (const Slot& s : old)
            if (s.id >= 0)
                slots_[slotOf(std::string_view(arena_).substr(s.offset, s.length),
                              hash(std::string_view(arena_).substr(s.offset, s.length)))] = s;
    }
}

std::size_t TokenIndex::slotOf(std::string_view token, std::uint64_t h) const {
    const std::size_t mask = slots_.size() - 1;
    const auto tag = std::uint32_t(h >> 32);
    for (std::size_t i = std::size_t(h) & mask;; i = (i + 1) & mask) {
        const Slot& s = slots_[i];
        if (s.id < 0 || (s.tag == tag && s.length == token.size() &&
                         (token.empty() ||
                          std::memcmp(arena_.data() + s.offset, token.data(), token.size()) == 0)))
            return i;
    }
}

void TokenIndex::set(std::string_view token, int id) {
    if ((count_ + 1) * 2 > slots_.size()) reserve(count_ + 1 > 8 ? (count_ + 1) * 2 : 8);
    const std::uint64_t h = hash(token);
    Slot& s = slots_[slotOf(token, h)];
    if (s.id < 0) {
        s.offset = std::uint32_t(arena_.size()), s.length = std::uint32_t(token.size());
        s.tag = std::uint32_t(h >> 32);
        arena_.append(token);
        ++count_;
    }
    s.id = id;
}

int TokenIndex::find(std::string_view token) const {
    if (slots_.empty()) return -1;
    return slots_[slotOf(token, hash(token))].id;
}

std::size_t PairTable::slotOf(std::uint64_t key) const {
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = std::size_t((key * 0x9E3779B97F4A7C15ull) >> 20) & mask;;
         i = (i + 1) & mask)
        if (slots_[i].value.result < 0 || slots_[i].key == key) return i;
}

void PairTable::reserve(std::size_t count) {
    if (slots_.size() >= tableSize(count)) return;
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(tableSize(count), Slot{});
    for (const Slot& s : old)
        if (s.value.result >= 0) slots_[slotOf(s.key)] = s;
}

void PairTable::set(int left, int right, Value value) {
    if ((count_ + 1) * 2 > slots_.size()) reserve((count_ + 1) * 2);
    const std::uint64_t key = (std::uint64_t(std::uint32_t(left)) << 32) | std::uint32_t(right);
    Slot& s = slots_[slotOf(key)];
    if (s.value.result < 0) ++count_;
    s.key = key, s.value = value;
}

const PairTable::Value* PairTable::find(int left, int right) const {
    if (slots_.empty()) return nullptr;
    const std::uint64_t key = (std::uint64_t(std::uint32_t(left)) << 32) | std::uint32_t(right);
    const Slot& s = slots_[slotOf(key)];
    return s.value.result < 0 ? nullptr : &s.value;
}

} // namespace core::models
