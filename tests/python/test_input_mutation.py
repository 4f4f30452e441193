"""Programs that write their own inputs (torch's user_input_mutation; fixtures/arch_mutation,
tests/data/gen_arch_mutation.py) from Python and tirrun: each call writes the new value into
the array passed, as torch's eager module writes its tensor, so the next call sees it; a copy
NumPy had to make (a non-contiguous array) is written back; an array NumPy will not let us
write is refused before the run; tirrun saves what the program wrote as input_<k>.npy. Runs
under NumPy 1.x and 2.x like test_module.py."""
import json
import os
import subprocess
import tempfile
import unittest

import numpy as np

import tir

ROOT = os.path.join(os.environ["TIR_TEST_DATA"], "fixtures", "arch_mutation")
TIRC = os.environ["TIRC"]
TIRRUN = os.environ["TIRRUN"]
TMP = tempfile.TemporaryDirectory(prefix="tir_input_mutation_")
FIXTURES = json.load(open(os.path.join(ROOT, "manifest.json"), encoding="utf-8"))["fixtures"]


def imported(entry):
    name = entry["dir"].replace("/", "_")
    model, weights = (os.path.join(TMP.name, name + ext) for ext in (".tir", ".bin"))
    if not os.path.exists(model):
        subprocess.run([TIRC, "import", os.path.join(ROOT, entry["dir"], "program.pt2"), "-o",
                        model, "--weights", weights], check=True, stdout=subprocess.DEVNULL)
    return model, weights


def load(entry, *parts):
    return np.load(os.path.join(ROOT, entry["dir"], *parts))


class InputMutation(unittest.TestCase):
    def test_each_call_writes_the_arrays_passed(self):
        for entry in FIXTURES:
            with self.subTest(entry["dir"]):
                s = tir.Session(*imported(entry))
                written = [k for k, spec in enumerate(s.inputs) if spec.get("mutated")]
                self.assertEqual(written, entry["written_inputs"])
                inputs = [load(entry, i["file"]) for i in entry["inputs"]]
                for r, run in enumerate(entry["runs"]):
                    outputs = s.run(inputs)
                    for got, want in zip(outputs, run["outputs"]):
                        np.testing.assert_allclose(got, load(entry, "runs", str(r), want["file"]),
                                                   rtol=1e-5, atol=1e-5)
                    for k, want in run["written"].items():
                        np.testing.assert_allclose(
                            inputs[int(k)], load(entry, "runs", str(r), want["file"]),
                            rtol=1e-5, atol=1e-5)

    def test_a_copy_is_written_back_and_a_read_only_array_refused(self):
        entry = next(e for e in FIXTURES if e["dir"] == "add_in_place/core")
        s = tir.Session(*imported(entry))
        x, y = (load(entry, i["file"]) for i in entry["inputs"])
        strided = np.asfortranarray(x)  # not C-contiguous: tir reads a copy
        s.run([strided, y])
        want = load(entry, "runs", "0", entry["runs"][0]["written"]["0"]["file"])
        np.testing.assert_allclose(strided, want, rtol=1e-5, atol=1e-5)
        frozen = x.copy()
        frozen.flags.writeable = False
        with self.assertRaisesRegex(Exception, "input 'x' is written by the program"):
            s.run([frozen, y])
        np.testing.assert_array_equal(frozen, x)

    def test_tirrun_saves_the_written_inputs(self):
        entry = next(e for e in FIXTURES if e["dir"] == "kv_write/training")
        model, weights = imported(entry)
        out = os.path.join(TMP.name, "tirrun_kv")
        files = [os.path.join(ROOT, entry["dir"], i["file"]) for i in entry["inputs"]]
        p = subprocess.run([TIRRUN, model, "--weights", weights, *files, "-o", out],
                           check=True, capture_output=True, text=True)
        self.assertIn("written by the program", p.stdout)
        for k, want in entry["runs"][0]["written"].items():
            np.testing.assert_allclose(np.load(os.path.join(out, f"input_{k}.npy")),
                                       load(entry, "runs", "0", want["file"]),
                                       rtol=1e-5, atol=1e-5)
        for k, want in enumerate(entry["runs"][0]["outputs"]):
            np.testing.assert_allclose(np.load(os.path.join(out, f"output_{k}.npy")),
                                       load(entry, "runs", "0", want["file"]),
                                       rtol=1e-5, atol=1e-5)


if __name__ == "__main__":
    unittest.main()
