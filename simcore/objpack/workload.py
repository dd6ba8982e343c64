"""The page of files a test fetches: names, sizes, attributes, and (when needed) generated contents.

Random draws (documented order, from ``make_generator(seed)``): the ``n_files`` sizes, then one
permutation choosing which files are text. Contents (``page_contents``) come from their own stream,
``numpy.random.default_rng(content_seed)``, so generating or compressing them never changes the sizes.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from simcore._validate import check_instance
from simcore.rng import SeedLike, make_generator

from .params import ObjpackParams
from .wire import package_bytes

__all__ = ["Page", "make_page", "page_contents", "compressed_sizes"]

_TEXT_EXT = ("html", "css", "js")
_BINARY_EXT = ("gif", "jpg", "png")
# Words of a web page's text (HTML, CSS, script): generated text compresses about as real markup does.
_WORDS = np.array(
    b"<div class= id= href= <a </a> <p> </p> <span> </span> <li> </li> <img src= alt= style= color: "
    b"margin: padding: width: height: px; function var return if else for the of and to in is that "
    b"this with on by page web file server client object package response time network packet "
    b"{ } ( ) ; = . , : \" ' / # 0 1 2 3 4 5 6 7 8 9 10 100".split(), dtype=object)


@dataclass(frozen=True)
class Page:
    """The files of one test: ``names``, ``sizes`` (bytes, uncompressed), ``is_text`` per file."""

    names: tuple[str, ...]
    sizes: tuple[int, ...]
    is_text: tuple[bool, ...]

    @property
    def total_bytes(self) -> int:
        """Sum of the file sizes, bytes."""
        return int(sum(self.sizes))

    @property
    def package_bytes(self) -> int:
        """Size of the uncompressed object package of these files, bytes."""
        return package_bytes(self.sizes, self.names)


def _draw_sizes(rng: np.random.Generator, n: int, mean: int, dist: str) -> np.ndarray:
    if dist == "fixed":
        x = np.full(n, float(mean))
    elif dist == "uniform":
        x = rng.uniform(0.5 * mean, 1.5 * mean, n)
    elif dist == "exponential":
        x = rng.exponential(mean, n)
    else:  # lognormal, sigma 1, scaled to the mean
        sigma = 1.0
        x = rng.lognormal(np.log(mean) - sigma**2 / 2, sigma, n)
    return np.maximum(1, np.rint(x)).astype(np.int64)


def make_page(params: ObjpackParams, seed: SeedLike = 0) -> Page:
    """Return the page of ``params.n_files`` files (sizes and kinds drawn from ``seed``)."""
    check_instance("params", params, ObjpackParams)
    rng = make_generator(seed)
    n = params.n_files
    sizes = _draw_sizes(rng, n, params.mean_file_bytes, params.size_distribution)
    order = rng.permutation(n)
    is_text = np.zeros(n, bool)
    is_text[order[: int(round(params.text_fraction * n))]] = True
    names = tuple(f"obj{k:04d}.{(_TEXT_EXT if t else _BINARY_EXT)[k % 3]}" for k, t in enumerate(is_text))
    return Page(names, tuple(int(s) for s in sizes), tuple(bool(t) for t in is_text))


@lru_cache(maxsize=8)
def _contents(sizes: tuple[int, ...], is_text: tuple[bool, ...], seed: int) -> tuple[bytes, ...]:
    rng = np.random.default_rng(seed)
    out = []
    for size, text in zip(sizes, is_text, strict=True):
        if text:
            words = _WORDS[rng.integers(0, _WORDS.size, size // 3 + 8)]
            out.append(b" ".join(words.tolist())[:size].ljust(size, b" "))
        else:  # images are already compressed: random bytes
            out.append(rng.bytes(size))
    return tuple(out)


def page_contents(page: Page, seed: int = 0) -> tuple[bytes, ...]:
    """Return generated contents of the page's files (text: web-like words; binary: random bytes)."""
    return _contents(page.sizes, page.is_text, int(seed))


@lru_cache(maxsize=8)
def _compressed(sizes: tuple[int, ...], is_text: tuple[bool, ...], seed: int) -> tuple[tuple[int, ...], int]:
    data = _contents(sizes, is_text, seed)
    per_file = tuple(min(len(zlib.compress(d, 6)), len(d)) for d in data)
    whole = len(zlib.compress(b"".join(data), 6))
    return per_file, whole


def compressed_sizes(page: Page, seed: int = 0) -> tuple[tuple[int, ...], int]:
    """Return (zlib size of each file, kept only where smaller; zlib size of all data as one stream)."""
    return _compressed(page.sizes, page.is_text, int(seed))
