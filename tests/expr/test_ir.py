"""``layoutcheck.expr.ir``: node identity (hash once, pickle without it)."""

from __future__ import annotations


def test_a_node_hashes_once_and_pickles_without_its_hash() -> None:
    """The hash kept in a node (``_hashed_once``) equals the dataclass's value hash; a pickled node carries none, so
    a process with another string-hash seed finds it equal to, and hashed as, its own equal node."""
    import pickle
    import subprocess
    import sys

    from layoutcheck.expr.ir import var

    e = (var("i", 8) * 3 + var("j", 4)) % 5
    assert e.hashed is None and hash(e) == hash((var("i", 8) * 3 + var("j", 4)) % 5) and e.hashed == hash(e)
    blob = pickle.dumps(e)
    assert pickle.loads(blob).hashed is None
    probe = ("import pickle, sys\nfrom layoutcheck.expr.ir import var\ne = pickle.loads(sys.stdin.buffer.read())\n"
             "print((var('i', 8) * 3 + var('j', 4)) % 5 in {e})")
    for seed in ("1", "2"):
        out = subprocess.run([sys.executable, "-c", probe], input=blob, capture_output=True, check=True,
                             env={**__import__("os").environ, "PYTHONHASHSEED": seed})
        assert out.stdout.strip() == b"True"
