// Open-addressing hash tables for the BPE model (bpe_model.h): a real vocabulary has 100k to
// 260k entries and 150k to 520k merges, looked up three times per merge while loading.
// std::unordered_map's node per entry costs a cache miss or two per look-up and made loading
// Llama 3's tokenizer.json three times slower; these keep each entry in one flat array.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace core::models {

// token -> id. The tokens' bytes live in one arena; a slot holds where, and the hash's high bits.
class TokenIndex {
  public:
    void reserve(std::size_t count);
    void set(std::string_view token, int id); // a token given again takes the new id
    int find(std::string_view token) const;   // -1 when absent
    std::size_t size() const { return count_; }

  private:
    struct Slot {
        std::uint32_t offset = 0, length = 0;
        std::uint32_t tag = 0; // the hash's high 32 bits
        int id = -1;           // -1: empty
    };
    static std::uint64_t hash(std::string_view s);
    std::size_t slotOf(std::string_view token, std::uint64_t h) const;
    void grow();

    std::string arena_;
    std::vector<Slot> slots_;
    std::size_t count_ = 0;
};

// (left id, right id) -> (rank, result id).
class PairTable {
  public:
    struct Value {
        std::uint32_t rank;
        int result;
    };
    void reserve(std::size_t count);
    void set(int left, int right, Value value);
    const Value* find(int left, int right) const; // nullptr when absent

  private:
    struct Slot {
        std::uint64_t key = 0;
        Value value{0, -1}; // result -1: empty
    };
    std::size_t slotOf(std::uint64_t key) const;
    void grow();

    std::vector<Slot> slots_;
    std::size_t count_ = 0;
};

} // namespace core::models
