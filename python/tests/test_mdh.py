"""The Python module mdh against numpy: results, sizes from shapes, errors as the command line words them, the
output handed over without a copy, and tuning in worker processes of the mdh executable (never this interpreter).
Run by CTest (Python.Pytest) from the source folder with build/python on PYTHONPATH."""
import json
import os
import shutil
import stat
import sys

import numpy as np
import pytest

import mdh

SOURCE = os.environ.get("MDH_SOURCE_DIR", os.getcwd())
# Without config=, run() takes a stored tuned configuration; none here, unless a test names a store.
os.environ["MDH_TUNED_RESULTS"] = "none"


def app(name):
    return os.path.join(SOURCE, "apps", name)


def close_to(result, expected, reduction):
    """float32 against a float64 numpy result: the error of `reduction` float32 additions of terms of this size."""
    tolerance = 4 * reduction * np.finfo(np.float32).eps * max(1.0, float(np.abs(expected).max()))
    assert result.shape == expected.shape
    assert float(np.abs(result.astype(np.float64) - expected).max()) <= tolerance


def test_gemm_matches_numpy_with_sizes_taken_from_the_shapes():
    rng = np.random.default_rng(1)
    a = rng.random((37, 29), dtype=np.float32)
    b = rng.random((29, 41), dtype=np.float32)
    spec = mdh.load(app("gemm.mdh"))
    assert (spec.name, spec.sizes, spec.inputs, spec.output) == ("gemm", ["I", "J", "K"], ["A", "B"], "C")
    c = spec.run(A=a, B=b)
    assert c.dtype == np.float32
    close_to(c, a.astype(np.float64) @ b.astype(np.float64), 29)


def test_precision_tf32_without_tensor_cores_runs_in_fp32_with_a_note(capsys):
    rng = np.random.default_rng(2)
    a = rng.random((13, 5), dtype=np.float32)
    b = rng.random((5, 7), dtype=np.float32)
    spec = mdh.load(app("gemm.mdh"))
    c = spec.run(A=a, B=b, precision="tf32", config="default")
    close_to(c, a.astype(np.float64) @ b.astype(np.float64), 5)
    assert "--precision tf32: " in capsys.readouterr().err
    with pytest.raises(mdh.Error, match=r"^unknown precision 'fp16' \(accepted: fp32, tf32\)$"):
        spec.run(A=a, B=b, precision="fp16")


def write_spec(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def gemm_in(element_type):
    return (f"md_hom gemm_{element_type}\nsize I J K\ninput A : {element_type}[I][K]\n"
            f"input B : {element_type}[K][J]\noutput C : {element_type}[I][J]\n"
            "view (i < I, j < J, k < K) : A[i][k], B[k][j] -> C[i][j]\nscalar (a, b) = a * b\ncombine (++, ++, +)\n")


def test_half_buffers_are_float16_arrays_computed_in_float(tmp_path):
    rng = np.random.default_rng(4)
    a = rng.random((17, 40)).astype(np.float16)
    b = rng.random((40, 9)).astype(np.float16)
    c = mdh.load(write_spec(tmp_path, "gemm_half.mdh", gemm_in("half"))).run(A=a, B=b, verify=True)
    assert c.dtype == np.float16
    exact = a.astype(np.float64) @ b.astype(np.float64)
    # Summed in float, rounded once to half: within half's unit roundoff (2^-11) of the exact product, and float's
    # arithmetic.
    assert float(np.max(np.abs(c.astype(np.float64) - exact) - (2.0 ** -11 + 1e-5) * np.abs(exact))) <= 0


def test_bfloat16_buffers_are_uint16_bit_patterns(tmp_path):
    rng = np.random.default_rng(5)

    def to_bfloat16(x):  # round to nearest even on the upper 16 bits of the float32 patterns
        u = x.astype(np.float32).view(np.uint32).astype(np.uint64)
        return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)

    def from_bfloat16(bits):
        return (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)

    a, b = to_bfloat16(rng.random((8, 33))), to_bfloat16(rng.random((33, 12)))
    spec = mdh.load(write_spec(tmp_path, "gemm_bf16.mdh", gemm_in("bfloat16")))
    c = spec.run(A=a, B=b, verify=True)
    assert c.dtype == np.uint16
    exact = from_bfloat16(a) @ from_bfloat16(b)
    assert float(np.max(np.abs(from_bfloat16(c) - exact) - (2.0 ** -8 + 1e-5) * np.abs(exact))) <= 0
    with pytest.raises(mdh.Error, match=r"^run: input A is a float32 array, but A holds bfloat16 \(numpy uint16\)"):
        spec.run(A=a.astype(np.float32), B=b)


def test_output_is_the_memory_read_from_the_device_not_a_copy():
    x = np.arange(1000, dtype=np.float32)
    r = mdh.load(app("dot.mdh")).run(x=x, y=np.ones(1000, dtype=np.float32))
    # numpy did not copy it into memory of its own: the array's memory belongs to the object mdh handed over.
    assert not r.flags.owndata and type(r.base).__name__ == "PyCapsule"
    assert r.shape == (1,) and r[0] == pytest.approx(float(x.sum()), rel=1e-5)


def test_stencil_needs_sizes_that_shapes_cannot_give_and_matches_numpy():
    spec = mdh.load(app("gaussian.mdh"))
    img = np.random.default_rng(2).random((13, 11), dtype=np.float32)
    with pytest.raises(mdh.Error, match=r"gaussian.mdh:3:8: error: size 'I' is not bound"):
        spec.run(img=img)  # img is float[I+4][J+4]: its shape names no size by itself
    out = spec.run(img=img, sizes={"I": 9, "J": 7})
    k = np.array([[2, 4, 5, 4, 2], [4, 9, 12, 9, 4], [5, 12, 15, 12, 5], [4, 9, 12, 9, 4], [2, 4, 5, 4, 2]]) / 159.0
    expected = np.array([[np.sum(k * img[i:i + 5, j:j + 5]) for j in range(7)] for i in range(9)])
    close_to(out, expected, 25)


def test_default_config_reference_and_a_config_dict_agree(tmp_path):
    spec = mdh.load(app("gemv.mdh"))
    rng = np.random.default_rng(3)
    a, x = rng.random((20, 33), dtype=np.float32), rng.random(33, dtype=np.float32)
    reference = spec.run(A=a, x=x, reference=True)
    close_to(spec.run(A=a, x=x, verify=True), reference.astype(np.float64), 33)
    config, _ = spec.tune("I=20,K=33", evals=2, in_process=True, progress=False, journal=str(tmp_path / "j"))
    close_to(spec.run(A=a, x=x, config=config, verify=True), reference.astype(np.float64), 33)


def test_errors_are_mdh_errors_with_the_command_lines_words():
    spec_file = "tests/diagnostics/undeclared_buffer.mdh"
    with open(os.path.join(SOURCE, spec_file)) as f:
        expected = f.readline()[len("# expect: "):].strip()
    cwd = os.getcwd()
    os.chdir(SOURCE)  # the message names the spec by the path it was given, as `mdh check` does
    try:
        with pytest.raises(mdh.Error) as error:
            mdh.load(spec_file)
    finally:
        os.chdir(cwd)
    assert str(error.value) == expected
    assert isinstance(error.value, ValueError)

    spec = mdh.load(app("gemm.mdh"))
    a = np.zeros((4, 5), dtype=np.float32)
    with pytest.raises(mdh.Error, match=r"^run: input A is a float64 array, but A holds float \(numpy float32\); "
                                        r"convert it with \.astype\(numpy\.float32\)$"):
        spec.run(A=a.astype(np.float64), B=np.zeros((5, 6), dtype=np.float32))
    with pytest.raises(mdh.Error, match=r"^input B: the data is float\[4\]\[6\] but B is float\[5\]\[6\] at these "
                                        r"sizes$"):
        spec.run(A=a, B=np.zeros((4, 6), dtype=np.float32), sizes={"K": 5})
    with pytest.raises(mdh.Error, match=r"^run: the spec gemm declares no buffer 'Q'$"):
        spec.run(Q=a)
    with pytest.raises(mdh.Error, match=r"^run: 'C' is the output, not an input$"):
        spec.run(C=a)
    # A config dict that json.dumps makes into numbers JSON readers cannot hold (found by fuzzing the readers).
    with pytest.raises(mdh.Error, match=r"^config: not a configuration \(.*number overflow"):
        spec.run(A=a, B=np.zeros((5, 6), dtype=np.float32), config={"LT_SIZE_i": 10 ** 400})


def test_tune_starts_workers_of_the_mdh_executable_and_returns_config_and_journal(tmp_path, monkeypatch):
    # A stand-in for mdh that records how it was started, then runs the real one (the module's default).
    real = os.environ.get("MDH_EXECUTABLE") or os.path.join(os.path.dirname(mdh.__file__), "..", "bin", "mdh")
    log = tmp_path / "started.txt"
    wrapper = tmp_path / "mdh"
    wrapper.write_text('#!/bin/sh\necho "$0 $*" >> "%s"\nexec "%s" "$@"\n' % (log, os.path.abspath(real)))
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("MDH_EXECUTABLE", str(wrapper))

    spec = mdh.load(app("gemm.mdh"))
    out = tmp_path / "best.json"
    config, journal = spec.tune({"I": 8, "J": 8, "K": 8}, evals=3, out=str(out), progress=False)
    started = log.read_text()
    assert " tune-worker --request " in started and sys.executable not in started
    with open(journal) as f:
        lines = [json.loads(line) for line in f]
    assert len(lines) == 4 and lines[0]["metadata"]["sizes"] == "I=8,J=8,K=8"  # a header and three evaluations
    result = json.loads(out.read_text())
    assert result["config"] == config
    # The result is the fastest finalist timed again, the default among them (tuner/evaluate/final_timing.h).
    chosen = result["final_timing"]["finalists"][result["final_timing"]["chosen"]]
    assert chosen["config"] == config and chosen["final_ns"] == result["kernel_time_ns"]
    assert any(f["role"] == "default" for f in result["final_timing"]["finalists"])
    a, b = np.eye(8, dtype=np.float32), np.arange(64, dtype=np.float32).reshape(8, 8)
    assert np.array_equal(spec.run(A=a, B=b, config=config, verify=True), b)
    assert np.array_equal(spec.run(A=a, B=b, config=str(out)), b)
    # A second run gets a journal of its own; finalists=0 writes the search's best, without a final timing.
    _, second = spec.tune({"I": 8, "J": 8, "K": 8}, evals=1, progress=False, finalists=0, out=str(out))
    assert second != journal and os.path.exists(second)
    assert "final_timing" not in json.loads(out.read_text())
    with pytest.raises(mdh.Error, match="finalists must be 0 or more"):
        spec.tune({"I": 8, "J": 8, "K": 8}, evals=1, progress=False, finalists=-1)
    for fresh in (journal, second):
        shutil.rmtree(os.path.dirname(fresh))


def test_arguments_python_users_get_wrong_are_mdh_errors_in_python_words():
    spec = mdh.load(app("gemm.mdh"))
    a, b = np.ones((4, 5), dtype=np.float32), np.ones((5, 6), dtype=np.float32)
    with pytest.raises(mdh.Error, match=r"^run: input B is missing; pass it as B=array \(or random_inputs=True"):
        spec.run(A=a)
    assert spec.run(A=a, random_inputs=True, sizes={"J": 6}).shape == (4, 6)
    with pytest.raises(mdh.Error, match=r"^sizes must be a dict of integers .*, not \[100, 77\]$"):
        spec.tune([100, 77], evals=1, progress=False)
    for bad, words in (({"budget": -5}, "budget must be a positive number of seconds, not -5"),
                       ({"budget": float("nan")}, "budget must be a positive number of seconds, not nan"),
                       ({"evals": 0}, "evals must be at least 1, not 0"),
                       ({"evals": "many"}, "evals must be a number, not 'many'")):
        with pytest.raises(mdh.Error, match="^tune: " + words + "$"):
            spec.tune({"I": 4, "J": 6, "K": 5}, progress=False, **bad)
    gaussian = mdh.load(app("gaussian.mdh"))
    with pytest.raises(mdh.Error) as error:
        gaussian.run(img=np.zeros((13, 11), dtype=np.float32))
    assert "sizes={'I': <value>}" in str(error.value) and "--size" not in str(error.value)


def test_a_journal_of_its_own_is_removed_when_python_exits(tmp_path):
    import subprocess
    script = ("import mdh, sys; spec = mdh.load(sys.argv[1]); "
              "_, journal = spec.tune({'I': 4, 'J': 4, 'K': 4}, evals=1, finalists=0, progress=False, "
              "in_process=True, tuned_results='none'); print(journal)")
    done = subprocess.run([sys.executable, "-c", script, app("gemm.mdh")], capture_output=True, text=True, timeout=300,
                          env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))
    assert done.returncode == 0, done.stderr
    journal = done.stdout.strip().splitlines()[-1]
    assert journal.endswith("tuning.journal") and not os.path.exists(os.path.dirname(journal))

def test_run_takes_the_configuration_tuned_for_the_nearest_sizes_from_the_store(tmp_path, capsys):
    spec = mdh.load(app("gemm.mdh"))
    result = tmp_path / "tuned.json"
    config, journal = spec.tune({"I": 16, "J": 8, "K": 8}, evals=2, in_process=True, progress=False, out=str(result),
                                journal=str(tmp_path / "journal"))
    # The store is a folder per device; the result says which device it was tuned on.
    store = tmp_path / "store"
    document = json.loads(result.read_text())
    folder = store / document["device"]["slug"]
    folder.mkdir(parents=True)
    stored = folder / "gemm-16x8x8.json"
    # At other sizes the store takes only a result that beat the default where it was tuned; two evaluations need not,
    # so this one's final timing is made to say it did.
    document["final_timing"] = {"rounds": 1, "chosen": 0, "finalists": [{"role": "search", "round_ns": [1000]},
                                                                         {"role": "default", "round_ns": [2000]}]}
    stored.write_text(json.dumps(document))
    capsys.readouterr()

    # Twice the rows: every tile of the stored configuration fills as it did at 16 rows.
    rng = np.random.default_rng(3)
    a, b = rng.random((32, 8), dtype=np.float32), rng.random((8, 8), dtype=np.float32)
    c = spec.run(A=a, B=b, tuned_results=str(store))
    close_to(c, a.astype(np.float64) @ b, 8)
    assert capsys.readouterr().err == (
        "note: using tuned configuration %s (sizes I=16,J=8,K=8, nearest to I=32,J=8,K=8 of 1 stored for gemm on %s, "
        "log2 distance 1.00)\n" % (stored, folder.name))
    # Said once per spec: a loop of runs does not repeat it.
    close_to(spec.run(A=a, B=b, tuned_results=str(store)), a.astype(np.float64) @ b, 8)
    # config="default" leaves the store alone; tuned_results="none" too.
    spec.run(A=a, B=b, tuned_results=str(store), config="default")
    spec.run(A=a, B=b, tuned_results="none")
    assert capsys.readouterr().err == ""
