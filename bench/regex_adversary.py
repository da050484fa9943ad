"""Every regular expression the apps apply to text, and adversarial texts for each: the
regular-expression denial of service audit (a pattern whose time grows faster than the
text's length lets one request of 20,000 characters hold a web worker for minutes).

Used by bench/extraction_adversarial.py (``--all-patterns``) and tests/test_patterns_linear.py.

The patterns are collected by code, so one added later is covered without a list to keep:

- every compiled ``re.Pattern`` a module of the apps holds (an attribute, or inside a
  list, tuple, set or dict attribute);
- every ``re.search/match/fullmatch/sub/subn/split/findall/finditer/compile`` call whose
  pattern (and flags) can be evaluated from the module's own names (``S + r"..."``); the
  calls whose pattern is built from local variables are listed by ``uncollected()``, and the
  tests cover those one by one.

The adversarial texts of a pattern are the generic ones (long runs of spaces, letters,
words without a sentence end, punctuation, newlines) and, for each of a few sample strings
the pattern matches (generated from its parsed form, alternatives and repeat counts chosen at
random with a fixed seed), that sample and its prefixes repeated to the length: the repeated
trigger phrase ("I work at I work at ...") that makes overlapping spans backtrack.
"""

import ast
import importlib
import inspect
import pkgutil
import random
import re
import re._constants as sre
import re._parser as sre_parse
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

# The apps that read user text: facts, memory, tenancy and the project package.
PACKAGES = ("language", "facts", "memory", "knowledge", "tenancy", "dewee")
# Modules that only configure a process (importing them starts or changes something).
_SKIPPED_MODULES = re.compile(
    r"\.(?:migrations|management)(?:\.|$)|\.__main__$|^dewee\.(?:wsgi|asgi|gunicorn_conf)$"
)
_CALLS = {"search", "match", "fullmatch", "sub", "subn", "split", "findall", "finditer", "compile"}


@dataclass(frozen=True)
class Found:
    name: str  # "language.extraction.patterns.work.JOB_TITLE[9]", "facts.learning:77"
    pattern: re.Pattern[str]


def modules() -> list[ModuleType]:
    found = []
    for package_name in PACKAGES:
        package = importlib.import_module(package_name)
        found.append(package)
        for info in pkgutil.walk_packages(package.__path__, prefix=f"{package_name}."):
            if _SKIPPED_MODULES.search(info.name):
                continue
            found.append(importlib.import_module(info.name))
    return found


def _patterns_in(value: Any, name: str) -> Iterator[Found]:
    if isinstance(value, re.Pattern):
        if isinstance(value.pattern, str):
            yield Found(name, value)
    elif isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            yield from _patterns_in(item, f"{name}[{index}]")
    elif isinstance(value, (set, frozenset)):
        patterns = sorted((v for v in value if isinstance(v, re.Pattern)), key=lambda p: p.pattern)
        for index, item in enumerate(patterns):
            yield from _patterns_in(item, f"{name}{{{index}}}")
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _patterns_in(item, f"{name}[{key!r}]")


def _inline_calls(module: ModuleType) -> Iterator[tuple[int, ast.Call]]:
    try:
        source = inspect.getsource(module)
    except (OSError, TypeError):
        return
    for node in ast.walk(ast.parse(source)):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in _CALLS
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == "re"
            and node.args
        ):
            yield node.lineno, node


def _flags_of(call: ast.Call, namespace: dict[str, Any]) -> int:
    flags: Any = 0
    for keyword in call.keywords:
        if keyword.arg == "flags":
            flags = eval(compile(ast.Expression(keyword.value), "<flags>", "eval"), namespace)
    position = {"search": 2, "match": 2, "fullmatch": 2, "findall": 2, "finditer": 2}
    position |= {"compile": 1, "sub": 4, "subn": 4, "split": 3}
    index = position[call.func.attr]  # type: ignore[attr-defined]
    if len(call.args) > index:
        flags = eval(compile(ast.Expression(call.args[index]), "<flags>", "eval"), namespace)
    return int(flags)


def _functions(module: ModuleType) -> dict[int, str]:
    """The function each line of ``module`` is in (its innermost one)."""
    try:
        tree = ast.parse(inspect.getsource(module))
    except (OSError, TypeError):
        return {}
    lines: dict[int, tuple[int, str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            for line in range(node.lineno, (node.end_lineno or node.lineno) + 1):
                if line not in lines or node.lineno > lines[line][0]:
                    lines[line] = (node.lineno, node.name)
    return {line: name for line, (_start, name) in lines.items()}


def _inline(module: ModuleType) -> tuple[list[Found], list[str]]:
    """The patterns written into the calls of ``module``'s code; and the functions whose
    call's pattern could not be worked out from the module's names alone."""
    found, missed = [], []
    namespace = {**vars(module), "re": re}
    functions = _functions(module)
    for line, call in _inline_calls(module):
        name = f"{module.__name__}:{line}"
        try:
            pattern = eval(compile(ast.Expression(call.args[0]), name, "eval"), namespace)
            flags = _flags_of(call, namespace)
        except Exception:  # a local name: listed, covered by hand
            missed.append(f"{module.__name__}.{functions.get(line, '<module>')}")
            continue
        if isinstance(pattern, str):
            found.append(Found(name, re.compile(pattern, flags)))
    return found, missed


def collect() -> list[Found]:
    """Every pattern of the apps, each once (the first name it was found under)."""
    seen: set[tuple[str, int]] = set()
    found = []
    for module in modules():
        candidates: list[Found] = []
        for attribute, value in sorted(vars(module).items()):
            candidates.extend(_patterns_in(value, f"{module.__name__}.{attribute}"))
        candidates.extend(_inline(module)[0])
        for item in candidates:
            key = (item.pattern.pattern, item.pattern.flags)
            if key not in seen:
                seen.add(key)
                found.append(item)
    return found


def uncollected() -> list[str]:
    """The calls whose pattern is built at run time from local values (tested by hand)."""
    return [name for module in modules() for name in _inline(module)[1]]


# ---------------------------------------------------------------------------------------
# Sample strings a pattern matches, generated from its parsed form.

_CANDIDATES = [*"aeiosntAZ019 ,.-'_:;!?#+@&/()[]\n\t", "\u00e9"]


def _in_set(char: str, items: list[tuple[Any, Any]], flags: int) -> bool:
    negate = False
    hit = False
    for op, av in items:
        if op is sre.NEGATE:
            negate = True
        elif op is sre.LITERAL:
            hit |= char == chr(av) or bool(flags & re.I and char.lower() == chr(av).lower())
        elif op is sre.RANGE:
            low, high = av
            forms = {char, char.lower(), char.upper()} if flags & re.I else {char}
            hit |= any(low <= ord(form) <= high for form in forms)
        elif op is sre.CATEGORY:
            hit |= _category(char, av)
    return hit != negate


def _category(char: str, category: Any) -> bool:
    name = str(category)
    if "NOT_" in name:
        return not _category(char, getattr(sre, name.replace("NOT_", "")))
    if "DIGIT" in name:
        return char.isdigit()
    if "SPACE" in name:
        return char.isspace()
    if "WORD" in name:
        return char.isalnum() or char == "_"
    if "LINEBREAK" in name:
        return char == "\n"
    return False


class _Sampler:
    def __init__(self, rng: random.Random, flags: int):
        self.rng = rng
        self.flags = flags

    def sample(self, parsed: Any, flags: int | None = None) -> str:
        flags = self.flags if flags is None else flags
        return "".join(self._item(op, av, flags) for op, av in parsed)

    def _char(self, items: list[tuple[Any, Any]], flags: int) -> str:
        chars = [c for c in _CANDIDATES if _in_set(c, items, flags)]
        return self.rng.choice(chars) if chars else "a"

    def _item(self, op: Any, av: Any, flags: int) -> str:
        if op is sre.LITERAL:
            return chr(av)
        if op is sre.NOT_LITERAL:
            return "a" if chr(av) != "a" else "b"
        if op is sre.ANY:
            return self.rng.choice("ab ")
        if op is sre.IN:
            return self._char(av, flags)
        if op is sre.BRANCH:
            return self.sample(self.rng.choice(av[1]), flags)
        if op is sre.SUBPATTERN:
            _group, add, remove, parsed = av
            return self.sample(parsed, (flags | add) & ~remove)
        if op in (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT):
            low, high, parsed = av
            high = low + 3 if high is sre.MAXREPEAT else min(high, low + 3)
            return "".join(self.sample(parsed, flags) for _ in range(self.rng.randint(low, high)))
        if op is sre.ATOMIC_GROUP:
            return self.sample(av, flags)
        if op is sre.GROUPREF_EXISTS:
            _group, yes, _no = av
            return self.sample(yes, flags)
        if op is sre.CATEGORY:
            return self._char([(op, av)], flags)
        return ""  # anchors, lookarounds, back references: no characters of their own


def samples(pattern: re.Pattern[str], count: int, seed: int = 0) -> list[str]:
    parsed = sre_parse.parse(pattern.pattern, pattern.flags)
    seed_bytes = f"{seed}:{pattern.pattern}".encode("utf-8", "surrogatepass")
    sampler = _Sampler(random.Random(seed_bytes), pattern.flags)
    found: list[str] = []
    for _ in range(count * 4):
        text = sampler.sample(parsed)
        if text.strip() and text not in found:
            found.append(text)
        if len(found) == count:
            break
    return found


def _repeated(piece: str, size: int) -> str:
    return (piece * (size // max(len(piece), 1) + 1))[:size]


# Texts any pattern meets: long runs with no sentence end, of the characters that spans and
# classes accept.
GENERIC = (
    " ",
    "a",
    "ab ",
    "I ",
    "i am ",
    "I work at ",
    "a, ",
    "Ana: ",
    ".",
    "\n",
    " \n",
    "9",
    "a1-",
)


# Whole texts for the whole pipeline: the generic pieces and one trigger phrase per pattern
# family that was super-linear (each repeated, with no sentence end).
PHRASES = [
    *GENERIC,
    "I'm at ",  # EMPLOYER "I'm at X now"
    "I'm ",  # I_AM, JOB_TITLE's "(?=.*now)"
    "I've been ",  # _SPAN lookaheads
    "I live with ",  # PLACE "I live with ... in X"
    "my job at ",  # LAST_DAY
    "we lost our dog ",  # PET_GONE
    "I'm not a ",  # NOT_A
    "so ",  # _SUBJECT_DROPPED
    "Starting ",  # EMPLOYER "Starting ..., I'm at X"
    "I accepted ",  # EMPLOYER "I accepted X's offer"
    "Ana said ",  # _PERSON_AFTER
    "Ana Lee ",  # _NAME_CONTEXT
    "I love ",  # LIKES
    "if you need ",  # COURTESY
    "and I ",  # CLAUSE_BREAK, SHARED_SUBJECT
    ", not really",  # RETRACTED
    " \t",  # _SPEAKER, CLAUSE_BREAK
    "my wife and I ",  # TOGETHER
    "ana@example.com ",  # EMAIL
]


def adversarial_texts(pattern: re.Pattern[str], size: int, count: int = 4) -> dict[str, str]:
    """Named texts of ``size`` characters to time ``pattern`` on."""
    texts = {f"generic {piece!r}": _repeated(piece, size) for piece in GENERIC}
    texts["words then spaces"] = _repeated("I work at ", size // 2) + " " * (size - size // 2)
    for index, sample in enumerate(samples(pattern, count)):
        cuts = {len(sample), max(1, len(sample) * 2 // 3), max(1, len(sample) // 3)}
        for cut in sorted(cuts):
            piece = sample[:cut]
            texts[f"sample {index} [:{cut}] {piece[:40]!r}"] = _repeated(piece + " ", size)
        texts[f"sample {index} + spaces"] = sample + " " * (size - len(sample))
    return {name: text[:size] for name, text in texts.items()}


def run(pattern: re.Pattern[str], text: str) -> int:
    """Everything the pattern can be asked of a text: every match from every position."""
    return sum(1 for _ in pattern.finditer(text))


def repo_root() -> Path:
    return Path(__file__).resolve().parent.parent
