"""The ``vectors --format h`` header in device code: a kernel that includes ``<layoutcheck/ownership.h>`` and the
generated header of a TV map and reads the ``__device__`` copies (``lc_<name>_<key>_dev``) in a ``__global__``
function; its oracle is the TV layout itself (``Layout.offsets()``), not the vectors.

Unlike the other cases this source is *not* self-contained: it includes the user header from
``render.kernel_include_dir()`` as a user's test would, so it is compiled by nvcc (``KernelCase.include_dirs``).
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from layoutcheck.algebra.layout import Layout, size
from layoutcheck.codegen.cases import MMA_F16, KernelCase, _to_np
from layoutcheck.codegen.render import kernel_include_dir, render_template
from layoutcheck.hw.mma import mma_atom


def vectors_header(name: str, tv: Layout, tile: tuple[int, int]) -> str:
    """The text ``layoutcheck vectors --format h`` writes for ``tv`` over ``tile`` (``#pragma once`` dropped: the
    text is pasted into a main file)."""
    from layoutcheck.report.vectors import from_tv, write_vectors

    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / f"{name}.h"
        write_vectors(from_tv(name, tv, tile), str(path), "h")
        text = path.read_text()
    return text.replace("#pragma once\n", "")


def vectors_device_case(name: str = "m16n8k16_C") -> KernelCase:
    """The device-vectors kernel of the ``mma.sync`` m16n8k16 C fragment (32 threads x 4 values over 16 x 8)."""
    from layoutcheck.report.vectors import c_name

    atom = mma_atom(MMA_F16)
    tv, tile = atom.tv_layout_C, (atom.shape_mnk[0], atom.shape_mnk[1])
    T, V = size(tv[0]), size(tv[1])
    kernel = f"vectors_device_{c_name(name)}"
    src = render_template("vectors_device", {
        "KERNEL": kernel, "THREADS": T, "VALUES": V, "ROWS": tile[0], "ARRAY": f"lc_{c_name(name)}",
        "VECTORS": vectors_header(name, tv, tile), "DESCRIPTION": f"{name}: TV {tv} over tile {tile}"})
    expected = tv.offsets().astype(np.int64).reshape(V, T).T  # [t, v]: the element, from the layout (colex t + T*v)

    def inputs(xp: Any) -> list[Any]:
        return [xp.full(T * V, -1, dtype=xp.int64), xp.zeros(T * V, dtype=xp.int32)]

    def compare(out: list[Any], xp: Any) -> tuple[int, int, str]:
        wrong = expected != _to_np(out[0]).reshape(V, T).T  # the kernel writes at the owner id t + T*v
        unowned = _to_np(out[1]).reshape(V, T).T != 1
        return T * V, int((wrong | unowned).sum()), \
            f"element wrong {int(wrong.sum())}, not listed among its owners {int(unowned.sum())}"

    return KernelCase("vectors_device", f"vectors --format h {name} device copies via ownership.h", kernel, src, 1,
                      T, inputs, (0, 1), compare, include_dirs=(str(kernel_include_dir()),))
