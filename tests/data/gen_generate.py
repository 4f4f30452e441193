#!/usr/bin/env python3
"""References for tir's generate loop (llm/): what transformers' sampling keeps, and a text
prompt generated end to end with a tokenizer.

    ~/.venvs/torch/bin/python tests/data/gen_generate.py

Writes tests/data/fixtures/llm/generate.json:
  sampling  logits (torch, seed 0, vocab 128), a history of token ids and sampling options;
            "probs" is the distribution transformers' generate() draws from: its own logits
            processors (GenerationMixin._get_logits_processor, in its order) then softmax.
  text      the GPT-2 family model of gen_llm.py with the byte-level BPE tokenizer of
            gen_tokenizers.py: a prompt whose ids fit the model's 128-token vocabulary, the
            ids `tokenizers` gives it, the 32 tokens greedy generate() picks and their text as
            `tokenizers` decodes it (special tokens skipped).
  nocache   the same GPT-2 exported without a cache (input_ids in, logits out; gpt2/nocache/
            forward.pt2, core IR), which a generate loop runs on the whole sequence each step,
            and the greedy tokens it picks for gen_llm.py's prompt (generate()'s tokens).
"""

import json
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from gen_llm import FAMILIES, MAX_CONTEXT, NEW_TOKENS, PROMPT, build_model, save  # noqa: E402

OUT = os.path.join(HERE, "fixtures", "llm", "generate.json")
TOKENIZER = os.path.join(HERE, "fixtures", "tokenizers", "gpt2", "tokenizer.json")
VOCAB = 128
HISTORY = [3, 17, 59, 5, 99, 23, 8, 61, 17, 59]  # 59: the largest logit
OPTIONS = [
    dict(temperature=0.7),
    dict(temperature=1.0, top_k=10),
    dict(temperature=0.9, top_p=0.8),
    dict(temperature=1.0, top_p=0.5, top_k=50),
    dict(temperature=1.2, top_k=20, top_p=0.9, repetition_penalty=1.3),
    dict(temperature=1.0, repetition_penalty=2.0),
]
# Candidates for the text prompt; the first whose ids all fit the vocabulary is used.
PROMPTS = ["tir!", "Hi,tir", "x=1;y=2", "ok:go", "a+b=c", "Q?"]


def processed_probs(model, logits, options):
    from transformers import GenerationConfig

    config = GenerationConfig(do_sample=True, top_k=options.get("top_k", 0),
                              top_p=options.get("top_p", 1.0),
                              temperature=options["temperature"],
                              repetition_penalty=options.get("repetition_penalty", 1.0))
    processors = model._get_logits_processor(generation_config=config,
                                             input_ids_seq_length=len(HISTORY),
                                             device="cpu", model_kwargs={})
    scores = processors(torch.tensor([HISTORY]), logits.clone()[None])
    return [type(p).__name__ for p in processors], torch.softmax(scores[0], -1)


def sampling_cases(model):
    torch.manual_seed(0)
    logits = torch.randn(VOCAB) * 3
    cases = []
    for options in OPTIONS:
        names, probs = processed_probs(model, logits, options)
        cases.append({"options": options, "processors": names,
                      "probs": [float(p) for p in probs]})
    return {"logits": [float(x) for x in logits], "history": HISTORY, "cases": cases}


def text_case(model):
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(TOKENIZER)
    for prompt in PROMPTS:
        ids = tok.encode(prompt).ids
        if ids and max(ids) < VOCAB:
            break
    else:
        sys.exit("no candidate prompt fits the vocabulary")
    t = torch.tensor([ids])
    out = model.generate(t, attention_mask=torch.ones_like(t), max_new_tokens=NEW_TOKENS,
                         min_new_tokens=NEW_TOKENS, do_sample=False,
                         cache_implementation="static", pad_token_id=0)
    new = out[0, len(ids):].tolist()
    return {"family": "gpt2", "tokenizer": "tokenizers/gpt2/tokenizer.json", "prompt": prompt,
            "prompt_ids": ids, "tokens": new,
            "text": tok.decode(new, skip_special_tokens=True)}


class NoCache(torch.nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, input_ids):
        return self.model(input_ids=input_ids, use_cache=False).logits


def nocache_case(model):
    seq = torch.export.Dim("seq", min=1, max=MAX_CONTEXT - 1)
    ep = torch.export.export(NoCache(model), (torch.tensor([PROMPT]),),
                             dynamic_shapes={"input_ids": {1: seq}}).run_decompositions()
    path = os.path.join(HERE, "fixtures", "llm", "gpt2", "nocache", "forward.pt2")
    save(ep, path)
    run = torch.export.load(path).module()
    ids = list(PROMPT)
    with torch.no_grad():
        for _ in range(NEW_TOKENS):
            ids.append(int(run(torch.tensor([ids]))[0, -1].argmax()))
    return {"family": "gpt2", "program": "gpt2/nocache/forward.pt2", "prompt": PROMPT,
            "tokens": ids[len(PROMPT):]}


def main():
    model = build_model(FAMILIES["gpt2"])
    out = {"torch_version": torch.__version__, "sampling": sampling_cases(model),
           "text": text_case(model), "nocache": nocache_case(model)}
    with open(OUT, "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    print("text", out["text"]["prompt"], out["text"]["prompt_ids"], file=sys.stderr)
    with open(os.path.join(HERE, "fixtures", "llm", "manifest.json")) as f:
        want = next(e["tokens"] for e in json.load(f)["families"] if e["family"] == "gpt2")
    if out["nocache"]["tokens"] != want:
        sys.exit(f"the program without a cache picks {out['nocache']['tokens']}, generate() {want}")
    for c in out["sampling"]["cases"]:
        print(c["options"], c["processors"], file=sys.stderr)


if __name__ == "__main__":
    main()
