#!/usr/bin/env python3
"""Generate the tokenizer fixtures in tests/data/fixtures/tokenizers/ with the reference libraries.

    ~/.venvs/torch/bin/python tests/data/gen_tokenizers.py   (needs tokenizers, sentencepiece)

No model hub: every tokenizer is trained here on a small corpus this script writes (accents,
CJK, emoji, RTL, combining marks, whitespace runs, digits, contractions, code).
    gpt2/tokenizer.json       byte-level BPE, ByteLevel pre-tokenizer (GPT-2's regex), merges
                              written as "a b" strings (the older format)
    llama3/tokenizer.json     Split with Llama 3's regex + ByteLevel(use_regex=False),
                              ignore_merges, special added tokens, a TemplateProcessing
                              post-processor adding <|begin_of_text|>; merges as [a, b] pairs
    llama3/tokenizer_config.json  bos_token / eos_token, as Hugging Face repositories have
    qwen2/tokenizer.json      NFC normalizer, Qwen2's regex, special and non-special added tokens
    sp_bpe/tokenizer.model    SentencePiece BPE with byte_fallback (Llama 2 style: identity
                              normalization, user-defined symbols)
    sp_unigram/tokenizer.model  SentencePiece unigram (identity normalization: NFKC's table
                              alone is 240 KB), extra whitespace removed
    reference.json            per tokenizer: bos/eos ids, vocabulary size, and for every test string the
                              reference ids (with and without special tokens) and decodes;
                              plus decodes of random id sequences (invalid UTF-8 included)
Deterministic; rebuilds the folder.
"""

import json
import os
import random
import shutil

import sentencepiece as spm
from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, normalizers
from tokenizers import pre_tokenizers, processors, trainers

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "tokenizers")
VOCAB = 700

LLAMA3_PATTERN = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}|"
                  r" ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+")
QWEN2_PATTERN = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}|"
                 r" ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+")
LLAMA3_SPECIAL = ["<|begin_of_text|>", "<|end_of_text|>", "<|start_header_id|>",
                  "<|end_header_id|>", "<|eot_id|>"]

# Test strings: each tokenizer encodes all of them (and the random ones below).
CASES = [
    "", " ", "  ", "\n", "Hello world", " Hello world ", "Hello   world\t\tand\n\n\nmore",
    "I'm sure they'll say we've done it, don't you? IT'S FINE, I'LL GO.",
    "Numbers: 1 12 123 1234 12345 3.14159 1,000,000 2024-06-01",
    "def f(x):\n    return x ** 2  # square\n\n\tif x != 0: print(f'{x!r}')",
    "café naïve résumé Ångström façade", "e\u0301 a\u0300 n\u0303 (combining marks)",
    "你好，世界！这是一个测试。", "日本語のテキストです", "한국어 텍스트", "Привет, мир",
    "مرحبا بالعالم", "שלום עולם", "नमस्ते दुनिया", "Γειά σου Κόσμε",
    "emoji 👍🏽 👨‍👩‍👧 🎉🎉 ❤️", "nbsp\u00a0here, ideographic\u3000space, zwj\u200dx",
    "trailing spaces   ", "   leading spaces", "\r\nwindows\r\nlines\r\n", "a\u2028b",
    "<|begin_of_text|>Hi there<|eot_id|>", "<|start_header_id|>user<|end_header_id|>\n\nHey",
    "text <|eot_id|> with <|eot_id|><|eot_id|> specials", "<|eot_id", "<|eot_id|",
    "<|endoftext|>after", "before<|endoftext|>", "<|im_start|>system\nYou are<|im_end|>",
    "<think>reasoning</think> answer", "x<think>y",
    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "\U0001F600" * 5, "\t \t \n \n",
    "Mixed 中文 and English, 123 и русский.", "ſ ﬁ ① ㈱ Ｆｕｌｌｗｉｄｔｈ",
    "\u0000null\u0001ctrl", "¿Qué? ¡Sí!", "don't  DON'T  Don'T",
]

LINES = [
    "The quick brown fox jumps over the lazy dog.", "I'm here, you're there, they've gone.",
    "café au lait, crème brûlée, jalapeño, naïve", "你好世界，今天天气很好。我们去公园吧。",
    "東京は日本の首都です。", "서울은 한국의 수도입니다.", "Москва — столица России.",
    "القاهرة عاصمة مصر", "ירושלים היא עיר", "दिल्ली भारत की राजधानी है", "Αθήνα είναι η πρωτεύουσα",
    "for (int i = 0; i < n; ++i) { sum += a[i]; }", "    return self.weight @ x + self.bias",
    "Prices: $3.50, €12, ¥1000, 42%, 1,234,567.89", "emoji time 😀😃😄 👍🏽 🚀✨",
    "\tindented\twith\ttabs", "multiple    spaces     here", "line one\nline two\n\nline four",
    "We'll see what they'd do if it's done.", "e\u0301te\u0301 combining, Ω ≈ ∑ ∫ √",
]


def write_corpus(path):
    """Training text: LINES only, so that the test strings are partly unseen. (With the test
    strings in it, unigram learned pieces of runs of one emoji whose segmentations tie, and
    Debian's libsentencepiece 0.1.97 breaks that tie otherwise than the pip package 0.2.)"""
    rng = random.Random(0)
    with open(path, "w", encoding="utf-8") as f:
        for _ in range(3000):
            f.write(" ".join(rng.choice(LINES) for _ in range(rng.randint(1, 3))) + "\n")
        words = " ".join(LINES).split(" ")
        for _ in range(3000):  # the same words in new orders, for the unigram's sake
            f.write(" ".join(rng.choice(words) for _ in range(rng.randint(1, 12))) + "\n")


def random_strings(n):
    """Strings mixing characters of every script and whitespace kind the cases use."""
    rng = random.Random(1)
    pool = sorted(set("".join(CASES + LINES)) | set(" \t\n\r\u00a0\u3000"))
    words = ["<|eot_id|>", "<|endoftext|>", "<think>", "'s", "'LL", "   ", "\n\n"]
    out = []
    for _ in range(n):
        parts = [rng.choice(words) if rng.random() < 0.08 else rng.choice(pool)
                 for _ in range(rng.randint(1, 40))]
        out.append("".join(parts))
    return out


def bpe_tokenizer(pre_tokenizer, normalizer=None, ignore_merges=False):
    tok = Tokenizer(models.BPE(ignore_merges=ignore_merges))
    if normalizer is not None:
        tok.normalizer = normalizer
    tok.pre_tokenizer = pre_tokenizer
    tok.decoder = decoders.ByteLevel()
    return tok


def train_bpe(tok, corpus, special):
    trainer = trainers.BpeTrainer(vocab_size=VOCAB, special_tokens=special, show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train([corpus], trainer)


def make_gpt2(corpus):
    tok = bpe_tokenizer(pre_tokenizers.ByteLevel(add_prefix_space=False))
    train_bpe(tok, corpus, ["<|endoftext|>"])
    tok.post_processor = processors.ByteLevel(trim_offsets=False)
    path = os.path.join(ROOT, "gpt2", "tokenizer.json")
    tok.save(path)
    # GPT-2's own file (and older exports) write each merge as one "a b" string.
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    data["model"]["merges"] = [" ".join(m) for m in data["model"]["merges"]]
    with open(path, "w", encoding="utf-8") as f:
        json.dump(data, f, ensure_ascii=False)
    return Tokenizer.from_file(path), None, None


def make_llama3(corpus):
    pre = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(LLAMA3_PATTERN), behavior="isolated", invert=False),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])
    tok = bpe_tokenizer(pre, ignore_merges=True)
    train_bpe(tok, corpus, LLAMA3_SPECIAL)
    bos = tok.token_to_id("<|begin_of_text|>")
    tok.post_processor = processors.Sequence([
        processors.ByteLevel(trim_offsets=False),
        processors.TemplateProcessing(
            single="<|begin_of_text|> $A", pair="<|begin_of_text|> $A <|begin_of_text|> $B:1",
            special_tokens=[("<|begin_of_text|>", bos)])])
    folder = os.path.join(ROOT, "llama3")
    tok.save(os.path.join(folder, "tokenizer.json"))
    with open(os.path.join(folder, "tokenizer_config.json"), "w") as f:
        json.dump({"bos_token": "<|begin_of_text|>", "eos_token": {"content": "<|eot_id|>"}}, f)
    return tok, bos, tok.token_to_id("<|eot_id|>")


def make_qwen2(corpus):
    pre = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(QWEN2_PATTERN), behavior="isolated", invert=False),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])
    tok = bpe_tokenizer(pre, normalizer=normalizers.NFC())
    train_bpe(tok, corpus, ["<|endoftext|>", "<|im_start|>", "<|im_end|>"])
    tok.add_tokens([AddedToken("<think>", special=False, normalized=False),
                    AddedToken("</think>", special=False, normalized=False),
                    AddedToken("résumé", special=False, normalized=True)])
    tok.post_processor = processors.ByteLevel(trim_offsets=False)
    tok.save(os.path.join(ROOT, "qwen2", "tokenizer.json"))
    return tok, None, None


class SentencePieceReference:
    """The sentencepiece processor behind the interface the cases use (as tokenizers')."""

    def __init__(self, path):
        self.sp = spm.SentencePieceProcessor(model_file=path)

    def ids(self, text, special):
        return self.sp.encode(text, add_bos=special)

    def decode(self, ids, skip_special):
        return self.sp.decode(ids)


def make_sentencepiece(corpus, name, **options):
    prefix = os.path.join(ROOT, name, "tokenizer")
    spm.SentencePieceTrainer.train(input=corpus, model_prefix=prefix, vocab_size=VOCAB,
                                   character_coverage=1.0, num_threads=1, minloglevel=2,
                                   hard_vocab_limit=False,
                                   **options)
    os.remove(prefix + ".vocab")
    ref = SentencePieceReference(prefix + ".model")
    return ref, ref.sp.bos_id(), ref.sp.eos_id()


def hf_cases(tok, texts):
    cases = []
    for text in texts:
        ids = tok.encode(text, add_special_tokens=False).ids
        cases.append({"text": text, "ids": ids,
                      "ids_with_special": tok.encode(text, add_special_tokens=True).ids,
                      "decoded": tok.decode(ids, skip_special_tokens=False),
                      "decoded_skip_special": tok.decode(ids, skip_special_tokens=True)})
    return cases


def sp_cases(ref, texts):
    cases = []
    for text in texts:
        ids = ref.ids(text, False)
        cases.append({"text": text, "ids": ids, "ids_with_special": ref.ids(text, True),
                      "decoded": ref.decode(ids, False)})
    return cases


def random_decodes(decode, vocab_size, seed):
    rng = random.Random(seed)
    out = []
    for _ in range(25):
        ids = [rng.randrange(vocab_size) for _ in range(rng.randint(1, 12))]
        out.append({"ids": ids, "text": decode(ids)})
    return out


def main():
    shutil.rmtree(ROOT, ignore_errors=True)
    for name in ["gpt2", "llama3", "qwen2", "sp_bpe", "sp_unigram"]:
        os.makedirs(os.path.join(ROOT, name))
    corpus = os.path.join(ROOT, "corpus.txt")
    write_corpus(corpus)
    texts = CASES + random_strings(40)
    reference = {}
    for name, make, file in [("gpt2", make_gpt2, "gpt2/tokenizer.json"),
                             ("llama3", make_llama3, "llama3/tokenizer.json"),
                             ("qwen2", make_qwen2, "qwen2/tokenizer.json")]:
        tok, bos, eos = make(corpus)
        reference[name] = {
            "file": file, "bos": bos, "eos": eos, "vocab_size": tok.get_vocab_size(),
            "cases": hf_cases(tok, texts),
            "random_decodes": random_decodes(
                lambda ids: tok.decode(ids, skip_special_tokens=False), tok.get_vocab_size(), 2)}
    sp_options = {
        "sp_bpe": dict(model_type="bpe", byte_fallback=True, split_digits=True,
                       normalization_rule_name="identity", remove_extra_whitespaces=False,
                       allow_whitespace_only_pieces=True,
                       user_defined_symbols=["<|im_start|>", "<|im_end|>"]),
        "sp_unigram": dict(model_type="unigram", normalization_rule_name="identity"),
    }
    for name, options in sp_options.items():
        ref, bos, eos = make_sentencepiece(corpus, name, **options)
        reference[name] = {
            "file": name + "/tokenizer.model", "bos": bos, "eos": eos,
            "vocab_size": ref.sp.get_piece_size(),
            "cases": sp_cases(ref, texts),
            "random_decodes": random_decodes(lambda ids: ref.decode(ids, False),
                                             ref.sp.get_piece_size(), 3)}
    os.remove(corpus)
    with open(os.path.join(ROOT, "reference.json"), "w", encoding="utf-8") as f:
        json.dump(reference, f, ensure_ascii=False, indent=None, separators=(",", ":"))
        f.write("\n")


if __name__ == "__main__":
    main()
