"""The offline appearance vector: what a page looks like, computed from its render, no model.

Two parts, each L2-normalised then weighted: the grayscale thumbnail resampled to a fixed grid
(ink layout, bars, rules, colour blocks) and a word-box density grid from the text layer (where
text sits on the page). Pages of one visual template land close together whatever their numbers.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from PIL import Image

GRID_W, GRID_H = 24, 32  # thumbnail grid, portrait
BOX_W, BOX_H = 8, 10  # word density grid
DIM = GRID_W * GRID_H + BOX_W * BOX_H
MODEL_ID = f"appearance-v1-{GRID_W}x{GRID_H}+{BOX_W}x{BOX_H}"


def _unit(v: np.ndarray) -> np.ndarray:
    n = float(np.linalg.norm(v))
    return v / n if n > 0 else v


def appearance_vector(thumb_png: str | Path, text_json: str | Path) -> np.ndarray:
    with Image.open(thumb_png) as im:
        gray = np.asarray(
            im.convert("L").resize((GRID_W, GRID_H), Image.Resampling.BOX), dtype=np.float32
        )
    ink = 1.0 - gray.reshape(-1) / 255.0  # dark pixels are the signal
    with open(text_json, encoding="utf-8") as f:
        layer = json.load(f)
    w, h = float(layer.get("width") or 1), float(layer.get("height") or 1)
    density = np.zeros((BOX_H, BOX_W), dtype=np.float32)
    for x0, y0, x1, y1, *_ in layer.get("words", []):
        cx = min(BOX_W - 1, max(0, int((x0 + x1) / 2 / w * BOX_W)))
        cy = min(BOX_H - 1, max(0, int((y0 + y1) / 2 / h * BOX_H)))
        density[cy, cx] += 1.0
    # Center the ink so a blank margin does not make every page look alike.
    ink = ink - ink.mean()
    vec = np.concatenate([_unit(ink), 0.5 * _unit(np.sqrt(density.reshape(-1)))])
    return _unit(vec).astype(np.float32)
