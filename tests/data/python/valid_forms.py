# Valid Python (CPython 3.11: `python3 -c "import ast; ast.parse(open(F).read())"`) that
# streamlint must parse without a syntax error, with and without --no-prefilter
# (tests/cli/run_cli_tests.sh). megatron_return is the form that made a whole-repo run exit 2
# (Megatron-LM); star_paren_yield, conditional_star, await_star and star_negative are the other
# star expressions in unparenthesized tuples that the pinned tree-sitter-python grammar rejects
# (repaired in analyzer/python/PyGrammarGaps.h), as are two specs in format_spec_fill_equals;
# it always accepted the rest.
import torch
from typing import TypeVarTuple

Ts = TypeVarTuple("Ts")


def megatron_return():
    return None, *(None,) * 2


def star_return(a, b):
    return a, *b


def star_yield(a, b):
    yield a, *b


def star_subscript(x, idx):
    return x[*idx]


def star_subscript2(x, idx):
    return x[0, *idx]


def star_assign(a, b):
    c = a, *b
    return c


def print_star(a):
    print(*a, sep='')


def match_soft(command):
    match command:
        case [x, y]:
            return x
        case _:
            return None


match = 1
case = 2
type = 3


def walrus_comp(xs):
    return [y for x in xs if (y := x + 1) > 0]


def lambda_yield():
    f = lambda: (yield)
    return f


def except_star():
    try:
        pass
    except* ValueError:
        pass


def for_star(a, b):
    for x in *a, *b:
        pass


def del_tuple(a):
    del (a)


def set_star(a):
    return {*a, 1}


async def async_comp(xs):
    return [x async for x in xs]


def slices(x):
    return x[::2, ..., None]


def dict_merge(a, b):
    return {**a, **b}


def pos_only(a, /, b, *, c):
    return a


def decorators():
    @(lambda f: f)
    def g():
        pass
    return g


def parenthesized_with(a, b):
    with (open(a) as f, open(b) as g):
        pass


def star_index_assign(x, idx, v):
    x[*idx] = v


def return_star_only(a):
    return *a,


def yield_from(a):
    yield from a


def global_nonlocal():
    x = 1
    def inner():
        nonlocal x
        x = 2
    return inner


def conditional_lambda(a):
    return (lambda: a) if a else (lambda: None)


def string_concat():
    return "a" "b" f"c" if False else u"e"


def numbers():
    return 1_000_000, 0x_ff, 1e-3j, 0o17, 0b1010


def ellipsis():
    ...


def backslash(a,
              b):
    return a + \
        b


def variadic(*args: *Ts) -> tuple[*Ts]:
    return args


def star_in_index(x: "Array[*Shape]", shape):
    y: tuple[int, *Ts]
    return x[1:2, *shape]


def format_specs(x, w):
    return f"{x:{w}}", f"{x!r:>10}", f"{x=}", f"{{literal}}", rf"\d{x}"


def match_patterns(v):
    match v:
        case {"a": 1, **rest}:
            return rest
        case [1, *others]:
            return others
        case Point(x=0, y=0) | None:
            return 0
        case str() as s if s:
            return s
        case -1 | 1.5 | 2j | "x" | b"y":
            return 1


def star_after_eq(a, b):
    x = *a, *b
    y = z = *a, b
    return x, y, z


def aug_star(a, b):
    a += *b,
    return a


def yield_star_first(a):
    yield *a, 1


def star_call_result(f):
    return 1, *f()


def star_paren_yield(a):
    x = yield 1, *(a or ())
    return x


def chained_comparison(a, b, c):
    return a < b < c is not None not in ()


def ternary_lambda(a):
    return lambda x=a, *y, z=1, **w: (x, y, z, w)


def keyword_names():
    print = exec = nonlocal_ = 1
    return print


def soft_keywords(type, match, case, _):
    return type + match + case + _


def starred_with_item(a):
    with a as (b, *c):
        pass


def slice_star(a):
    a[1:, *a] = 0


def conditional_star(a, b):
    return 1, *(a if b else ())


def await_star(a):
    async def g():
        return 1, *await a
    return g


def unpack_dict_in_call(f, d):
    return f(*[], **{}, **d)


def star_negative(a):
    return 0, *-a



def format_spec_fill_equals(title, x, width):
    # `:=` in an f-string's braces is a spec with `=` as its fill, not a walrus (lmdeploy);
    # the grammar rejects the first two (PyGrammarGaps.h).
    return f"{title:=^{width}}", f"{x:=<10}", f"{x:=10}", f"{(x := 10)}", f"{x!s:=^20}"


def format_specs_more(x, d, w):
    return f"{x:,}", f"{x:_}", f"{x:+.2f}", f"{d:%Y-%m-%d %H:%M}", f"{x:{'>'}{w}}", f"{x=:>10}", f"{x = }"
