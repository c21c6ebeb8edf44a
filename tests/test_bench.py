"""``make bench`` runs end to end (tiny time budget) and reports every row with a rate."""

import json
import os

from bench import run


def test_bench_runs_every_row(tmp_path, capsys):
    out = tmp_path / "bench.json"
    cores = os.sched_getaffinity(0)
    try:
        figures = run.main(["--seconds", "0.01", "--batches", "8", "--json", str(out)])
    finally:
        os.sched_setaffinity(0, cores)  # the bench pins itself to one core
    table = capsys.readouterr().out
    assert json.loads(out.read_text()) == figures
    for name in ("engine, random legal play [B=8]", "VectorSpades, hearts [B=4096]", "PettingZoo AEC env [B=1]"):
        assert figures[name] > 0, name
        assert name.split(" [")[0] in table
