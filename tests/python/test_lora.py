"""LoRA adapters through the `tir` module and `tirrun --adapter` (fixtures from
tests/data/gen_lora.py: PEFT adapters over tiny GPT-2 and Llama): each adapter's logits equal
those of PEFT's merged model within 1e-5, four Python threads with four adapters each get their
own, bad adapters (and configs that disagree with their tensors) raise tir.Error naming the file. Needs numpy and the `tir` module only."""
import json
import os
import shutil
import subprocess
import tempfile
import threading
import unittest

import numpy as np

import tir

DATA = os.environ["TIR_TEST_DATA"]
LORA = os.path.join(DATA, "fixtures", "lora")
TIRC = os.environ["TIRC"]
TIRRUN = os.environ["TIRRUN"]
TMP = tempfile.TemporaryDirectory(prefix="tir_lora_test_")
with open(os.path.join(LORA, "manifest.json")) as f:
    MANIFEST = json.load(f)
TOL = MANIFEST["tolerance"]


def family(entry):
    """(session with every adapter loaded, input, base logits, {adapter: (dir, logits)})."""
    d = os.path.join(DATA, "fixtures", entry["dir"])
    model = os.path.join(TMP.name, entry["family"] + ".tir")
    weights = os.path.join(TMP.name, entry["family"] + ".bin")
    if not os.path.exists(model):
        subprocess.run([TIRC, "import", os.path.join(d, "program.pt2"), "-o", model,
                        "--weights", weights], check=True, stdout=subprocess.DEVNULL)
    s = tir.Session(model, weights)
    adapters = {}
    for a in entry["adapters"]:
        adapters[a["name"]] = (os.path.join(d, a["dir"]), np.load(os.path.join(d, a["output"])))
        s.load_adapter(a["name"], adapters[a["name"]][0])
    x = np.load(os.path.join(d, entry["input"]))
    return s, x, np.load(os.path.join(d, entry["base_output"])), adapters, (model, weights)


class LoraTest(unittest.TestCase):
    def test_each_adapter_equals_peft_merged(self):
        for entry in MANIFEST["families"]:
            s, x, base, adapters, _ = family(entry)
            self.assertEqual(sorted(s.adapters), sorted(adapters))
            for name, (_, want) in adapters.items():
                (got,) = s.run([x], adapter=name)
                np.testing.assert_allclose(got, want, rtol=TOL, atol=TOL, err_msg=name)
            (got,) = s.run([x])
            np.testing.assert_allclose(got, base, rtol=TOL, atol=TOL)

    def test_four_threads_four_adapters(self):
        s, x, _, adapters, _ = family(MANIFEST["families"][1])
        names = list(adapters)[:4]
        errors = []

        def work(name):
            for _ in range(10):
                (got,) = s.run([x], adapter=name)
                if not np.allclose(got, adapters[name][1], rtol=TOL, atol=TOL):
                    errors.append(name)

        threads = [threading.Thread(target=work, args=(n,)) for n in names]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(errors, [])

    def test_unload_and_errors(self):
        s, x, _, adapters, _ = family(MANIFEST["families"][0])
        name = next(iter(adapters))
        s.unload_adapter(name)
        with self.assertRaises(tir.Error) as e:
            s.run([x], adapter=name)
        self.assertIn(f"no adapter named '{name}'", str(e.exception))
        bad = os.path.join(TMP.name, "bad_adapter")
        os.makedirs(bad, exist_ok=True)
        with open(os.path.join(bad, "adapter_config.json"), "w") as f:
            json.dump({"peft_type": "LORA", "lora_alpha": 8, "r": 4, "use_dora": True}, f)
        with self.assertRaises(tir.Error) as e:
            s.load_adapter("dora", bad)
        self.assertIn("use_dora", str(e.exception))
        self.assertIn("adapter_config.json", str(e.exception))

    def test_config_read_as_peft_reads_it(self):
        """Variants of a real adapter whose config disagrees with its tensors or holds an absurd
        number are refused naming the field (they ran, and gave inf or another model, before)."""
        s, _, _, adapters, _ = family(MANIFEST["families"][0])
        src = adapters["attn_r4"][0]
        with open(os.path.join(src, "adapter_config.json")) as f:
            text = f.read()
        config = json.loads(text)
        variants = {
            "lora_alpha": json.dumps(dict(config, lora_alpha=1e308)),
            "do not have the rank 8": json.dumps(dict(config, r=8)),
            "does not adapt (target_modules)": json.dumps(dict(config, target_modules=["c_fc"])),
            'key "r" appears twice': text[:text.rfind("}")] + ', "r": 16}',
        }
        for needle, config_text in variants.items():
            d = os.path.join(TMP.name, "variant_" + str(abs(hash(needle))))
            os.makedirs(d, exist_ok=True)
            shutil.copy(os.path.join(src, "adapter_model.safetensors"), d)
            with open(os.path.join(d, "adapter_config.json"), "w") as f:
                f.write(config_text)
            with self.assertRaises(tir.Error, msg=needle) as e:
                s.load_adapter("variant", d)
            self.assertIn(needle, str(e.exception))
            self.assertIn("adapter", str(e.exception))

    def test_tirrun_adapter(self):
        entry = MANIFEST["families"][0]
        _, x, _, adapters, (model, weights) = family(entry)
        name, (path, want) = next(iter(adapters.items()))
        inp = os.path.join(TMP.name, "ids.npy")
        np.save(inp, x)
        out = os.path.join(TMP.name, "tirrun_lora")
        p = subprocess.run([TIRRUN, model, "--weights", weights, "--adapter", path, inp, "-o", out],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("adapter " + path, p.stdout)
        np.testing.assert_allclose(np.load(os.path.join(out, "output_0.npy")), want, rtol=TOL,
                                   atol=TOL)
        p = subprocess.run([TIRRUN, model, "--weights", weights, "--adapter",
                            os.path.join(TMP.name, "nowhere"), inp], capture_output=True, text=True)
        self.assertNotEqual(p.returncode, 0)
        self.assertTrue(p.stderr.startswith("error: "), p.stderr)
        self.assertEqual(p.stderr.count("\n"), 1, p.stderr)


if __name__ == "__main__":
    unittest.main()
