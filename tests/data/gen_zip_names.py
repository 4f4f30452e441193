"""Archives whose entry names two zip readers could resolve differently, made from the real
mlp fixture (fixtures/mlp/training/program.pt2, written by torch.export.save) with Python's
zipfile. torch.export.load reads the first of two entries with one name (miniz also matches
names without regard to case); a reader that takes the last one would run other weights
than torch. tir refuses each with one error naming the entry.

    python3 tests/data/gen_zip_names.py      (needs only the standard library)

Writes fixtures/zip_names/*.pt2 and fuzz/regressions/pt2/duplicate_weight.pt2.
"""
import os
import shutil
import warnings
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "fixtures", "mlp", "training", "program.pt2")
OUT = os.path.join(HERE, "fixtures", "zip_names")
REGRESSIONS = os.path.join(HERE, "..", "..", "fuzz", "regressions", "pt2")
WEIGHT = "program/data/weights/weight_0"


def members():
    with zipfile.ZipFile(SRC) as z:
        return [(i.filename, z.read(i)) for i in z.infolist()]


def write(name, entries):
    path = os.path.join(OUT, name)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
        for filename, data in entries:
            z.writestr(zipfile.ZipInfo(filename, date_time=(2024, 1, 1, 0, 0, 0)), data)
    return path


def with_extra(extra_name, data_of=lambda d: bytes(reversed(d))):
    """The archive plus one more entry named `extra_name` carrying other bytes of weight_0."""
    out = members()
    weight = dict(out)[WEIGHT]
    return out + [(extra_name, data_of(weight))]


def main():
    warnings.simplefilter("ignore")  # zipfile warns of the duplicate it is asked to write
    if os.path.isdir(OUT):
        shutil.rmtree(OUT)
    os.makedirs(OUT)
    made = [
        # The same name twice (the second entry with other bytes).
        write("duplicate_weight.pt2", with_extra(WEIGHT)),
        # Names equal to a case-insensitive reader (miniz, Windows, macOS file systems).
        write("case_twin.pt2", with_extra(WEIGHT.replace("weights", "Weights"))),
        # Names equal once "./" and repeated slashes are resolved.
        write("dot_segment.pt2", with_extra(WEIGHT.replace("data/", "data/./"))),
        write("double_slash.pt2", with_extra(WEIGHT.replace("data/", "data//"))),
        # A folder entry named like a member.
        write("trailing_slash.pt2", with_extra(WEIGHT + "/", lambda d: b"")),
        # A backslash, which Windows tools read as a folder separator.
        write("backslash.pt2", with_extra(WEIGHT.replace("data/weights", "data\\weights"))),
    ]
    # The local header of weight_0 names another entry than the central directory does.
    path = os.path.join(OUT, "local_header_name.pt2")
    with open(SRC, "rb") as f:
        raw = bytearray(f.read())
    at = raw.find(b"PK\x03\x04")
    while at >= 0:
        name_len = int.from_bytes(raw[at + 26:at + 28], "little")
        name = raw[at + 30:at + 30 + name_len]
        if name == WEIGHT.encode():
            raw[at + 30:at + 30 + name_len] = WEIGHT.replace("weight_0", "weight_9").encode()
            break
        at = raw.find(b"PK\x03\x04", at + 4)
    with open(path, "wb") as f:
        f.write(raw)
    made.append(path)
    os.makedirs(REGRESSIONS, exist_ok=True)
    shutil.copy(made[0], os.path.join(REGRESSIONS, "duplicate_weight.pt2"))
    for p in made:
        print(os.path.relpath(p, HERE), os.path.getsize(p), "bytes")


if __name__ == "__main__":
    main()
