"""The typed witness records (``layoutcheck.witness``): one JSON encoding, a read-only mapping, one owner encoding
shared by JSON, SARIF, HTML and ``vectors``."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import fields

import pytest
from hypothesis import given
from hypothesis import strategies as st

from layoutcheck.algebra.layout import Layout
from layoutcheck.engines.prove import prove
from layoutcheck.properties.tv import exact_cover
from layoutcheck.report.vectors import from_tv
from layoutcheck.witness import KINDS, RECORDS, from_json
from layoutcheck.witness_banks import Conflict
from layoutcheck.witness_descriptors import Major, Place
from layoutcheck.witness_maps import Collision, Owners
from layoutcheck.witness_paths import PATH_FAULTS, PathFault, path_fault
from layoutcheck.witness_record import Witness, owner_id, owner_of, with_fields

SAMPLE = {int: 3, str: "x", bool: True, list: [1, 2]}


def _sample(cls: type[Witness]) -> Witness:
    """A record with every field set (ints, strings, lists as the annotation says)."""
    vals = {}
    for f in fields(cls):
        t = str(f.type)
        vals[f.name] = ("x" if t.startswith("str") else True if t.startswith("bool") else [1, 2]
                        if t.startswith("list") else 3)
    return cls(**vals)


SORTED = sorted({c for cs in KINDS.values() for c in cs}, key=lambda c: c.__name__)


@pytest.mark.parametrize("cls", SORTED, ids=lambda c: c.__name__)
def test_every_record_round_trips_through_json(cls):
    w = _sample(cls)
    data = w.to_json()
    assert data.get("kind", "") == cls.kind and json.loads(json.dumps(data)) == data  # block-scale ones: no kind
    back = from_json(data)
    assert type(back) is cls and back.to_json() == data
    assert dict(w) == data and len(w) == len(data) and all(w[k] == data[k] for k in data)


@pytest.mark.parametrize("cls", SORTED, ids=lambda c: c.__name__)
def test_no_field_shadows_a_mapping_method(cls):
    """A field called ``values`` or ``get`` would hide the mapping's method (``JSON_NAMES`` renames it)."""
    assert not {f.name for f in fields(cls)} & set(dir(Mapping)), cls


FAMILIES = ("witness_maps", "witness_banks", "witness_descriptors", "witness_tmem", "witness_paths", "witness")


def test_every_record_of_the_family_modules_is_listed_once():
    """``RECORDS`` (what ``from_json`` reads back) holds every record a family module defines, once: a record
    left out would be an untyped witness to every report reader."""
    import importlib

    defined = {obj for name in FAMILIES for obj in vars(importlib.import_module(f"layoutcheck.{name}")).values()
               if isinstance(obj, type) and issubclass(obj, Witness) and obj.__module__ == f"layoutcheck.{name}"
               and not obj.__name__.startswith("_") and obj is not PathFault}
    defined |= set(PATH_FAULTS.values())  # built by type(): their __module__ is not theirs
    assert len(RECORDS) == len(set(RECORDS)) and set(RECORDS) == defined


def test_records_are_frozen_mappings():
    w = Collision(3, 7)
    assert isinstance(w, Mapping) and w == {"kind": "collision", "i": 3, "j": 7} and w["i"] == 3
    assert w.get("missing") is None and "j" in w and {**w, "x": 1}["x"] == 1
    with pytest.raises(AttributeError):
        w.i = 4  # type: ignore[misc]
    with pytest.raises(KeyError):
        w["nope"]


def test_none_fields_are_absent_and_lead_fields_come_first():
    assert Owners(5, [1, 2], 2).to_json() == {"kind": "owners", "y": 5, "owners": [1, 2], "count": 2}
    assert list(Owners(5, [1], 2, at_least=True).to_json()) == ["kind", "y", "owners", "count", "at_least"]
    assert list(with_fields(Place(block=1, i=2), writer="tma").to_json()) == ["writer", "kind", "block", "i"]
    assert list(with_fields(Major(i=4), block=0).to_json()) == ["block", "kind", "i"]
    assert list(path_fault("A", {"stage": 1, "kind": "doubled", "i": 3}).to_json()) == ["path", "stage", "kind", "i"]
    assert list(Conflict(instruction=0, bank=1, words=[0, 32], lanes=[0, 8], wavefronts=2, ideal=1).to_json()) == [
        "kind", "instruction", "bank", "words", "lanes", "wavefronts", "ideal"]


def test_an_unknown_witness_is_not_decoded():
    with pytest.raises(KeyError):
        from_json({"kind": "collision", "i": 1})  # j missing
    with pytest.raises(KeyError):
        from_json({"kind": "no such kind"})


@given(st.integers(1, 512), st.integers(0, 511), st.integers(0, 64))
def test_owner_id_is_cutes_colexicographic_index(T, t, v):
    t %= T
    assert owner_id(t, v, T) == t + T * v and owner_of(owner_id(t, v, T), T) == (t, v)


def test_one_owner_encoding_in_json_sarif_html_and_vectors():
    """A doubly owned element: the JSON / SARIF ``owners``, the HTML cell and the vectors' ``owner`` list name the
    same (thread, value) pairs by the same integers ``t + T*v``."""
    from layoutcheck.check_row import row_from_result
    from layoutcheck.report.sarif import to_sarif
    from layoutcheck.report.show import tv_grid

    tv = Layout((4, 2), (1, 2))  # 4 threads x 2 values onto 8 elements: thread 2 value 0 and thread 0 value 1 share 2
    r = prove(exact_cover(tv, 8))
    w = r.counterexample.witness
    assert isinstance(w, Owners) and w.y == 2 and w.owners == [2, 4]  # (t2, v0) and (t0, v1)
    assert [owner_of(o, 4) for o in w.owners] == [(2, 0), (0, 1)]
    row = row_from_result(r, "f.toml", "c", "exact_cover")
    assert row.counterexample_data["owners"] == w.owners
    sarif = to_sarif([row])["runs"][0]["results"][0]["properties"]["counterexample"]
    assert sarif["owners"] == w.owners
    own = from_tv("c", tv, (8,))
    assert own.owner[own.owner_start[2]:own.owner_start[3]].tolist() == w.owners
    assert tv_grid(tv, 8, 1).text[2][0] == "T2V0 T0V1"
