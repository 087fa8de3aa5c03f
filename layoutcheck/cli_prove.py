"""``layoutcheck prove``: one property of one layout, stated with flags instead of a spec file.

``prove_request`` turns the flags into the typed (config, property request) a spec file would hold -- the inputs a
property needs and accepts are those ``spec.schema.PROPERTY_SPECS`` declares, every value goes through the spec value
parsers -- and ``cmd_prove`` decides it through ``check.check_property``, the road every spec takes. Errors name the
user's flag, never the internal config; ``property_table`` is ``prove --help``'s list of properties."""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable
from typing import Any

from layoutcheck.cli_args import ENGINES, _engine_args, _one_line, _positive_int, _property_name
from layoutcheck.errors import (
    InternalError,
    LayoutcheckError,
    ParseError,
    UsageError,
)


def _prove_params() -> dict[str, Any]:
    """Each input ``prove`` takes from a flag, by spec key: the config keys of ``spec.schema.PROVE_KEYS`` and every
    property parameter declared with a flag (one declaration per flag)."""
    from layoutcheck.spec.schema import PROPERTY_SPECS, PROVE_KEYS

    out = {k.name: k for k in PROVE_KEYS}
    for spec in PROPERTY_SPECS.values():
        for param in spec.params:
            if param.flag:
                out.setdefault(param.name, param)
    return out


def _prove_flags() -> dict[str, str]:
    """Spec key -> the ``prove`` flag that gives it (errors name the user's flag, never the internal spec)."""
    from layoutcheck.spec.schema import KINDS, PROPERTY_SPECS, prove_kind

    subjects = {KINDS[prove_kind(p, tile)].subject for p, s in PROPERTY_SPECS.items() if s.prove
                for tile in (False, True)}
    return {**{k: "EXPR" for k in subjects}, **{k: p.flag for k, p in _prove_params().items()},
            **dict.fromkeys(("properties", "name", "kind"), "--property")}


def _spec_only(p: str) -> str | None:
    """Why ``prove`` cannot state property ``p`` from flags (it needs a spec of another kind), else ``None``."""
    from layoutcheck.spec.schema import PROPERTY_SPECS, kinds_of

    if PROPERTY_SPECS[p].prove is not None:
        return None
    kinds = kinds_of(p)
    return (f"prove: --property {p} is a claim about a config of kind {' or '.join(repr(k) for k in kinds)}, which "
            f"prove's flags do not describe: write a spec file (kind = {kinds[0]!r}, keys in specs/README.md) and "
            f"run 'layoutcheck check FILE'")


def _needs_text(need: Any, flags: dict[str, str]) -> str:
    """``--lhs --rhs``, ``--bound (or --tile)``, ``(--wavefronts | --max-wavefronts)``: a ``Need`` in flags."""
    names = [flags[k] for k in need.keys]
    text = " ".join(names) if need.every else f"({' | '.join(names)})"
    return f"{text} (or {flags[need.unless]})" if need.unless else text


def property_table() -> str:
    """``prove --help``'s list of properties, generated from ``spec.schema.PROPERTY_SPECS``: each property, the
    ``prove`` flags it needs and [those it accepts], or the kinds of the spec files that state it."""
    from layoutcheck.spec.schema import ALL_PROPERTIES, PROPERTY_SPECS, kinds_of, prove_inputs

    flags = _prove_flags()
    lines = ["properties (NAME of --property):"]
    for p in ALL_PROPERTIES:
        spec = PROPERTY_SPECS[p]
        if spec.prove is None:
            lines.append(f"  {p:<22} spec files only (kind {', '.join(kinds_of(p))}): layoutcheck check FILE")
            continue
        needed = {k for n in spec.prove.needs for k in (*n.keys, n.unless) if k}
        what = [_needs_text(n, flags) for n in spec.prove.needs]
        what += [f"[{i.flag}]" for i in prove_inputs(p) if i.name not in needed]
        lines.append(f"  {p:<22} {' '.join(what) or '(no flags)'}")
    return "\n".join(lines)


def _missing(need: Any, given: set[str]) -> bool:
    if need.unless in given:
        return False
    present = [k in given for k in need.keys]
    return not all(present) if need.every else sum(present) != 1


def prove_request(args: argparse.Namespace) -> tuple[Any, Any]:
    """The typed (config, property request) of ``prove``'s flags: the same values a spec file would hold.

    Every value goes through the spec value parsers (``layoutcheck.spec.values``); the inputs a property needs and
    accepts are those ``spec.schema.PROPERTY_SPECS`` declares; errors name the flag.
    """
    from layoutcheck.spec.schema import (
        KINDS,
        PROPERTY_SPECS,
        PROVE_KEYS,
        Config,
        PropertyRequest,
        prove_inputs,
        prove_kind,
    )
    from layoutcheck.spec.values import parse_value

    p = args.property
    why = _spec_only(p)
    if why is not None:
        raise UsageError(why)
    spec, flags, inputs = PROPERTY_SPECS[p], _prove_flags(), _prove_params()
    given = {k for k, i in inputs.items() if getattr(args, _dest(i.flag)) is not None}
    for need in spec.prove.needs:
        if _missing(need, given):
            raise UsageError(f"prove: --property {p} needs {need.why}")
    kind = prove_kind(p, bool(args.tile))
    raw: dict[str, Any] = {KINDS[kind].subject: args.expr}
    for k in (k.name for k in PROVE_KEYS if k.name in given):
        v = getattr(args, _dest(inputs[k].flag))
        raw[k] = list(v) if isinstance(v, list) else v
    accepted = {i.name for i in prove_inputs(p)}
    for k in sorted(given, key=list(inputs).index):
        if k not in accepted or (k in raw and k not in KINDS[kind].keys):
            raise UsageError(f"prove: {flags[k]} does not apply to property {p}")
    params = [(k, _parse_flag(parse_value, k, getattr(args, _dest(inputs[k].flag))))
              for k in sorted(given - set(raw), key=list(inputs).index)]
    values = tuple((k, _parse_flag(parse_value, k, v)) for k, v in raw.items())
    cfg = Config(name="prove", kind=kind, file="<command line>", line=0, values=values,
                 properties=(PropertyRequest(p, tuple(params)),))
    return cfg, cfg.properties[0]


def _dest(flag: str) -> str:
    """argparse's attribute for ``flag``: ``--max-wavefronts`` -> ``max_wavefronts``."""
    return flag.removeprefix("--").replace("-", "_")


def _parse_flag(parse: Callable[[str, Any], Any], key: str, value: Any) -> Any:
    try:
        return parse(key, value)
    except LayoutcheckError as e:
        if isinstance(e, ParseError):
            raise
        raise UsageError(f"prove: {_prove_flags().get(key, key)}: {_one_line(e)}") from None
    except (ValueError, TypeError) as e:
        raise UsageError(f"prove: {_prove_flags().get(key, key)}: {_one_line(e)}") from None


def _flag_message(row: Any) -> str:
    """An ERROR row of ``prove`` as one line naming the user's flag (not the internal config)."""
    text = re.sub(r"^config 'prove': ", "", row.reason or "")
    m = re.match(r"(?:key|parameter) '(\w+)': (.*)", text)
    flags = _prove_flags()
    flag = flags.get(m.group(1), m.group(1)) if m else "--property"
    text = re.sub(r"^property '\w+': ", "", m.group(2) if m else text)
    text = re.sub(r"(?:the config's )?'(\w+)'", lambda k: _flag_of_key(flags, k.group(1), k.group(0)), text)
    return f"prove: {flag}{' ' + row.property if flag == '--property' else ''}: {text}"


def _flag_of_key(flags: dict[str, str], key: str, quoted: str) -> str:
    """A spec key quoted in a binder's message -> the ``prove`` flag that gives it (else the quote as it was)."""
    flag = flags.get(key, "")
    return flag if flag.startswith("--") and flag != "--property" else quoted


def cmd_prove(args: argparse.Namespace) -> int:
    from layoutcheck.algebra.notation import parse_layout
    from layoutcheck.check import check_property

    if args.engine not in ENGINES:
        raise UsageError(f"prove: --engine {args.engine!r}: choose one of {', '.join(ENGINES)}")
    parse_layout(args.expr)  # fail early, with the caret position, on a bad layout
    cfg, req = prove_request(args)
    if sys.stderr.isatty():  # a long proof shows what it is doing; erased when done
        sys.stderr.write(f"proving {req.label} ...\r")
        sys.stderr.flush()
    row = check_property(cfg, req, args.engine, args.timeout, memory=args.memory)
    if sys.stderr.isatty():
        sys.stderr.write(" " * (len(req.label) + 14) + "\r")
    if row.status == "ERROR":
        if row.internal:
            raise InternalError(f"prove: {row.reason}")
        raise UsageError(_flag_message(row))
    head = f"{row.status}: {row.claim or req.label} [{row.engine}, {row.time_s * 1e3:.1f} ms]"
    if row.counterexample is not None:
        print(f"{head}\n  counterexample: {row.counterexample}")
    elif row.reason:
        print(f"{head}\n  reason: {row.reason}")
    else:
        print(head)
    return row.exit_code


def _add_prove(sub: Any) -> None:
    pr = sub.add_parser("prove", help="prove one property of one layout")
    pr.add_argument("expr", help='a layout in CuTe notation, e.g. "Sw<3,3,3> o (8,64):(64,1)"')
    pr.add_argument("--property", required=True, metavar="NAME", type=_property_name,
                    help="the property to prove (the list below)")
    _prove_flag_args(pr)
    _engine_args(pr)
    pr.formatter_class = argparse.RawDescriptionHelpFormatter
    plain = pr.format_help
    pr.format_help = lambda: plain() + "\n" + property_table() + "\n"  # type: ignore[method-assign]
    pr.set_defaults(func=cmd_prove)


def _prove_flag_args(pr: Any) -> None:
    """One option per input of ``_prove_params`` (``spec.schema``): its type, and its help naming the properties that
    take it."""
    from layoutcheck.spec.schema import ALL_PROPERTIES, prove_inputs

    for key, param in _prove_params().items():
        users = [p for p in ALL_PROPERTIES if any(i.name == key for i in prove_inputs(p))]
        extra: dict[str, Any] = {"type": _positive_int} if param.type.startswith("integer") else {}
        if param.type == "integers":
            extra |= {"nargs": "+", "metavar": "N"}
        elif param.type == "integer" and key != param.flag.removeprefix("--"):
            extra["metavar"] = "N"
        pr.add_argument(param.flag, dest=_dest(param.flag), help=f"{param.doc} ({', '.join(users)})", **extra)
