"""A config's subject is built once for all its claims (``spec.bind.per_config``); ``Config.get`` reads the last
value written for a key, as ``dict(values)`` does."""

from __future__ import annotations

from dataclasses import replace

from layoutcheck.algebra.layout import Layout
from layoutcheck.spec.bind import per_config, smem_layout, tiled_mma
from layoutcheck.spec.load import parse_spec
from layoutcheck.spec.schema import Config

SPEC = """
format = 1
[[config]]
name = "a"
kind = "smem"
dtype = "f16"
atom = { major = "K", mode = "SW128" }
tile = [64, 64]
properties = ["bijective", { name = "conflict_free", access = "ldsm_x4" }]
[[config]]
name = "m"
kind = "tiled_mma"
atom = "SM80_16x8x16_F32F16F16F32_TN"
atom_layout = [2, 2, 1]
tile = [64, 64]
properties = ["exact_cover", { name = "exact_cover", operand = "A" }]
"""


def test_a_configs_subject_is_built_once():
    smem, mma = parse_spec(SPEC, "memo.toml").configs
    assert smem_layout(smem) is smem_layout(smem) and str(smem_layout(smem)).startswith("Sw<3,3,3>")
    assert tiled_mma(mma) is tiled_mma(mma)
    other = replace(mma, name="m2", values=tuple((k, (1, 2, 1) if k == "atom_layout" else v) for k, v in mma.values))
    assert tiled_mma(other) is not tiled_mma(mma) and tiled_mma(other) != tiled_mma(mma)


def test_an_unhashable_config_is_built_each_time():
    calls = []

    @per_config
    def build(cfg: Config) -> int:
        calls.append(cfg.name)
        return len(cfg.get("x"))

    cfg = Config("c", "layout", "f.toml", 1, (("x", [1, 2]),), ())  # a list value: no hash
    assert build(cfg) == 2 and build(cfg) == 2 and calls == ["c", "c"]
    ok = Config("d", "layout", "f.toml", 1, (("x", (1, 2, 3)),), ())
    assert build(ok) == 3 and build(ok) == 3 and calls == ["c", "c", "d"]


def test_get_reads_the_last_value_of_a_key():
    cfg = Config("c", "tma", "f.toml", 1, (("modes", (0, 1)), ("layout", Layout(4)), ("modes", (1, 0))), ())
    assert cfg.get("modes") == dict(cfg.values)["modes"] == (1, 0)
    assert cfg.get("layout") == Layout(4) and cfg.get("missing", 7) == 7 and cfg.get("missing") is None


def test_memoised_builders_never_alias_an_equal_value_of_another_type():
    """``True == 1`` and ``2.0 == 2``: a value the builder refuses is refused even after the equal int was built."""
    import pytest

    from layoutcheck.errors import LayoutError
    from layoutcheck.models.gmma import gmma_blocks
    from layoutcheck.models.tiled_mma import make_tiled_mma
    from layoutcheck.models.tma import mma_smem_layout

    assert make_tiled_mma("SM80_16x8x16_F32F16F16F32_TN", (1, 2, 1)).size == 64
    with pytest.raises(LayoutError):
        make_tiled_mma("SM80_16x8x16_F32F16F16F32_TN", (True, 2, 1))
    stage = mma_smem_layout("K", "128B", "float16", (64, 64))
    assert mma_smem_layout("K", "128B", "float16", (64, 64)) is stage
    with pytest.raises(LayoutError):
        mma_smem_layout("K", "128B", "float16", [64, 64])  # a list is not a tile here, cached or not
    assert gmma_blocks(stage, "f16", 64) is gmma_blocks(stage, "f16", 64)
