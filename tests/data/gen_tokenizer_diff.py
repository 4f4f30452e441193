#!/usr/bin/env python3
"""Differential corpus for tir's tokenizers: mutated tokenizer files and what the reference
libraries make of them, in tests/data/fixtures/tokenizer_diff/.

    ~/.venvs/torch/bin/python tests/data/gen_tokenizer_diff.py
    (needs tokenizers, sentencepiece, protobuf; run gen_tokenizers.py first)

tokenizer.json variants: each is a base fixture of gen_tokenizers.py (gpt2, llama3, qwen2) and
a JSON patch (RFC 6902: add / replace / remove) that changes the fields tir reads: Split
behaviors and invert, ByteLevel options, the other pre-tokenizers, normalizers, the BPE
model's options (dropout, unk_token, fuse_unk, byte_fallback, ignore_merges, subword prefix
and suffix), added-token flags, post-processors and decoders, unknown types. For each, the
`tokenizers` library either refuses the file or encodes every text (with and without special
tokens) to ids or an error. SentencePiece variants: the two .model fixtures with normalizer and
trainer fields and piece types changed, written whole (a few KB each), encoded by the
`sentencepiece` library.
    diff.json   {"texts": [...], "json_variants": [{"name", "base", "patch", "hf"}],
                 "sp_variants": [{"name", "file", "sp"}]}, where "hf"/"sp" is "refused",
                 "nondeterministic" (the library's ids change from run to run) or,
                 per text, {"ids": [...], "ids_with_special": [...], "decoded": "decode(ids)"}
                 or "refused"
    sp/*.model  the SentencePiece variants
tests/tokenizer/hf_diff_test.cc checks that tir gives the same ids or refuses. Deterministic.
Also writes the seed corpora of the tokenizer fuzz targets: fuzz/corpus/tokenizer_json (a
40-merge cut of the llama3 fixture with some of the patches below) and
fuzz/corpus/tokenizer_model (the SentencePiece variants).
"""

import copy
import json
import os
import shutil

os.environ["RUST_BACKTRACE"] = "0"  # the library panics on some variants: one line each

import sentencepiece as spm
from sentencepiece import sentencepiece_model_pb2 as sp_pb2
from tokenizers import Tokenizer

HERE = os.path.dirname(os.path.abspath(__file__))
BASES = os.path.join(HERE, "fixtures", "tokenizers")
OUT = os.path.join(HERE, "fixtures", "tokenizer_diff")
FUZZ = os.path.join(HERE, "..", "..", "fuzz", "corpus")
SEED_VARIANTS = [
    "unmodified_llama3", "split_llama3_Removed_invert0", "split_ws_MergedWithPrevious_invert1",
    "split_empty_matches_MergedWithNext_invert0", "split_space_Contiguous_invert1",
    "byte_level_llama3_prefix1_regex1", "pre_digits_contiguous", "pre_punctuation_removed",
    "pre_whitespace_split", "normalizer_sequence", "normalizer_prepend", "model_ignore_merges_off",
    "added_single_word_strip", "added_normalized_lowercase", "added_lstrip_rstrip",
    "template_text_twice", "template_suffix", "template_b"]

TEXTS = [
    "", " ", "   ", "Hello world", "  leading and trailing  ", "tabs\tand\nnew\n\nlines\r\n",
    "I'm HERE, they'll go: 12345 and 3.14", "café naïve Ångström ÉCOLE",
    "e\u0301 combining a\u0300", "你好，世界！", "emoji 😀👍🏽 🚀", "ΣΊΣΥΦΟΣ ὈΔΥΣΣΕΥΣ",
    "İstanbul straße ﬁ ① Ｆｕｌｌ", "<|begin_of_text|>hi<|eot_id|>",
    "a<|eot_id|> b <|eot_id|>c", "x <|eot_id|>  y\n<|eot_id|>\n", "<|endoftext|>after before<|endoftext|>",
    "<|im_start|>user\nhey<|im_end|>", "<think>x</think> résumé", "ab abab ab_ab (ab)",
    "hello Hello HELLO", "\u00a0nbsp\u3000ideo\u2028sep", "def f(x):\n    return x**2  # sq",
    "1234567 8,9", "ǅ ǈ ΐ ẞ Ω", "it'ſ IT'S we'Ve Kelvin", "nelx mvs᠎y zw‍ab_ab",
    "<|eot_id|><|eot_id|>  <|eot_id|>ab", "😀" * 6,
]


def patch_apply(doc, patch):
    """RFC 6902 add / replace / remove (what nlohmann::json::patch does in the test)."""
    doc = copy.deepcopy(doc)
    for op in copy.deepcopy(patch):
        parts = [p.replace("~1", "/").replace("~0", "~") for p in op["path"].split("/")[1:]]
        parent = doc
        for p in parts[:-1]:
            parent = parent[int(p)] if isinstance(parent, list) else parent[p]
        last = parts[-1]
        if isinstance(parent, list):
            index = len(parent) if last == "-" else int(last)
            if op["op"] == "add":
                parent.insert(index, op["value"])
            elif op["op"] == "replace":
                parent[index] = op["value"]
            else:
                del parent[index]
        elif op["op"] == "remove":
            del parent[last]
        else:
            parent[last] = op["value"]
    return doc


def rep(path, value):
    return {"op": "replace", "path": path, "value": value}


def add(path, value):
    return {"op": "add", "path": path, "value": value}


def rem(path):
    return {"op": "remove", "path": path}


def added_token(id_, content, **flags):
    token = {"id": id_, "content": content, "single_word": False, "lstrip": False,
             "rstrip": False, "normalized": False, "special": False}
    token.update(flags)
    return token


LLAMA3_SPLIT = "/pre_tokenizer/pretokenizers/0"
BL = "/pre_tokenizer/pretokenizers/1"  # llama3's ByteLevel
TEMPLATE = "/post_processor/processors/1"
BOS = {"SpecialToken": {"id": "<|begin_of_text|>", "type_id": 0}}
SEQ_A = {"Sequence": {"id": "A", "type_id": 0}}


def byte_removal_patch(base, chars, extra_vocab=()):
    """Removes the vocabulary entries of the byte-level characters `chars` and every merge and
    entry built from them (so that those bytes have no id), and adds `extra_vocab` entries."""
    vocab = dict(base["model"]["vocab"])
    gone = {t for t in vocab if any(c in t for c in chars)}
    for t in gone:
        del vocab[t]
    merges = [m for m in base["model"]["merges"]
              if not any(c in "".join(m if isinstance(m, list) else m.split(" ")) for c in chars)]
    # Dense ids again, in the old order; the added tokens of the bases have vocabulary ids.
    order = sorted(vocab, key=lambda t: vocab[t])
    vocab = {t: i for i, t in enumerate(order)}
    for t in extra_vocab:
        vocab[t] = len(vocab)
    added = [dict(t, id=vocab[t["content"]]) for t in base["added_tokens"]]
    ops = [rep("/model/vocab", vocab), rep("/model/merges", merges), rep("/added_tokens", added)]
    return ops, vocab


def json_variants(bases):
    v = []  # (name, base, patch)
    for behavior in ["Removed", "Isolated", "MergedWithPrevious", "MergedWithNext", "Contiguous"]:
        for invert in [False, True]:
            suffix = f"{behavior}_invert{int(invert)}"
            v.append((f"split_llama3_{suffix}", "llama3",
                      [rep(LLAMA3_SPLIT + "/behavior", behavior),
                       rep(LLAMA3_SPLIT + "/invert", invert)]))
            for label, pattern in [("ws", {"Regex": r"\s+"}), ("space", {"String": " "}),
                                   ("empty_matches", {"Regex": r"\s*"}),
                                   ("digit", {"Regex": r"\p{N}"})]:
                v.append((f"split_{label}_{suffix}", "llama3",
                          [rep(LLAMA3_SPLIT + "/pattern", pattern),
                           rep(LLAMA3_SPLIT + "/behavior", behavior),
                           rep(LLAMA3_SPLIT + "/invert", invert)]))
    v += [
        ("split_literal_regex_chars", "llama3", [rep(LLAMA3_SPLIT + "/pattern", {"String": "l."})]),
        ("split_empty_string", "llama3", [rep(LLAMA3_SPLIT + "/pattern", {"String": ""})]),
        ("split_lookahead", "llama3", [rep(LLAMA3_SPLIT + "/pattern", {"Regex": r"(?=o)"})]),
        ("split_word_chars", "llama3", [rep(LLAMA3_SPLIT + "/pattern", {"Regex": r"\w+|\W"})]),
        ("split_not_space_class", "llama3",
         [rep(LLAMA3_SPLIT + "/pattern", {"Regex": r"[\s\d]+|\S"})]),
        ("split_hex_escape", "llama3", [rep(LLAMA3_SPLIT + "/pattern", {"Regex": r"\h+"})]),
        ("split_vertical_tab", "llama3", [rep(LLAMA3_SPLIT + "/pattern", {"Regex": r"\v|\n"})]),
        ("split_word_boundary", "llama3", [rep(LLAMA3_SPLIT + "/pattern", {"Regex": r"\b"})]),
        ("split_posix_class", "llama3",
         [rep(LLAMA3_SPLIT + "/pattern", {"Regex": r"[[:alpha:]]+"})]),
        ("split_bad_regex", "llama3", [rep(LLAMA3_SPLIT + "/pattern", {"Regex": "(unclosed"})]),
        ("split_bad_behavior", "llama3", [rep(LLAMA3_SPLIT + "/behavior", "Sideways")]),
        ("split_no_invert", "llama3", [rem(LLAMA3_SPLIT + "/invert")]),
        ("split_no_behavior", "llama3", [rem(LLAMA3_SPLIT + "/behavior")]),
        ("split_two_patterns", "llama3",
         [rep(LLAMA3_SPLIT + "/pattern", {"Regex": "a", "String": "b"})]),
        ("split_after_byte_level", "llama3",
         [add("/pre_tokenizer/pretokenizers/-", {"type": "Split", "pattern": {"String": "a"},
                                                 "behavior": "Isolated", "invert": False})]),
    ]
    for aps in [False, True]:
        for regex in [False, True]:
            v.append((f"byte_level_llama3_prefix{int(aps)}_regex{int(regex)}", "llama3",
                      [rep(BL + "/add_prefix_space", aps), rep(BL + "/use_regex", regex)]))
            v.append((f"byte_level_gpt2_prefix{int(aps)}_regex{int(regex)}", "gpt2",
                      [rep("/pre_tokenizer/add_prefix_space", aps),
                       rep("/pre_tokenizer/use_regex", regex)]))
    v += [
        ("byte_level_trim_offsets", "gpt2", [rep("/pre_tokenizer/trim_offsets", False)]),
        ("byte_level_no_use_regex", "gpt2", [rem("/pre_tokenizer/use_regex")]),
        ("byte_level_no_add_prefix_space", "gpt2", [rem("/pre_tokenizer/add_prefix_space")]),
        ("byte_level_no_trim_offsets", "gpt2", [rem("/pre_tokenizer/trim_offsets")]),
        ("byte_level_not_bool", "gpt2", [rep("/pre_tokenizer/add_prefix_space", "yes")]),
        ("pre_tokenizer_null", "gpt2", [rep("/pre_tokenizer", None)]),
    ]
    before_bl = "/pre_tokenizer/pretokenizers/1"
    for name, pre in [
            ("digits_individual", {"type": "Digits", "individual_digits": True}),
            ("digits_contiguous", {"type": "Digits", "individual_digits": False}),
            ("digits_no_field", {"type": "Digits"}),
            ("punctuation", {"type": "Punctuation"}),
            ("punctuation_removed", {"type": "Punctuation", "behavior": "Removed"}),
            ("punctuation_merged_next", {"type": "Punctuation", "behavior": "MergedWithNext"}),
            ("whitespace_split", {"type": "WhitespaceSplit"}),
            ("whitespace", {"type": "Whitespace"}),
            ("metaspace", {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always",
                           "split": True}),
            ("bert", {"type": "BertPreTokenizer"}),
            ("unicode_scripts", {"type": "UnicodeScripts"}),
            ("unknown_type", {"type": "Frobnicate"}),
            ("no_type", {"behavior": "Isolated"}),
            ("nested_sequence", {"type": "Sequence", "pretokenizers": [
                {"type": "Digits", "individual_digits": True}]})]:
        v.append(("pre_" + name, "llama3", [add(before_bl, pre)]))
    for name, norm in [
            ("nfc", {"type": "NFC"}), ("nfd", {"type": "NFD"}), ("nfkc", {"type": "NFKC"}),
            ("nfkd", {"type": "NFKD"}), ("lowercase", {"type": "Lowercase"}),
            ("prepend", {"type": "Prepend", "prepend": "▁"}),
            ("sequence", {"type": "Sequence", "normalizers": [{"type": "NFKD"},
                                                              {"type": "Lowercase"}]}),
            ("empty_sequence", {"type": "Sequence", "normalizers": []}),
            ("strip", {"type": "Strip", "strip_left": True, "strip_right": True}),
            ("strip_accents", {"type": "StripAccents"}),
            ("replace", {"type": "Replace", "pattern": {"String": " "}, "content": "_"}),
            ("replace_regex", {"type": "Replace", "pattern": {"Regex": r"\s*"}, "content": "|"}),
            ("replace_with_nothing", {"type": "Replace", "pattern": {"Regex": "[aeiou]+"},
                                      "content": ""}),
            ("strip_left", {"type": "Strip", "strip_left": True, "strip_right": False}),
            ("strip_no_field", {"type": "Strip", "strip_left": True}),
            ("nfd_strip_accents", {"type": "Sequence", "normalizers": [
                {"type": "NFD"}, {"type": "StripAccents"}]}),
            ("bert", {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True,
                      "strip_accents": None, "lowercase": True}),
            ("unknown_type", {"type": "Frobnicate"}),
            ("prepend_no_field", {"type": "Prepend"})]:
        v.append(("normalizer_" + name, "llama3", [rep("/normalizer", norm)]))
        v.append(("normalizer_" + name + "_qwen2", "qwen2", [rep("/normalizer", norm)]))
    for name, value in [("dropout_zero", 0.0), ("dropout_half", 0.5), ("dropout_one", 1.0),
                        ("dropout_above_one", 1.5)]:
        v.append(("model_" + name, "gpt2", [rep("/model/dropout", value)]))
    v += [
        ("model_ignore_merges_off", "llama3", [rep("/model/ignore_merges", False)]),
        ("model_ignore_merges_on", "gpt2", [rep("/model/ignore_merges", True)]),
        ("model_prefix_empty", "gpt2", [rep("/model/continuing_subword_prefix", "")]),
        ("model_prefix", "gpt2", [rep("/model/continuing_subword_prefix", "##")]),
        ("model_suffix", "gpt2", [rep("/model/end_of_word_suffix", "</w>")]),
        ("model_unk_not_in_vocab", "gpt2", [rep("/model/unk_token", "<unk>")]),
        ("model_unk_in_vocab", "gpt2", [rep("/model/unk_token", "<|endoftext|>")]),
        ("model_byte_fallback_unused", "gpt2", [rep("/model/byte_fallback", True)]),
        ("model_type_wordpiece", "gpt2", [rep("/model/type", "WordPiece")]),
        ("model_no_type", "gpt2", [rem("/model/type")]),
        ("model_no_merges", "gpt2", [rem("/model/merges")]),
        ("model_vocab_id_twice", "gpt2", [add("/model/vocab/zzq", 70)]),
        ("model_vocab_id_gap", "gpt2", [add("/model/vocab/zzq", 900)]),
        ("model_mixed_merges", "llama3", [rep("/model/merges/1", "a b")]),
        ("model_merge_not_in_vocab", "gpt2", [rep("/model/merges/3", "Ġnotatoken Ġeither")]),
    ]
    # Bytes without entries: the emoji lead byte (ð, U+00F0, UTF-8 C3 B0) and 'Ł' (0xF0's
    # neighbour in the alphabet, U+0141, UTF-8 C5 81), so unk_token, fuse_unk and
    # byte_fallback decide.
    gone = ["ð", "Ł"]
    ops, _ = byte_removal_patch(bases["gpt2"], gone)
    ops_fb, _ = byte_removal_patch(bases["gpt2"], gone, ["<0xC3>", "<0xB0>", "<0xC5>"])
    ops_fb_all, _ = byte_removal_patch(bases["gpt2"], gone,
                                       ["<0xC3>", "<0xB0>", "<0xC5>", "<0x81>"])
    v += [
        ("bytes_missing_dropped", "gpt2", ops),
        ("bytes_missing_unk", "gpt2", ops + [rep("/model/unk_token", "<|endoftext|>")]),
        ("bytes_missing_unk_fused", "gpt2", ops + [rep("/model/unk_token", "<|endoftext|>"),
                                                   rep("/model/fuse_unk", True)]),
        ("bytes_missing_unk_is_a_byte", "gpt2", ops + [rep("/model/unk_token", "a"),
                                                       rep("/model/fuse_unk", True)]),
        ("bytes_missing_fallback_partial", "gpt2",
         ops_fb + [rep("/model/byte_fallback", True), rep("/model/unk_token", "<|endoftext|>")]),
        ("bytes_missing_fallback_partial_fused", "gpt2",
         ops_fb + [rep("/model/byte_fallback", True), rep("/model/unk_token", "<|endoftext|>"),
                   rep("/model/fuse_unk", True)]),
        ("bytes_missing_fallback", "gpt2", ops_fb_all + [rep("/model/byte_fallback", True)]),
        ("bytes_missing_fallback_off", "gpt2", ops_fb_all),
    ]
    eot = "/added_tokens/4"
    for flag in ["single_word", "lstrip", "rstrip", "normalized", "special"]:
        v.append((f"added_{flag}_flipped", "llama3",
                  [rep(f"{eot}/{flag}", not bases["llama3"]["added_tokens"][4][flag])]))
        v.append((f"added_{flag}_missing", "llama3", [rem(f"{eot}/{flag}")]))
    vocab = bases["llama3"]["model"]["vocab"]
    n = len(vocab)

    def hf_id(content, k=0):  # what the library assigns: the vocabulary id, else after it
        return vocab.get(content, n + k)

    v += [
        ("added_lstrip_rstrip", "llama3", [rep(f"{eot}/lstrip", True), rep(f"{eot}/rstrip", True)]),
        ("added_single_word_ab", "llama3",
         [add("/added_tokens/-", added_token(hf_id("ab"), "ab", single_word=True))]),
        ("added_single_word_strip", "llama3",
         [add("/added_tokens/-", added_token(hf_id("ab"), "ab", single_word=True, lstrip=True,
                                             rstrip=True))]),
        ("added_normalized_lowercase", "llama3",
         [rep("/normalizer", {"type": "Lowercase"}),
          add("/added_tokens/-", added_token(hf_id("HELLO"), "HELLO", normalized=True))]),
        ("added_normalized_nfd", "qwen2", [rep("/normalizer", {"type": "NFD"})]),
        ("added_space_first_rstrip", "llama3",
         [rep(f"{eot}/rstrip", True), add("/added_tokens/-", added_token(hf_id(" y"), " y"))]),
        ("added_overlapping", "llama3",
         [add("/added_tokens/-", added_token(hf_id("<|eot"), "<|eot")),
          add("/added_tokens/-", added_token(hf_id("id|>b", 1), "id|>b"))]),
        ("added_wrong_id", "llama3", [rep(f"{eot}/id", 3)]),
        ("added_new_wrong_id", "llama3", [add("/added_tokens/-", added_token(n + 5, "zzq"))]),
        ("added_duplicate", "llama3", [add("/added_tokens/-", bases["llama3"]["added_tokens"][4])]),
        ("added_empty_content", "llama3", [rep("/added_tokens/0/content", "")]),
        ("added_not_bool", "llama3", [rep(f"{eot}/lstrip", 1)]),
    ]
    v += [
        ("template_no_text", "llama3", [rep(TEMPLATE + "/single", [BOS])]),
        ("template_text_twice", "llama3", [rep(TEMPLATE + "/single", [SEQ_A, BOS, SEQ_A])]),
        ("template_text_only", "llama3", [rep(TEMPLATE + "/single", [SEQ_A])]),
        ("template_suffix", "llama3", [rep(TEMPLATE + "/single", [SEQ_A, BOS, BOS])]),
        ("template_b", "llama3",
         [rep(TEMPLATE + "/single", [BOS, {"Sequence": {"id": "B", "type_id": 0}}])]),
        ("template_unknown_special", "llama3",
         [rep(TEMPLATE + "/single", [{"SpecialToken": {"id": "<x>", "type_id": 0}}, SEQ_A])]),
        ("template_id_not_in_vocab", "llama3",
         [rep(TEMPLATE + "/special_tokens/<|begin_of_text|>/ids", [5000])]),
        ("template_two_ids", "llama3",
         [rep(TEMPLATE + "/special_tokens/<|begin_of_text|>/ids", [0, 4]),
          rep(TEMPLATE + "/special_tokens/<|begin_of_text|>/tokens",
              ["<|begin_of_text|>", "<|eot_id|>"])]),
        ("template_no_pair", "llama3", [rem(TEMPLATE + "/pair")]),
        ("template_string_piece", "llama3", [rep(TEMPLATE + "/single", ["$A"])]),
        ("template_twice", "llama3",
         [add("/post_processor/processors/-", bases["llama3"]["post_processor"]["processors"][1])]),
        ("template_alone", "llama3", [rep("/post_processor",
                                          bases["llama3"]["post_processor"]["processors"][1])]),
        ("post_null", "llama3", [rep("/post_processor", None)]),
        ("post_roberta", "gpt2", [rep("/post_processor", {
            "type": "RobertaProcessing", "sep": ["<|endoftext|>", 0], "cls": ["<|endoftext|>", 0],
            "trim_offsets": True, "add_prefix_space": True})]),
        ("post_bert", "gpt2", [rep("/post_processor", {
            "type": "BertProcessing", "sep": ["<|endoftext|>", 0], "cls": ["<|endoftext|>", 0]})]),
        ("post_unknown_type", "gpt2", [rep("/post_processor", {"type": "Frobnicate"})]),
        ("post_byte_level_no_fields", "gpt2", [rep("/post_processor", {"type": "ByteLevel"})]),
        ("decoder_null", "gpt2", [rep("/decoder", None)]),
        ("decoder_unknown_type", "gpt2", [rep("/decoder", {"type": "Frobnicate"})]),
        ("decoder_no_fields", "gpt2", [rep("/decoder", {"type": "ByteLevel"})]),
        ("decoder_sequence", "gpt2", [rep("/decoder", {"type": "Sequence", "decoders": [
            bases["gpt2"]["decoder"]]})]),
        ("decoder_fuse", "gpt2", [rep("/decoder", {"type": "Fuse"})]),
        ("version_2", "gpt2", [rep("/version", "2.0")]),
        ("root_unknown_key", "gpt2", [add("/vocab_size", 700)]),
        ("truncation", "gpt2", [rep("/truncation", {"max_length": 3, "strategy": "LongestFirst",
                                                    "stride": 0, "direction": "Right"})]),
        ("padding", "gpt2", [rep("/padding", {
            "strategy": {"Fixed": 40}, "direction": "Right", "pad_to_multiple_of": None,
            "pad_id": 0, "pad_type_id": 0, "pad_token": "<|endoftext|>"})]),
        ("unmodified_gpt2", "gpt2", []),
        ("unmodified_llama3", "llama3", []),
        ("unmodified_qwen2", "qwen2", []),
    ]
    return v


# The library's answer for these changes from run to run: BPE dropout draws random numbers, and
# an id listed under two spellings decodes to whichever its hash map yields first.
NONDETERMINISTIC = {"model_dropout_half", "model_vocab_id_twice"}


def hf_expect(doc):
    try:
        tok = Tokenizer.from_str(json.dumps(doc))
    except BaseException:  # noqa: BLE001 (a Rust panic is a BaseException)
        return "refused"
    out = []
    for text in TEXTS:
        try:
            ids = tok.encode(text, add_special_tokens=False).ids
            out.append({"ids": ids,
                        "ids_with_special": tok.encode(text, add_special_tokens=True).ids,
                        "decoded": tok.decode(ids, skip_special_tokens=False)})
        except BaseException:  # noqa: BLE001
            out.append("refused")
    return out


def sp_variants():
    """(name, base, change(model_proto))."""
    N = sp_pb2.ModelProto.SentencePiece

    def set_type(from_end, kind):  # a learned piece near the end (not a byte or a control)
        return lambda m: m.pieces[len(m.pieces) - from_end].__setattr__("type", kind)

    def field(part, name, value):
        return lambda m: getattr(m, part).__setattr__(name, value)

    v = []
    for base in ["sp_bpe", "sp_unigram"]:
        v += [
            (base + "_unmodified", base, lambda m: None),
            (base + "_no_dummy_prefix", base, field("normalizer_spec", "add_dummy_prefix", False)),
            (base + "_keep_extra_spaces", base,
             field("normalizer_spec", "remove_extra_whitespaces", False)),
            (base + "_remove_extra_spaces", base,
             field("normalizer_spec", "remove_extra_whitespaces", True)),
            (base + "_no_escape", base, field("normalizer_spec", "escape_whitespaces", False)),
            (base + "_byte_fallback_flipped", base,
             lambda m: m.trainer_spec.__setattr__("byte_fallback", not m.trainer_spec.byte_fallback)),
            (base + "_suffix_whitespace", base,
             field("trainer_spec", "treat_whitespace_as_suffix", True)),
            (base + "_piece_control", base, set_type(5, N.CONTROL)),
            (base + "_piece_unused", base, set_type(5, N.UNUSED)),
            (base + "_piece_user_defined", base, set_type(7, N.USER_DEFINED)),
            (base + "_no_bos", base, field("trainer_spec", "bos_id", -1)),
        ]
    return v


def sp_expect(blob):
    try:
        sp = spm.SentencePieceProcessor(model_proto=blob)
    except BaseException:  # noqa: BLE001
        return "refused"
    out = []
    for text in TEXTS:
        try:
            ids = sp.encode(text)
            out.append({"ids": ids, "ids_with_special": sp.encode(text, add_bos=True),
                        "decoded": sp.decode(ids)})
        except BaseException:  # noqa: BLE001
            out.append("refused")
    return out


def tiny(base, n_merges=40):
    """`base` cut to its byte alphabet, its added tokens and its first merges (a few KB)."""
    vocab = base["model"]["vocab"]
    merges = base["model"]["merges"][:n_merges]
    keep = ({t for t in vocab if len(t) == 1} | {t["content"] for t in base["added_tokens"]} |
            {a + b for a, b in merges})
    new = {t: i for i, t in enumerate(sorted(keep, key=vocab.get))}
    old_to_new = {vocab[t]: i for t, i in new.items()}
    doc = copy.deepcopy(base)
    doc["model"]["vocab"] = new
    doc["model"]["merges"] = merges
    for t in doc["added_tokens"]:
        t["id"] = new[t["content"]]
    for special in doc["post_processor"]["processors"][1]["special_tokens"].values():
        special["ids"] = [old_to_new[i] for i in special["ids"]]
    return doc


def write_fuzz_seeds(bases, variants, sp_blobs):
    for target in ["tokenizer_json", "tokenizer_model"]:
        shutil.rmtree(os.path.join(FUZZ, target), ignore_errors=True)
        os.makedirs(os.path.join(FUZZ, target))
    small = tiny(bases["llama3"])
    by_name = {name: patch for name, _, patch in variants}
    for name in SEED_VARIANTS:
        doc = patch_apply(small, by_name[name])
        vocab, fresh = doc["model"]["vocab"], len(doc["model"]["vocab"])
        for t in doc["added_tokens"]:  # the ids the library assigns in the smaller vocabulary
            if t["content"] not in vocab:
                t["id"], fresh = fresh, fresh + 1
        with open(os.path.join(FUZZ, "tokenizer_json", name + ".json"), "w", encoding="utf-8") as f:
            json.dump(doc, f, ensure_ascii=False)
    for name, blob in sp_blobs:
        if name.endswith(("_unmodified", "_no_dummy_prefix", "_piece_user_defined", "_no_bos")):
            with open(os.path.join(FUZZ, "tokenizer_model", name + ".model"), "wb") as f:
                f.write(blob)


def main():
    shutil.rmtree(OUT, ignore_errors=True)
    os.makedirs(os.path.join(OUT, "sp"))
    bases = {}
    for name in ["gpt2", "llama3", "qwen2"]:
        with open(os.path.join(BASES, name, "tokenizer.json"), encoding="utf-8") as f:
            bases[name] = json.load(f)
    corpus = {"texts": TEXTS, "json_variants": [], "sp_variants": []}
    variants = json_variants(bases)
    sp_blobs = []
    for name, base, patch in variants:
        doc = patch_apply(bases[base], patch)
        hf = "nondeterministic" if name in NONDETERMINISTIC else hf_expect(doc)
        corpus["json_variants"].append({"name": name, "base": base, "patch": patch, "hf": hf})
    for name, base, change in sp_variants():
        model = sp_pb2.ModelProto()
        with open(os.path.join(BASES, base, "tokenizer.model"), "rb") as f:
            model.ParseFromString(f.read())
        change(model)
        blob = model.SerializeToString()
        file = f"sp/{name}.model"
        with open(os.path.join(OUT, file), "wb") as f:
            f.write(blob)
        corpus["sp_variants"].append({"name": name, "file": file, "sp": sp_expect(blob)})
        sp_blobs.append((name, blob))
    write_fuzz_seeds(bases, variants, sp_blobs)
    with open(os.path.join(OUT, "diff.json"), "w", encoding="utf-8") as f:
        json.dump(corpus, f, ensure_ascii=False, separators=(",", ":"))
        f.write("\n")
    refused = sum(v["hf"] == "refused" for v in corpus["json_variants"])
    print(f"{len(corpus['json_variants'])} tokenizer.json variants ({refused} refused by "
          f"tokenizers), {len(corpus['sp_variants'])} SentencePiece variants, {len(TEXTS)} texts")


if __name__ == "__main__":
    main()
