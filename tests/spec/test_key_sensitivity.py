"""Key-sensitivity audit: does every key a spec kind accepts (and every parameter of its properties) change the
outcome of some bundled config when it is set to another valid value?

For each kind in ``schema.KINDS`` the audit takes bundled configs of that kind (``specs/``, ``specs/broken``,
``specs/zoo``), and for every key of the kind and every parameter of the config's properties writes a variant of the
config with that key set (or changed) to another value, checks it through the public road (``check.check_paths`` on
a temporary spec file) and compares its rows with the original's: status, counterexample, reason, key and claim
text. The candidate values come from the bundled corpus (every value that key takes in any config of the kind) and
from small perturbations of integers. A key none of whose variants changes anything is *inert*: either it is on the
allowlist (``INERT``: informational, with the reason) or it is a fail-open suspect (an accepted key that is
ignored). A variant that makes a new ERROR row counts as *rejected* (the value, or the key in that combination, is
refused: fine), never as a change of meaning. ``PYTHONPATH=$PWD python3 tests/spec/test_key_sensitivity.py`` prints
the table (one line per (kind, key): meaning / rejected / INERT / UNTRIED); ``--nested`` adds the keys of nested
tables (a datapath's ``[config.A]``: ``A/smem``), whose findings are the strict-xfail datapath reproducers below.
A key that matters only beside another is compared in that context (``CONTEXT``: ``written_by`` at an unaligned
``base_address``). The gate is per (kind, key) over every picked config; a key inert in one combination but
meaningful in another is found by reading ``audit()``'s per-config probes (how the refused combinations in
``tests/spec/data/ignored_keys.toml`` were found).
"""

from __future__ import annotations

import json
import os
import tempfile
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from layoutcheck.check import check_paths
from layoutcheck.spec.schema import COMMON_KEYS, KINDS, PROPERTY_SPECS

ROOT = Path(__file__).resolve().parents[2]
SPEC_DIRS = ("specs", "specs/broken", "specs/zoo")
VARIANTS_PER_KEY = 3
CONFIGS_PER_KIND = 4
PER_KIND = {"scheduler": 6}  # each scheduler reads its own parameters (the others are refused): more of them
TIMEOUT = 10.0


def _toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, list):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{json.dumps(k)} = {_toml_value(x)}" for k, x in v.items()) + " }"
    raise TypeError(f"no TOML for {v!r}")


def toml_of(cfg: dict[str, Any]) -> str:
    """A spec file holding the one config ``cfg`` (nested tables written inline)."""
    body = "\n".join(f"{json.dumps(k)} = {_toml_value(v)}" for k, v in cfg.items())
    return f"format = 1\n\n[[config]]\n{body}\n"


@dataclass(frozen=True, slots=True)
class Source:
    file: str
    config: dict[str, Any]


EXTRA: tuple[dict[str, Any], ...] = (
    # no bundled config of kind `layout` requests the properties that read `dtype` and `codomain`
    {"name": "extra_layout_vectorizable", "kind": "layout", "layout": "(4,8):(8,1)", "dtype": "f16",
     "codomain": 32, "properties": [{"name": "vectorizable", "width": 16}, "surjective"]},
)
"""Configs written here for keys no bundled config makes matter (their properties are never requested there)."""


def corpus() -> Iterator[Source]:
    """Every bundled config, in file order, then ``EXTRA``."""
    for c in EXTRA:
        yield Source("<tests/spec/test_key_sensitivity.py>", c)
    for d in SPEC_DIRS:
        for f in sorted((ROOT / d).glob("*.toml")):
            with open(f, "rb") as fh:
                doc = tomllib.load(fh)
            for c in doc.get("config", []):
                yield Source(str(f.relative_to(ROOT)), c)


def pools(sources: list[Source]) -> dict[tuple[str, str], list[Any]]:
    """(kind, key) -> the distinct values that key takes in the bundled configs of that kind (first seen first)."""
    out: dict[tuple[str, str], list[Any]] = {}
    for s in sources:
        kind = s.config.get("kind", "")
        for k, v in s.config.items():
            seen = out.setdefault((kind, k), [])
            if v not in seen:
                seen.append(v)
            if isinstance(v, dict) and k != "properties":  # a nested table ([config.A]): its keys under "*.sub"
                for sub, x in v.items():
                    seen = out.setdefault((kind, "*." + sub), [])
                    if x not in seen:
                        seen.append(x)
        for p in s.config.get("properties", []):
            if isinstance(p, dict):
                for k, v in p.items():
                    if k != "name":
                        seen = out.setdefault(("property:" + p["name"], k), [])
                        if v not in seen:
                            seen.append(v)
    return out


SEEDS: dict[str, list[Any]] = {
    "threads": ["(32,4):(4,1)", "(8,16):(16,1)"],
    "values": ["(1,4):(1,1)", "(2,4):(4,1)"],
    "interleave": ["16B", "32B", "none"],
    "a_major": ["MN", "K"],
    "data_path": ["A", "B", "F"],
    "warps": [[4, 5, 6, 7], [0, 1]],
    "needs": ["y", "x + y"],
    "replication": [2, 4],
    "written_by": ["threads", "tma"],
    "dtype": ["f32", "f16"],
}
"""Values for keys no bundled config of any kind writes (``README``'s documented values)."""


def pool_for(pool: dict[tuple[str, str], list[Any]], kind: str, key: str) -> list[Any]:
    """The values to try for ``key`` of ``kind``: the kind's own corpus values, else any kind's, else ``SEEDS``."""
    own = pool.get((kind, key))
    if own:  # (not other kinds' values too: a scheduler's grids make a scale_factors check take seconds)
        return own + [v for v in SEEDS.get(key, []) if v not in own]
    if kind.startswith("property:"):
        return SEEDS.get(key, []) + [v for (k, q), vs in pool.items() if q == key for v in vs]
    return [v for (k, q), vs in pool.items() if q == key and not k.startswith("property:") for v in vs] + \
        SEEDS.get(key, [])


CONTEXT: dict[tuple[str, str], dict[str, Any]] = {
    ("umma_smem", "written_by"): {"base_address": 128},  # tma and threads agree on a 1024-aligned stage
    ("wgmma", "written_by"): {"base_address": 128},
}
"""(kind, key) -> keys set in both the base and its variants: the context in which the key can matter."""


def _perturb(v: Any) -> list[Any]:
    if isinstance(v, bool):
        return [not v]
    if isinstance(v, int):
        return [x for x in (v * 2, v + 1, v - 1, v // 2) if x != v]
    if isinstance(v, list) and v and all(isinstance(x, int) and not isinstance(x, bool) for x in v):
        return [[x * 2 for x in v], [*v[:-1], v[-1] + 1]]
    return []


def candidates(current: Any, pool: list[Any]) -> list[Any]:
    """Up to ``VARIANTS_PER_KEY`` values other than ``current``: corpus values first, then perturbations."""
    out: list[Any] = []
    for v in [*pool, *(_perturb(current) if current is not None else [])]:
        if v != current and v not in out:
            out.append(v)
    return out[:VARIANTS_PER_KEY]


def _signature(rows: list[Any]) -> tuple[Any, ...]:
    """What a row decided: its property's name (not its label, which spells the parameters and so always changes
    with them), status, counterexample, reason, key and claim."""
    return tuple((r.property.split("(")[0], r.status, r.counterexample, r.reason, r.key, r.claim) for r in rows)


def outcome(cfg: dict[str, Any], tmp: str, cache: dict[str, tuple[Any, ...]]) -> tuple[Any, ...]:
    """The rows ``layoutcheck check`` gives the one-config spec ``cfg`` (memoised on its text)."""
    text = toml_of(cfg)
    if text not in cache:
        path = os.path.join(tmp, "variant.toml")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        rows = check_paths([path], timeout=TIMEOUT)
        cache[text] = _signature(rows)
    return cache[text]


@dataclass(frozen=True, slots=True)
class Probe:
    kind: str
    key: str  # a config key, or "property.param"
    file: str
    config: str
    base: str  # the base verdicts, joined
    tried: int
    changed: int  # variants with another outcome and no new ERROR row: the key means something
    errors: int  # variants that made a new ERROR row: the value (or the key, there) was refused
    example: str  # one value that changed something (or "")


def _statuses(sig: tuple[Any, ...]) -> str:
    return ",".join(sorted({s[1] for s in sig}))


def _variants(cfg: dict[str, Any], key: str, pool: list[Any]) -> Iterator[dict[str, Any]]:
    for v in candidates(cfg.get(key), pool):
        yield {**cfg, key: v}
    if key in cfg and key not in KINDS[cfg["kind"]].required:
        yield {k: v for k, v in cfg.items() if k != key}


def _param_variants(cfg: dict[str, Any], prop: str, param: str, pool: list[Any]) -> Iterator[dict[str, Any]]:
    props = cfg.get("properties", [])
    for i, p in enumerate(props):
        req = p if isinstance(p, dict) else {"name": p}
        if req["name"] != prop:
            continue
        for v in candidates(req.get(param), pool):
            new = [*props[:i], {**req, param: v}, *props[i + 1:]]
            yield {**cfg, "properties": new}
        if param in req:
            yield {**cfg, "properties": [*props[:i], {k: x for k, x in req.items() if k != param}, *props[i + 1:]]}


NESTED_VARIANTS = 2


def _nested_jobs(cfg: dict[str, Any], pool: dict[tuple[str, str], list[Any]]) -> list[tuple[str, list[Any]]]:
    """For each nested table of ``cfg`` (a datapath's ``[config.A]``, a scale side's table), each key any bundled
    config of the kind writes in such a table: the variants setting it to up to ``NESTED_VARIANTS`` other values,
    and the one dropping it when given (jobs named ``A/smem``)."""
    kind, jobs = cfg["kind"], []
    subs = sorted({q[2:] for (k, q) in pool if k == kind and q.startswith("*.")})
    for top, table in cfg.items():
        if not isinstance(table, dict) or top == "properties":
            continue
        for sub in subs:
            vals = [v for v in pool[(kind, "*." + sub)] if v != table.get(sub)][:NESTED_VARIANTS]
            variants = [{**cfg, top: {**table, sub: v}} for v in vals]
            if sub in table:
                variants.append({**cfg, top: {k: v for k, v in table.items() if k != sub}})
            jobs.append((f"{top}/{sub}", variants))
    return jobs


def probe_config(src: Source, pool: dict[tuple[str, str], list[Any]], tmp: str,
                 cache: dict[str, tuple[Any, ...]], nested: bool = False) -> list[Probe]:
    cfg = {k: v for k, v in src.config.items()}
    kind = cfg["kind"]
    base = outcome(cfg, tmp, cache)
    out = []
    keys = sorted(KINDS[kind].keys | (COMMON_KEYS - {"kind", "properties"}))
    jobs: list[tuple[str, list[dict[str, Any]]]] = [
        (k, list(_variants(cfg, k, pool_for(pool, kind, k)))) for k in keys]
    if nested:
        jobs.extend(_nested_jobs(cfg, pool))
    for p in cfg.get("properties", []):
        name = p if isinstance(p, str) else p["name"]
        for param in sorted(PROPERTY_SPECS[name].param_names):
            jobs.append((f"{name}.{param}",
                         list(_param_variants(cfg, name, param, pool_for(pool, "property:" + name, param)))))
    for key, variants in jobs:
        changed = errors = 0
        example = ""
        ctx = {k: v for k, v in CONTEXT.get((kind, key), {}).items() if k not in cfg}
        if ctx:  # the key matters only beside another: compare in that context
            base_here = outcome({**cfg, **ctx}, tmp, cache)
            variants = [{**ctx, **v} for v in variants] + [{**cfg, **ctx, key: x} for x in
                                                          pool_for(pool, kind, key) if key not in cfg]
        else:
            base_here = base
        for v in variants:
            sig = outcome(v, tmp, cache)
            error = any(s[1] == "ERROR" for s in sig) and not any(s[1] == "ERROR" for s in base_here)
            errors += error
            if sig != base_here and not error:
                changed += 1
                if not example:
                    example = _describe(cfg, v, key)
        out.append(Probe(kind, key, src.file, cfg.get("name", ""), _statuses(base), len(variants), changed, errors,
                         example))
    return out


def _describe(cfg: dict[str, Any], v: dict[str, Any], key: str) -> str:
    """The value of ``key`` in variant ``v`` (a property parameter: the variant's properties), shortened."""
    return repr(v.get(key, v.get("properties") if "." in key else "<removed>"))[:60]


def _features(s: Source) -> set[str]:
    props = {p if isinstance(p, str) else p["name"] for p in s.config.get("properties", [])}
    vals = {f"{k}={v!r}"[:60] for k, v in s.config.items() if k in ("operand", "scheduler", "major", "cta_group")}
    return set(s.config) | {"property:" + p for p in props} | vals


def pick(sources: list[Source], definite: Any) -> dict[str, list[Source]]:
    """Per kind, up to ``CONFIGS_PER_KIND`` configs with a definite verdict (``definite(source)``: every row PROVEN
    or REFUTED), chosen greedily to cover the most keys, properties and operand / scheduler / major / cta_group
    values (ties: the earlier file)."""
    by: dict[str, list[Source]] = {}
    for s in sources:
        by.setdefault(s.config.get("kind", ""), []).append(s)
    out: dict[str, list[Source]] = {}
    for kind, cands in by.items():
        if kind not in KINDS:
            continue
        chosen: list[Source] = []
        covered: set[str] = set()
        while cands and len(chosen) < PER_KIND.get(kind, CONFIGS_PER_KIND):
            best = max(cands, key=lambda s: len(_features(s) - covered))
            if chosen and not _features(best) - covered:
                break
            cands = [c for c in cands if c is not best]
            if definite(best):
                chosen.append(best)
                covered |= _features(best)
        out[kind] = chosen
    return out


def audit(kinds: list[str] | None = None, nested: bool = False) -> list[Probe]:
    sources = list(corpus())
    pool = pools(sources)
    out: list[Probe] = []
    cache: dict[str, tuple[Any, ...]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        wanted = kinds or list(KINDS)

        def definite(s: Source) -> bool:
            if s.config.get("kind") not in wanted:
                return False
            sig = outcome(dict(s.config), tmp, cache)
            return bool(sig) and all(r[1] in ("PROVEN", "REFUTED") for r in sig)

        chosen = pick(sources, definite)
        for kind in wanted:
            for src in chosen.get(kind, []):
                out.extend(probe_config(src, pool, tmp, cache, nested))
    return out


INERT: dict[str, str] = {
    "name": "a config's name labels its rows; it is no part of any claim",
    "description": "informational text (specs/README.md: shown in reports), no part of any claim",
}
"""Keys allowed to change nothing in every kind, each with the reason."""


def summary(probes: list[Probe]) -> dict[tuple[str, str], str]:
    """(kind, key) -> ``meaning`` (some valid value changes an outcome), ``rejected`` (only refused values were
    found: every change is an ERROR row), ``INERT`` (tried, nothing changed) or ``UNTRIED`` (no other value found)."""
    merged: dict[tuple[str, str], list[Probe]] = {}
    for p in probes:
        merged.setdefault((p.kind, p.key), []).append(p)
    out = {}
    for key, ps in merged.items():
        changed, tried, errs = (sum(getattr(p, f) for p in ps) for f in ("changed", "tried", "errors"))
        out[key] = "meaning" if changed else "UNTRIED" if not tried else "rejected" if errs else "INERT"
    return out


# -- the tests ------------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def table() -> dict[tuple[str, str], str]:
    return summary(audit())


def test_every_key_changes_some_outcome(table: dict[tuple[str, str], str]) -> None:
    """No accepted key is ignored everywhere: each (kind, key) changes a verdict, counterexample or reason for some
    bundled config, or is refused there, unless ``INERT`` allows it (with its reason)."""
    suspects = sorted(f"{k}.{key}: {s}" for (k, key), s in table.items() if s in ("INERT", "UNTRIED")
                      and key not in INERT)
    assert not suspects, f"accepted keys that change nothing (fail-open suspects): {suspects}"


def test_every_kind_and_key_is_probed(table: dict[tuple[str, str], str]) -> None:
    """The audit covers every key of every kind (``schema.KINDS``) and every parameter of a property some picked
    config requests."""
    missing = sorted(f"{k}.{key}" for k, spec in KINDS.items() for key in spec.keys if (k, key) not in table)
    assert not missing


def test_allowlist_is_still_inert(table: dict[tuple[str, str], str]) -> None:
    assert all(s in ("INERT", "UNTRIED") or key == "name" for (_, key), s in table.items() if key in INERT)


IGNORED = (ROOT / "specs" / "broken" / "ignored_keys.toml", ROOT / "tests" / "spec" / "data" / "ignored_keys.toml")
"""The dropped keys now read (REFUTED, ``specs/broken``) and now refused (ERROR rows, which exit 2)."""
REFUSED = {"smem_access_expr_beside_access_tv": "access_expr", "smem_access_ranges_without_access_expr":
           "access_ranges", "smem_tile_beside_layout": "tile", "tma_tile_and_major_beside_smem_layout": "major",
           "wgmma_layout_beside_wgmma_swizzle": "wgmma_layout", "wgmma_swizzle_beside_smem_layout": "swizzle",
           "wgmma_tile_beside_smem_layout": "tile", "triton_surjective_onto_a_larger_codomain": "properties",
           "tilelang_in_bounds_of_a_codomain": "codomain", "triton_exact_cover_replication_2": "properties",
           "tv_exact_cover_of_operand_B": "properties", "layout_other_without_equivalent": "other",
           "wgmma_box_without_tma_wgmma": "box", "tmem_allocation_without_tmem_allocation": "allocation"}
READ = ("wgmma_tma_modes_from_the_stage", "tiled_mma_in_bounds_of_half_the_tile")
"""Configs whose dropped key is now read: the wrong value REFUTED."""


def test_dropped_keys_are_refused_or_read() -> None:
    """Each key the audit found dropped (every config of the ``IGNORED`` files was PROVEN): now an ERROR naming the
    key, or (``READ``) read, and the wrong value REFUTED."""
    rows = check_paths([str(f) for f in IGNORED], include_broken=True)
    assert not [r for r in rows if r.status == "PROVEN"]
    by = {r.config: r for r in rows}
    for name, key in REFUSED.items():
        assert by[name].status == "ERROR" and by[name].key == key, by[name]
        assert "no meaning when" in (by[name].reason or "") or "takes no " in by[name].reason
    assert all(by[name].status == "REFUTED" for name in READ)
    assert set(by) == {*REFUSED, *READ}


DATAPATH_DROPPED = ROOT / "tests" / "spec" / "data" / "datapath_ignored_keys.toml"


@pytest.mark.parametrize("config", ["A_dtype_e4m3", "A_tma_box_beside_cp_async", "A_swizzle_beside_smem",
                                    "A_descriptor_swizzle_with_ldmatrix", "A_epilogue_keys", "C_read_and_major",
                                    "C_tma_box_beside_copy_store"])
def test_datapath_table_keys_are_never_dropped(config: str) -> None:
    """The nested audit (``audit(nested=True)``): on an SM80 cp.async / ldmatrix / copy-store kernel each of these
    path-table keys changed nothing (PROVEN, the key dropped); now an ERROR on its table naming the key."""
    (row,) = [r for r in check_paths([str(DATAPATH_DROPPED)], include_broken=True) if r.config == config]
    assert row.status == "ERROR" and row.key in "ABC", row
    assert "means nothing in this path" in (row.reason or "") or "are one of" in (row.reason or ""), row


if __name__ == "__main__":  # pragma: no cover
    import sys
    import time

    t0 = time.time()
    nested = "--nested" in sys.argv
    probes = audit([a for a in sys.argv[1:] if a != "--nested"] or None, nested)
    marks = summary(probes)
    for (kind, key), mark in marks.items():
        ps = [p for p in probes if (p.kind, p.key) == (kind, key)]
        print(f"{kind:14} {key:30} {mark:8} {sum(p.changed for p in ps)}/{sum(p.tried for p in ps)} "
              f"err={sum(p.errors for p in ps)} base={'|'.join(p.base for p in ps)}")
    print(f"{time.time() - t0:.1f} s", file=sys.stderr)
