#!/usr/bin/env python3
"""Generate importer/aten_schemas.inc: the ATen operator schema table.

The importer uses this table to fill in arguments that torch.export omits from a
serialized node because they equal their schema default, and to know argument
names, kinds, positions and return types.

Run with the PyTorch virtualenv (see tests/data/requirements.txt for the pin):

    ~/.venvs/torch/bin/python importer/gen_aten_schemas.py

Every schema comes from torch itself (torch._C._jit_get_all_schemas()). Kept:
namespace `aten` only; dropped: out= variants (any argument marked is_out),
`_foreach_*` and `*_backward*` ops. Each output line is a C++ initializer

    {"aten::add.Tensor", R"json({...})json"},

where the key is "aten::<name>" plus ".<overload>" unless the overload name is
empty (torch's `.default`). The JSON object is

    {"args": [{"name", "type", "kwarg_only", "has_default", "default"?, "N"?,
               "alias"?}, ...],
     "returns": ["Tensor", ...]}

* type: the declared schema type written in torch's Python-typing style, e.g.
  "Tensor", "Optional[Tensor]", "List[SymInt]", "Scalar", "Optional[ScalarType]",
  "List[Optional[Tensor]]" (checked against str(arg.real_type), which spells
  SymInt as int and Scalar as number; exotic TorchScript types fall back to it).
* N: fixed length of an int list (`int[2] stride=1`); a scalar default for such
  an argument has already been expanded by torch (e.g. [1, 1]).
* default: JSON value (null, bool, int, float written with a dot, list, string).
  ScalarType / MemoryFormat / Layout defaults are stored by torch as c10 enum
  integers; they are emitted as the str() of the torch object ("torch.int64",
  "torch.contiguous_format", "torch.strided") because c10 numbering differs from
  the export schema's numbering.
* alias: true on arguments annotated as written (Tensor(a!)).
"""

import json
import math
import os
import re
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "aten_schemas.inc")

# c10 enum integers -> torch objects (c10/core/ScalarType.h, MemoryFormat.h, Layout.h).
C10_SCALAR_TYPES = [
    torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64, torch.float16,
    torch.float32, torch.float64, torch.complex32, torch.complex64, torch.complex128,
    torch.bool,
]
C10_MEMORY_FORMATS = [torch.contiguous_format, torch.preserve_format,
                      torch.channels_last, torch.channels_last_3d]
C10_LAYOUTS = [torch.strided, torch.sparse_coo]
ENUM_TABLES = {"ScalarType": C10_SCALAR_TYPES, "MemoryFormat": C10_MEMORY_FORMATS,
               "Layout": C10_LAYOUTS}

DECL_RE = re.compile(r"^([A-Za-z_]\w*)((?:\?|\[\d*\])*)$")


def split_top(text):
    """Split at commas that are outside (), [] and quotes."""
    parts, depth, quote, cur = [], 0, None, []
    for ch in text:
        if quote:
            cur.append(ch)
            if ch == quote:
                quote = None
            continue
        if ch in "'\"":
            quote = ch
        elif ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append("".join(cur).strip())
            cur = []
            continue
        cur.append(ch)
    if "".join(cur).strip():
        parts.append("".join(cur).strip())
    return parts


def strip_alias(decl):
    return re.sub(r"\([^()]*\)", "", decl).strip()


def declared_type(decl):
    """'SymInt[2]?' -> ('Optional[List[SymInt]]', 2); None if not parseable."""
    m = DECL_RE.match(strip_alias(decl))
    if not m:
        return None, None
    t, n = m.group(1), None
    for suf in re.findall(r"\?|\[\d*\]", m.group(2)):
        if suf == "?":
            t = f"Optional[{t}]"
        else:
            t = f"List[{t}]"
            if len(suf) > 2:
                n = int(suf[1:-1])
    return t, n


def jit_spelling(t):
    for decl, jit in (("SymInt", "int"), ("SymFloat", "float"), ("SymBool", "bool"),
                      ("Scalar", "number")):
        t = re.sub(rf"\b{decl}\b", jit, t)
    return t


def pick_type(decl, real_type, stats):
    t, _ = declared_type(decl) if decl is not None else (None, None)
    if t is not None and jit_spelling(t) == real_type:
        return t
    stats["type_fallback"] += 1
    return real_type


def split_schema(text):
    """'aten::f.o(args) -> rets' -> (arg strings, return strings)."""
    start = text.index("(")
    depth = 0
    for i in range(start, len(text)):
        depth += text[i] == "("
        depth -= text[i] == ")"
        if depth == 0:
            break
    args = [a for a in split_top(text[start + 1:i]) if a != "*"]
    rets = text[i + 1:].strip()
    assert rets.startswith("->"), text
    rets = rets[2:].strip()
    if rets.startswith("(") and rets.endswith(")") and not DECL_RE.match(strip_alias(rets)):
        rets = split_top(rets[1:-1])
    else:
        rets = [rets] if rets else []
    return args, rets


def json_default(value, type_str, op_key, stats):
    base = re.sub(r"^Optional\[(.*)\]$", r"\1", type_str)
    if value is None or isinstance(value, bool):
        return value
    if base in ENUM_TABLES:
        assert isinstance(value, int), (op_key, value)
        stats["enum_defaults"] += 1
        return str(ENUM_TABLES[base][value])
    if isinstance(value, float):
        if not math.isfinite(value):
            stats["nonfinite_defaults"] += 1
            return "inf" if value > 0 else ("-inf" if value < 0 else "nan")
        return value
    if isinstance(value, (int, str)):
        return value
    if isinstance(value, (list, tuple)):
        return [json_default(v, base[5:-1] if base.startswith("List[") else base, op_key, stats)
                for v in value]
    if isinstance(value, torch.device):
        return str(value)
    raise TypeError(f"{op_key}: unsupported default {value!r} ({type(value).__name__})")


def encode(schema, stats):
    text = str(schema)
    arg_decls, ret_decls = split_schema(text)
    if len(arg_decls) != len(schema.arguments):
        arg_decls = [None] * len(schema.arguments)
        stats["unparsed_schema"] += 1
    key = schema.name + ("." + schema.overload_name if schema.overload_name else "")
    args = []
    for a, decl in zip(schema.arguments, arg_decls):
        tdecl = None
        if decl is not None:
            m = re.match(rf"^(.*\S)\s+{re.escape(a.name)}(=.*)?$", decl)
            tdecl = m.group(1) if m else None
        t = pick_type(tdecl, str(a.real_type), stats)
        e = {"name": a.name, "type": t, "kwarg_only": bool(a.kwarg_only),
             "has_default": bool(a.has_default_value())}
        if a.has_default_value():
            e["default"] = json_default(a.default_value, t, key, stats)
        if a.N is not None:
            e["N"] = a.N
        if a.alias_info is not None and a.alias_info.is_write:
            e["alias"] = True
        args.append(e)
    returns = []
    if len(ret_decls) != len(schema.returns):
        ret_decls = [None] * len(schema.returns)
    for r, decl in zip(schema.returns, ret_decls):
        tdecl = None
        if decl is not None:
            tdecl = decl.rsplit(" ", 1)[0] if r.name and decl.endswith(" " + r.name) else decl
        returns.append(pick_type(tdecl, str(r.real_type), stats))
    return key, {"args": args, "returns": returns}


def keep(schema):
    if not schema.name.startswith("aten::"):
        return False
    name = schema.name[len("aten::"):]
    if name.startswith("_foreach_") or "_backward" in name:
        return False
    return not any(a.is_out for a in schema.arguments)


def main():
    stats = {"type_fallback": 0, "unparsed_schema": 0, "enum_defaults": 0,
             "nonfinite_defaults": 0}
    table = {}
    for schema in torch._C._jit_get_all_schemas():
        if not keep(schema):
            continue
        key, entry = encode(schema, stats)
        assert key not in table, f"duplicate key {key}"
        body = json.dumps(entry, separators=(",", ":"), allow_nan=False)
        assert ")json\"" not in body, key
        table[key] = body
    lines = [
        f"// Generated by importer/gen_aten_schemas.py from torch {torch.__version__}"
        " (torch._C._jit_get_all_schemas()).",
        "// DO NOT EDIT. Regenerate with: ~/.venvs/torch/bin/python importer/gen_aten_schemas.py",
        f"// {len(table)} aten overloads (out= variants, _foreach_* and *_backward* dropped).",
        "// Each line: {\"aten::<name>[.<overload>]\", R\"json({\"args\":[...],\"returns\":[...]})json\"},",
    ]
    lines += [f'{{"{k}", R"json({table[k]})json"}},' for k in sorted(table)]
    with open(OUT, "w", encoding="utf-8", newline="\n") as f:
        f.write("\n".join(lines) + "\n")
    size = os.path.getsize(OUT)
    print(f"wrote {OUT}: {len(table)} overloads, {size} bytes; stats {stats}", file=sys.stderr)


if __name__ == "__main__":
    main()
