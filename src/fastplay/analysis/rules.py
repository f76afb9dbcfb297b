"""KataGo's rules in an analysis query, and what fastplay makes of them.

A query's ``rules`` is a name (``"chinese"``, ``"japanese"``,
``"tromp-taylor"``...), KataGo's short form (``koSIMPLEscoreAREAtaxNONEsui0whbN``:
what :func:`describe` and KataGo print, and KataGo writes in a record's
``RU``), or a JSON object with the keys ``ko``, ``scoring``
(or ``score``), ``tax``, ``suicide``, ``hasButton``, ``whiteHandicapBonus``,
``friendlyPassOk`` and ``komi`` -- the names and defaults of KataGo's
``Rules::parseRules`` (``cpp/game/rules.cpp``) and of ``kata-set-rules`` in
KataGo's ``docs/GTP_Extensions.md``.

fastplay plays one family of rules: area scoring, no tax, simple ko or
positional superko, multi-stone suicide allowed or not, komi in points (a
handicap bonus is folded into it).  Other rules are analysed under the
nearest of those, with a warning -- as KataGo itself does when its network
does not support the rules asked for ("Rules ... not supported ..., using
... instead").  An unknown name or key is an error.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any

__all__ = ["Rules", "RulesError", "parse_rules", "supported", "handicap_bonus", "describe"]


class RulesError(ValueError):
    """A ``rules`` value that names no rules KataGo knows."""


@dataclass(frozen=True)
class Rules:
    """One ruleset in KataGo's terms.

    Attributes:
        ko: ``"SIMPLE"``, ``"POSITIONAL"``, ``"SITUATIONAL"`` or ``"SPIGHT"``.
        scoring: ``"AREA"`` or ``"TERRITORY"``.
        tax: ``"NONE"``, ``"SEKI"`` or ``"ALL"``.
        suicide: multi-stone suicide is legal.
        button: the AGA button.
        white_handicap_bonus: ``"0"``, ``"N"`` or ``"N-1"``: komi points White
            gets for ``N`` handicap stones.
        friendly_pass_ok: KataGo's cleanup-phase detail (no effect here).
        komi: the ruleset's default komi (a query's ``komi`` wins).
    """

    ko: str = "POSITIONAL"
    scoring: str = "AREA"
    tax: str = "NONE"
    suicide: bool = True
    button: bool = False
    white_handicap_bonus: str = "0"
    friendly_pass_ok: bool = False
    komi: float = 7.5


_TROMP_TAYLOR = Rules()
_JAPANESE = Rules("SIMPLE", "TERRITORY", "SEKI", False, False, "0", False, 6.5)
_CHINESE = Rules("SIMPLE", "AREA", "NONE", False, False, "N", True, 7.5)
_CHINESE_OGS = replace(_CHINESE, ko="POSITIONAL")
_STONE = Rules("SIMPLE", "AREA", "ALL", False, False, "0", True, 7.5)
_ANCIENT_TERRITORY = Rules("SIMPLE", "TERRITORY", "ALL", False, False, "0", False, 6.5)
_AGA = Rules("SITUATIONAL", "AREA", "NONE", False, False, "N-1", True, 7.5)
_AGA_BUTTON = replace(_AGA, button=True, komi=7.0)
_NEW_ZEALAND = Rules("SITUATIONAL", "AREA", "NONE", True, False, "0", True, 7.5)
_GOE = Rules("POSITIONAL", "AREA", "NONE", True, False, "0", True, 7.5)


def _spellings(*names: str) -> list[str]:
    """Each name as KataGo accepts it: joined, with '-', '_' or a space."""
    out = []
    for name in names:
        words = name.split(" ")
        out += ["".join(words), "-".join(words), "_".join(words), " ".join(words)]
    return out


#: Lower-case names -> rules (KataGo's ``parseRulesHelper``).
NAMED: dict[str, Rules] = {
    **{n: _JAPANESE for n in ("japanese", "korean")},
    "chinese": _CHINESE,
    **{n: _CHINESE_OGS for n in _spellings("chinese ogs", "chinese kgs")},
    **{n: _STONE for n in _spellings("ancient area", "stone scoring")},
    **{n: _ANCIENT_TERRITORY for n in _spellings("ancient territory")},
    **{n: _AGA_BUTTON for n in _spellings("aga button")},
    **{n: _AGA for n in ("aga", "bga", "french")},
    **{n: _NEW_ZEALAND for n in ["nz", *_spellings("new zealand")]},
    **{n: _TROMP_TAYLOR for n in _spellings("tromp taylor")},
    **{n: _GOE for n in ("goe", "ing")},
}

_CHOICES = {
    "ko": ("SIMPLE", "POSITIONAL", "SITUATIONAL", "SPIGHT"),
    "scoring": ("AREA", "TERRITORY"),
    "tax": ("NONE", "SEKI", "ALL"),
    "whiteHandicapBonus": ("0", "N", "N-1"),
}

#: Largest komi a query may give (KataGo: ``Rules::MAX_USER_KOMI``).
MAX_KOMI = 150.0


def check_komi(value: Any) -> float:
    """``value`` as a komi: a finite integer or half-integer number in
    [-150, 150] (KataGo's limits); ``RulesError`` otherwise."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise RulesError("komi must be an integer or half-integer from -150.0 to 150.0")
    komi = float(value)
    if not -MAX_KOMI <= komi <= MAX_KOMI or (2 * komi) != int(2 * komi):
        raise RulesError("komi must be an integer or half-integer from -150.0 to 150.0")
    return komi


def _choice(key: str, value: Any) -> str:
    if not isinstance(value, str) or value.strip().upper() not in _CHOICES[key]:
        raise RulesError(f"rules {key} must be one of {', '.join(_CHOICES[key])}, "
                         f"not {value!r}")
    return value.strip().upper()


def _flag(key: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise RulesError(f"rules {key} must be true or false, not {value!r}")
    return value


def _from_object(spec: dict[str, Any]) -> Rules:
    """Rules from KataGo's JSON form: Tromp-Taylor's, changed by each key."""
    fields: dict[str, Any] = {}
    for key, value in spec.items():
        if key == "ko":
            fields["ko"] = _choice("ko", value)
        elif key in ("scoring", "score"):
            fields["scoring"] = _choice("scoring", value)
        elif key == "tax":
            fields["tax"] = _choice("tax", value)
        elif key == "whiteHandicapBonus":
            fields["white_handicap_bonus"] = _choice("whiteHandicapBonus", value)
        elif key in ("suicide", "hasButton", "friendlyPassOk"):
            name = {"suicide": "suicide", "hasButton": "button",
                    "friendlyPassOk": "friendly_pass_ok"}[key]
            fields[name] = _flag(key, value)
        elif key == "komi":
            fields["komi"] = check_komi(value)
        else:
            raise RulesError(f"Unknown rules option: {key}")
    rules = replace(_TROMP_TAYLOR, **fields)
    # KataGo's defaults that follow from the others.
    if "tax" not in fields:
        rules = replace(rules, tax="SEKI" if rules.scoring == "TERRITORY" else "NONE")
    if "komi" not in fields:
        rules = replace(rules, komi=6.5 if rules.scoring == "TERRITORY" else
                        7.0 if rules.button else 7.5)
    return rules


#: KataGo's short form of a ruleset (``Rules::toString``, which
#: ``Rules::parseRules`` reads back): ko and scoring, then any of the rest in order.
_SHORT = re.compile(r"ko(SIMPLE|POSITIONAL|SITUATIONAL|SPIGHT)score(AREA|TERRITORY)"
                    r"(?:tax(NONE|SEKI|ALL))?(?:sui([01]))?(?:button([01]))?"
                    r"(?:whb(0|N-1|N))?(?:fpok([01]))?(?:komi(-?[0-9]+(?:\.[0-9]+)?))?",
                    re.IGNORECASE | re.ASCII)


def _from_short(text: str) -> Rules | None:
    """Rules from KataGo's short form, or ``None`` when ``text`` is not one."""
    match = _SHORT.fullmatch(text.strip())
    if match is None:
        return None
    keys = ("ko", "scoring", "tax", "suicide", "hasButton", "whiteHandicapBonus",
            "friendlyPassOk", "komi")
    spec: dict[str, Any] = {}
    for key, given in zip(keys, match.groups()):
        if given is not None:
            spec[key] = (given == "1" if key in ("suicide", "hasButton", "friendlyPassOk")
                         else float(given) if key == "komi" else given)
    return _from_object(spec)


def parse_rules(value: Any) -> Rules:
    """The rules a query's ``rules`` field names: a name (any case), KataGo's
    short form, or an object.

    Raises :class:`RulesError` for an unknown name, an unknown key, a value
    of the wrong kind, or anything that is neither a string nor an object.
    """
    if isinstance(value, str):
        rules = NAMED.get(value.strip().lower()) or _from_short(value)
        if rules is None:
            raise RulesError(f"Could not parse rules: {value}")
        return rules
    if isinstance(value, dict):
        return _from_object(value)
    raise RulesError('Must specify rules string, such as "chinese" or "tromp-taylor", '
                     "or a JSON object with detailed rules parameters.")


def supported(rules: Rules) -> tuple[Rules, bool]:
    """The nearest rules fastplay plays, and whether they are ``rules`` itself.

    Area scoring without tax and without a button; a situational or Spight
    superko becomes positional superko.  Komi, suicide and the handicap
    bonus are kept.
    """
    ko = rules.ko if rules.ko in ("SIMPLE", "POSITIONAL") else "POSITIONAL"
    near = replace(rules, ko=ko, scoring="AREA", tax="NONE", button=False)
    return near, near == rules


def handicap_bonus(rules: Rules, handicap: int) -> float:
    """Komi points White gets for ``handicap`` stones (none below 2)."""
    if handicap < 2:
        return 0.0
    return {"0": 0.0, "N": float(handicap), "N-1": float(handicap - 1)}[
        rules.white_handicap_bonus]


def describe(rules: Rules) -> str:
    """KataGo's way of printing rules: ``koPOSITIONALscoreAREAtaxNONEsui1...``."""
    return (f"ko{rules.ko}score{rules.scoring}tax{rules.tax}sui{int(rules.suicide)}"
            f"{'button1' if rules.button else ''}whb{rules.white_handicap_bonus}"
            f"fpok{int(rules.friendly_pass_ok)}komi{rules.komi:g}")
