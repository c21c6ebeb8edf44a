"""Reading a training run's TensorBoard logs in tests."""

from pathlib import Path


def run_scalars(run_dir):
    """{tag: [(step, value)]} of a run's TensorBoard logs (every directory of it), as TensorBoard
    shows them (purges applied), without the timing scalars."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    timing = ("charts/decisions_per_s", "charts/rollout_decisions_per_s")
    out = {}
    for folder in sorted({p.parent for p in Path(run_dir).rglob("events.out.tfevents.*")}):
        events = EventAccumulator(str(folder))
        events.Reload()
        for tag in events.Tags()["scalars"]:
            if tag not in timing:
                out[tag] = [(e.step, e.value) for e in events.Scalars(tag)]
    return out
