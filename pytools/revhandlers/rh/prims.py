"""The primitives of the executable instance (Coq ``prim``, theories/rh/instance.v):
their parameters, domains and codomains."""

from __future__ import annotations

from .syntax import FSym, Prim, TBase, TProd, Ty

#: name -> (Coq constructor, number of parameters)
PRIMS: dict[str, tuple[str, int]] = {
    "swish": ("PSwish", 1),
    "smul": ("PSmul", 1),
    "sub": ("PSub", 1),
    "matmul": ("PMatmul", 3),
    "transpose": ("PTranspose", 2),
    "round": ("PRound", 1),
    "pad": ("PPad", 3),
    "upscale": ("PUpscale", 3),
    "concat": ("PConcat", 3),
    "conv1d": ("PConv1d", 4),
    "maxpool": ("PMaxpool", 3),
    "relu": ("PRelu", 1),
    "sigmoid": ("PSigmoid", 1),
    "tanh": ("PTanh", 1),
    "exp": ("PExp", 1),
    "log": ("PLog", 1),
    "mul": ("PMul", 1),
    "sum": ("PSum", 1),
    "sce": ("PSce", 1),
}

#: the pointwise primitives ``Real(n) → Real(n)``
POINTWISE = ("swish", "round", "relu", "sigmoid", "tanh", "exp", "log")


def ceil_div(n: int, m: int) -> int:
    return (n + m - 1) // m


def prim_dom(p: Prim) -> list[int]:
    a = p.params
    match p.name:
        case "swish" | "round" | "relu" | "sigmoid" | "tanh" | "exp" | "log" | "sum":
            return [a[0]]
        case "smul":
            return [1, a[0]]
        case "sub" | "mul" | "sce":
            return [a[0], a[0]]
        case "matmul":
            m, n, k = a
            return [m * n, n * k]
        case "transpose":
            m, n = a
            return [m * n]
        case "pad" | "upscale" | "maxpool":
            c, n, _ = a
            return [c * n]
        case "concat":
            c, c2, n = a
            return [c * n, c2 * n]
        case "conv1d":
            c, c2, n, m = a
            return [c2 * c * m, c * n]
    raise KeyError(p.name)


def prim_cod(p: Prim) -> int:
    a = p.params
    match p.name:
        case "swish" | "round" | "smul" | "sub" | "relu" | "sigmoid" | "tanh" | "exp" | "log" | "mul":
            return a[0]
        case "sum" | "sce":
            return 1
        case "matmul":
            m, _, k = a
            return m * k
        case "transpose":
            m, n = a
            return n * m
        case "pad" | "upscale":
            c, _, m = a
            return c * m
        case "concat":
            c, c2, n = a
            return (c + c2) * n
        case "conv1d":
            c, c2, n, m = a
            return c2 * max(n - m, 0) + c2  # c'·(n − m + 1), natural subtraction
        case "maxpool":
            c, n, m = a
            return c * ceil_div(n, m)
    raise KeyError(p.name)


def prim_ok(p: Prim) -> bool:
    """Parameters for which the primitive makes sense (Coq ``prim_ok``)."""
    match p.name:
        case "conv1d":
            _, _, n, m = p.params
            return 0 < m <= n
        case "maxpool" | "upscale":
            return p.params[2] > 0
    return True


def fdom(k: int, p: Prim) -> Ty:
    """Domain of ``rd^k[p]`` (Coq ``fdom``)."""
    if k == 0:
        ns = prim_dom(p)
        return TBase(ns[0]) if len(ns) == 1 else TProd(tuple(TBase(n) for n in ns))
    return TProd((fdom(k - 1, p), fcod(k - 1, p)))


def fcod(k: int, p: Prim) -> Ty:
    """Codomain of ``rd^k[p]`` (Coq ``fcod``)."""
    if k == 0:
        return TBase(prim_cod(p))
    return fdom(k - 1, p)


def fsym_dom(f: FSym) -> Ty:
    return fdom(f.k, f.prim)


def fsym_cod(f: FSym) -> Ty:
    return fcod(f.k, f.prim)


#: the parameters of each primitive, as docs/surface-syntax.md writes them
PRIM_PARAMS = {"swish": "n", "smul": "n", "sub": "n", "matmul": "m,n,k", "transpose": "m,n", "round": "n",
               "pad": "c,n,m", "upscale": "c,n,m", "concat": "c,c',n", "conv1d": "c,c',n,m", "maxpool": "c,n,m",
               "relu": "n", "sigmoid": "n", "tanh": "n", "exp": "n", "log": "n", "mul": "n", "sum": "n", "sce": "n"}
