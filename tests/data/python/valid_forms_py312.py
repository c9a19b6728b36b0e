# Valid Python 3.12+ only (PEP 701 f-strings, PEP 695 type parameters and `type` aliases; check
# with a 3.12 interpreter) that streamlint must parse without a syntax error
# (tests/cli/run_cli_tests.sh). The pinned grammar accepts all of it.
import torch


def fstring_same_quotes(d):
    return f"{d["key"]}"


def fstring_nested_fstring(d):
    return f"{'a' + f"{d}"}"


def fstring_backslash(items):
    return f"{'\n'.join(items)}"


def fstring_comment(x):
    return f"{x  # a comment
    }"


class Box[T]:
    def get(self) -> T: ...


def first[T](xs: list[T]) -> T:
    return xs[0]


type Alias = list[int]
type Pair[K, V] = tuple[K, V]
