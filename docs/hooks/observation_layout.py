"""MkDocs hook: ``<!-- observation-layout: PRESET -->`` in a page becomes the observation layout of that preset,
read from the game's own encoder (``spades_env.observation.encoder_for``), so the docs cannot drift from the code."""

from __future__ import annotations

import re

MARKER = re.compile(r"<!-- observation-layout: ([\w.-]+) -->")


def layout_table(preset: str) -> str:
    """A Markdown table of the named slices of ``preset``'s observation: name, columns, shape, bounds."""
    from spades_env import SpadesEngine
    from spades_env.observation import encoder_for

    engine = SpadesEngine(preset)
    encoder = encoder_for(engine)
    rows = [
        f"Observation of `{preset}`: {encoder.size} float32 entries, {engine.layout.n_actions} actions.",
        "",
        "| block | columns | shape | low | high |",
        "|---|---|---|---|---|",
    ]
    for name, columns in encoder.slices.items():
        low, high = float(encoder.low[columns].min()), float(encoder.high[columns].max())
        rows.append(f"| `{name}` | {columns.start}-{columns.stop - 1} | {encoder.shapes[name]} | {low:g} | {high:g} |")
    return "\n".join(rows)


def on_page_markdown(markdown: str, **_) -> str:
    return MARKER.sub(lambda match: layout_table(match.group(1)), markdown)
