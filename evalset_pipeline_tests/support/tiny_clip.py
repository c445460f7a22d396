"""A tiny, randomly initialised CLIP saved as a sentence-transformers model folder, built offline.

No image model ships as a package, so the real image path (`EmbedderSpec(model=<CLIP folder>)`)
would otherwise never run in the tests. Everything here is built locally: the config from
transformers' config classes, random weights (seeded, so two builds are identical), a byte-level
BPE tokenizer whose vocabulary is just the 256 byte symbols (no merges, nothing fetched), and a
CLIP image processor. `build_tiny_clip(folder)` writes these folders (sentence-transformers loads either layout):

  folder/           the current layout: modules.json names the generic `Transformer` module,
                    which detects CLIP and maps text/image to get_text_features/get_image_features
  folder-hf/        the plain transformers checkpoint that module was made from
  folder-legacy/    (with `legacy=True`) the layout the published sentence-transformers CLIP models
                    (e.g. clip-ViT-B-32) use: modules.json naming `sentence_transformers.models.CLIPModel`

Building takes about a second once torch/transformers are imported (the import is the slow part).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

# Small enough to run in milliseconds, big enough that patches see different parts of a page.
DIM = 16  # projection_dim: the length of every page vector
IMAGE_SIZE = 64
PATCH_SIZE = 16
BOS, EOS = "<|startoftext|>", "<|endoftext|>"


def _bytes_to_unicode() -> dict[int, str]:
    """GPT-2/CLIP's byte -> printable-character table (so every byte is one vocabulary symbol)."""
    printable = (
        list(range(ord("!"), ord("~") + 1))
        + list(range(ord("¡"), ord("¬") + 1))
        + list(range(ord("®"), ord("ÿ") + 1))
    )
    codes = printable[:]
    extra = 0
    for b in range(256):
        if b not in printable:
            printable.append(b)
            codes.append(256 + extra)
            extra += 1
    return dict(zip(printable, map(chr, codes), strict=False))


def tiny_vocab() -> dict[str, int]:
    """Every byte symbol, alone and word-final (CLIP's BPE marks word ends with '</w>'), plus BOS/EOS:
    with no merges every word tokenizes to its characters, and nothing is ever unknown."""
    symbols = list(_bytes_to_unicode().values())
    tokens = symbols + [s + "</w>" for s in symbols] + [BOS, EOS]
    return {t: i for i, t in enumerate(tokens)}


def build_tiny_clip(folder: str | Path, seed: int = 0, legacy: bool = False) -> Path:
    """Write a random CLIP as a sentence-transformers folder at `folder` and return it.

    With `legacy`, also write `<folder>-legacy` in the sentence-transformers CLIPModel layout."""
    import torch
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.base.modules import (
        Transformer,  # the generic module (sentence-transformers >= 5.4)
    )
    from transformers import (
        CLIPConfig,
        CLIPImageProcessor,
        CLIPModel,
        CLIPProcessor,
        CLIPTokenizerFast,
    )

    folder = Path(folder)
    raw = folder.with_name(
        folder.name + "-hf"
    )  # the plain transformers checkpoint the module wraps
    vocab = tiny_vocab()
    tokenizer = CLIPTokenizerFast(vocab=vocab, merges=[], model_max_length=77)
    processor = CLIPProcessor(
        image_processor=CLIPImageProcessor(
            size={"shortest_edge": IMAGE_SIZE},
            crop_size={"height": IMAGE_SIZE, "width": IMAGE_SIZE},
        ),
        tokenizer=tokenizer,
    )
    small = dict(hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=2)
    config = CLIPConfig(
        text_config=dict(
            small,
            vocab_size=len(vocab),
            max_position_embeddings=77,
            bos_token_id=vocab[BOS],
            eos_token_id=vocab[EOS],
            pad_token_id=vocab[EOS],
        ),
        vision_config=dict(small, image_size=IMAGE_SIZE, patch_size=PATCH_SIZE),
        projection_dim=DIM,
    )
    torch.manual_seed(seed)
    model = CLIPModel(config).eval()
    # transformers' CLIP init (std 0.02) lets the class and position embeddings drown the patches
    # in a model this small: every page came out at cosine > 0.997 to every other. A fan-in scaled
    # init keeps the pixels audible (cosine 0.8 to 0.99 on the sample corpus), like a trained model.
    with torch.no_grad():
        for weight in model.parameters():
            if weight.dim() > 1:
                torch.nn.init.normal_(weight, 0.0, 3.0 * weight[0].numel() ** -0.5)
    model.save_pretrained(raw)
    processor.save_pretrained(raw)
    SentenceTransformer(modules=[Transformer(str(raw))], device="cpu").save(str(folder))
    if legacy:
        old = folder.with_name(folder.name + "-legacy")
        shutil.copytree(raw, old)
        (old / "modules.json").write_text(
            json.dumps(
                [
                    {
                        "idx": 0,
                        "name": "0",
                        "path": "",
                        "type": "sentence_transformers.models.CLIPModel",
                    }
                ]
            )
        )
    return folder
