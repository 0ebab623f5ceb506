// What a real model's attention is, in words, from its config.json, its registry entry and the
// tensors its file holds: the window's "Fixed by the model" text, its shapes line and the
// attention's parameter count, and how its query heads share K/V heads (grouped-query
// attention, Ainslie et al. 2023). GUI-free, so the window, the CLI and the figures' captions
// say the same thing, for GPT-2 and BERT as for Llama, Mistral, Qwen, Gemma, Phi-3 and OLMo 2.
#pragma once

#include "models/real_model.h"

#include <string>
#include <vector>

namespace core::models {

// ---- Query heads sharing K/V heads ----------------------------------------------------------
//
// With H query heads and H_kv K/V heads (a divisor of H), query head h reads K/V head
// h / (H / H_kv): consecutive runs of H / H_kv query heads share one key and one value
// projection. H_kv = H is plain multi-head attention (MHA), 1 multi-query (MQA; Shazeer 2019),
// between them grouped-query attention (GQA; Ainslie et al. 2023).
struct KvGroups {
    int heads = 0;   // H
    int kvHeads = 0; // H_kv (0 or anything that does not divide H: read as H)

    int groups() const { return valid() ? kvHeads : heads; }
    int perGroup() const { return valid() ? heads / kvHeads : 1; } // query heads per K/V head
    bool shared() const { return valid() && kvHeads < heads; }     // GQA or MQA
    int groupOf(int h) const { return h / perGroup(); }            // h from 0
    int firstHead(int group) const { return group * perGroup(); }  // from 0
    bool valid() const { return kvHeads > 0 && heads > 0 && heads % kvHeads == 0; }
};

KvGroups kvGroups(const ModelConfig& config);

// "GQA", "MQA" or "MHA".
const char* kvGroupsKind(const KvGroups& groups);
// The grid's legend: "2 query heads per K/V head (GQA)", "all 4 query heads share one K/V head
// (MQA)"; "" for MHA, where nothing is shared.
std::string kvGroupsLegend(const KvGroups& groups);
// A head's hover line, h from 0, numbers from 1: "query head 5 · K/V head 3 of 8 (shared with
// heads 5–6)", "query head 2 · K/V head 1 of 1 (shared by all 4 heads, MQA)"; "" for MHA.
std::string kvGroupNote(const KvGroups& groups, int h);

// ---- What the model fixes -------------------------------------------------------------------

// "Fixed by the model: causal mask; a sliding window of 4 tokens on every layer; rotary
// positions (RoPE, theta 10000); RMSNorm before each sublayer; scale 1/sqrt(head_dim) =
// 1/sqrt(16); multi-query attention: all 4 query heads share one K/V head (MQA); its weights.
// x of a layer is ...; q, k and v add no biases." Each part as the config and the file say it.
std::string fixedByModelText(const RealModel& model);

// The same facts as one short caption line for figures: "RoPE theta 10000, RMSNorm, scale
// 1/sqrt(16), window 4 on every layer, MQA". "" for GPT-2 and the BERT family, whose caption's
// sizes say it all.
std::string attentionCaptionLine(const RealModel& model);

// The shapes of the trace shown, as the Controls list them: "B=1", "N=12", "M=12", "d_model=32",
// "H=4", "H_kv=2" (only when it is not H), "d_head=16" (head_dim, which need not be d_model / H).
std::vector<std::string> realShapePieces(const ModelConfig& config, int tokens);

// One layer's attention parameters: W_Q d x (H hd), W_K and W_V d x (H_kv hd) each, W_O
// (H hd) x d, the biases the file holds and the QK-norm weights (hd twice per head-wise norm,
// H hd + H_kv hd over the whole projections).
struct AttentionParameterCount {
    long long count = 0;
    // "4 x d_model^2 + biases" (GPT-2, BERT), "2 x d_model x d_head x (H + H_kv)" (GQA, MQA),
    // "4 x d_model x H x d_head" (MHA whose heads are not d_model wide together), with
    // " + biases" and " + QK-norm" where there are.
    std::string formula;
    std::string terms; // the parts with their numbers: "W_Q 32 x 32, W_K 32 x 16, ..."
};
AttentionParameterCount attentionParameters(const ModelConfig& config, AttentionBiases biases);
AttentionParameterCount attentionParameters(const RealModel& model);

// 13312 -> "13,312".
std::string groupedDigits(long long n);

} // namespace core::models
