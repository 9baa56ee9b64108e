"""One training step of the paper's MLP at random depths and widths, on
floats, against gradients computed without the evaluator.

The program is ``rev handle(v)<x_in>.R_MLP with H_train`` for the widths
n_0, …, n_L (``mlp_program``: FC layers with swish between them, the
training handler of examples/mlp.rh).  The theorem
``mlp_run_gradient`` (theories/analysis/mlp_run_grad.v) says that over ℝ
one run of the evaluator maps every weight m to m − α·∂/∂m ½‖f_m(v) − t‖² and returns
α·∇_v ½‖f_m(v) − t‖².  Here the float evaluator is run through
:class:`revhandlers.Session` (the path of ``revhandlers train``) and the
heap after one step is compared with

- PyTorch autograd in float64, to a relative 1e-9;
- central finite differences of a numpy forward pass, within the
  finite differences' own error (a step per weight, and an error bound
  computed from the step).

Networks: several fixed seeds, depth L ≥ 3, widths drawn at random."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import revhandlers as rh
from revhandlers.rh import syntax as rh_syntax
from revhandlers.rh.session import Session

ENGINES = ["verified", "reference"]
SEEDS = [0, 1, 2, 3, 4, 5]


def mlp_program(widths: list[int], residual: bool = False) -> str:
    """The surface program for the widths n_0 (input), …, n_L (output):
    ``let x1 <= FC[l0](x_in) in let x2 <= FC[l1](swish(x1)) in … FC[l_{L-1}](swish(x_{L-1}))``
    with H_train (forward: read w, compute w x keeping ⟨w, x⟩; backward:
    w := w − y xᵀ, pass wᵀ y on; return: store the output, cotangent
    lr·(output − target)).  With ``residual``, the residual block of
    examples/resnet.rh: ``let z <= R_MLP in [| x_in + z |]`` (n_0 = n_L)."""
    L = len(widths) - 1
    n = widths
    lines = []
    for i in range(L):
        lines.append(f"op FC[l{i}] : Real({n[i]}) ~> Real({n[i + 1]})")
    for i in range(L):
        lines.append(f"loc l{i} :: ({n[i]}, {n[i + 1]})")
    lines += [f"loc input :: ({n[0]})", f"loc target :: ({n[L]})", "loc lr :: (1)", f"loc output :: ({n[L]})",
              "let v <= Get[input]() in", "rev handle(<v>)<x_in>."]
    body = "  let x1 <= FC[l0](x_in) in"
    for i in range(1, L - 1):
        body += f"\n  let x{i + 1} <= FC[l{i}](swish[{n[i]}](x{i})) in"
    body += f"\n  FC[l{L - 1}](swish[{n[L - 1]}](x{L - 1}))"
    if residual:
        body = "  let z <= (" + body.strip() + ") in\n  [| x_in + z |]"
    lines.append(body)
    clauses = [f"""  return x -> let t <= Get[target]() in
              let a <= Get[lr]() in
              let _ <= Put[output](x) in
              [| smul[{n[L]}](<a, sub[{n[L]}](<x, t>)>) |]"""]
    for i in range(L):
        a, b = n[i], n[i + 1]
        clauses.append(f"""  FC[l{i}] : (x -> let w <= Get[l{i}]() in [| <matmul[{b}, {a}, 1](<w, x>), <w, x>> |]
          | y, z -> let _ <= Put[l{i}](sub[{b} * {a}](<proj_1(z),
                                       matmul[{b}, 1, {a}](<y, transpose[{a}, 1](proj_2(z))>)>)) in
                    [| matmul[{a}, {b}, 1](<transpose[{b}, {a}](proj_1(z)), y>) |])""")
    lines.append("with {\n" + ";\n".join(clauses) + "\n}")
    return "\n".join(lines) + "\n"


def network(seed: int):
    """Widths (depth 3 to 5, widths 1 to 6), weights, input, target, rate."""
    rng = np.random.default_rng(1000 + seed)
    depth = int(rng.integers(3, 6))
    widths = [int(w) for w in rng.integers(1, 7, depth + 1)]
    Ws = [rng.normal(0.0, 1.0, (widths[i + 1], widths[i])) for i in range(depth)]
    x = rng.normal(size=widths[0])
    t = rng.normal(size=widths[-1])
    lr = float(rng.uniform(0.05, 0.5))
    return widths, Ws, x, t, lr


def loss_np(Ws, x, t, residual: bool = False) -> float:
    """½‖f_W(x) − t‖² (or ½‖x + f_W(x) − t‖²), forward in numpy (swish between layers)."""
    h = x
    for i, W in enumerate(Ws):
        h = W @ h
        if i < len(Ws) - 1:
            h = h / (1.0 + np.exp(-h))
    if residual:
        h = x + h
    return 0.5 * float(np.sum((h - t) ** 2))


def torch_gradients(Ws, x, t, residual: bool = False):
    """∂L/∂W_i and ∂L/∂x by PyTorch autograd in float64."""
    Wt = [torch.tensor(W, dtype=torch.float64, requires_grad=True) for W in Ws]
    xt = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    h = xt
    for i, W in enumerate(Wt):
        h = W @ h
        if i < len(Wt) - 1:
            h = torch.nn.functional.silu(h)
    if residual:
        h = xt + h
    loss = 0.5 * torch.sum((h - torch.tensor(t, dtype=torch.float64)) ** 2)
    grads = torch.autograd.grad(loss, Wt + [xt])
    return [g.numpy() for g in grads[:-1]], grads[-1].numpy()


def central_difference(f, m: np.ndarray):
    """∂f/∂m_k by central differences for every k, with a step per
    coordinate h_k = ε^{1/3}·max(1, |m_k|), and a bound on each estimate's
    error: the truncation term estimated from the difference between the
    steps h and 2h (|D(2h) − D(h)|, which is ≈ 3× the truncation error of
    D(h)) plus the rounding term ε·|f|/h."""
    eps = np.finfo(float).eps
    flat = m.reshape(-1)
    est, err = np.empty(flat.size), np.empty(flat.size)
    f0 = abs(f(m))
    for k in range(flat.size):
        h = eps ** (1 / 3) * max(1.0, abs(flat[k]))

        def at(d):
            p = flat.copy()
            p[k] += d
            return f(p.reshape(m.shape))

        d1 = (at(h) - at(-h)) / (2 * h)
        d2 = (at(2 * h) - at(-2 * h)) / (4 * h)
        est[k] = d1
        err[k] = abs(d2 - d1) + 4 * eps * max(f0, 1.0) / h
    return est.reshape(m.shape), err.reshape(m.shape)


def one_step(widths, Ws, x, t, lr, engine, residual: bool = False):
    """The heap and the value after one run of the program, through a session."""
    prog = rh.parse(mlp_program(widths, residual))
    with Session(prog, engine=engine) as s:
        s.set_heap({**{f"l{i}": W for i, W in enumerate(Ws)}, "input": x, "target": t, "lr": [lr]})
        r = s.run(read=["output"])
        heap = s.heap()
    return heap, r


def test_programs_have_the_depths_and_widths_drawn():
    depths = set()
    for seed in SEEDS:
        widths, *_ = network(seed)
        prog = rh.parse(mlp_program(widths))
        assert rh.check(prog, engine="reference") == rh_syntax.TProd((rh_syntax.TBase(widths[0]),))
        assert [d.shape for d in prog.locs][:len(widths) - 1] == [(widths[i], widths[i + 1])
                                                                   for i in range(len(widths) - 1)]
        depths.add(len(widths) - 1)
    assert min(depths) >= 3 and len(depths) >= 2


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("seed", SEEDS)
def test_one_step_is_gradient_descent_by_pytorch(seed, engine):
    widths, Ws, x, t, lr = network(seed)
    heap, r = one_step(widths, Ws, x, t, lr, engine)
    gW, gx = torch_gradients(Ws, x, t)
    for i, (W, g) in enumerate(zip(Ws, gW)):
        expected = (W - lr * g).reshape(-1)
        np.testing.assert_allclose(heap[f"l{i}"], expected, rtol=1e-9, atol=1e-9 * np.max(np.abs(expected)),
                                   err_msg=f"widths {widths}, layer {i}")
    # the value returned is α·∇_v L (the return clause scales the cotangent by lr)
    np.testing.assert_allclose(r.value[0], lr * gx, rtol=1e-9, atol=1e-9 * lr * max(np.max(np.abs(gx)), 1e-300),
                               err_msg=f"widths {widths}, input gradient")
    h = x
    for i, W in enumerate(Ws):
        h = W @ h
        if i < len(Ws) - 1:
            h = h / (1.0 + np.exp(-h))
    np.testing.assert_allclose(r.read["output"], h, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
def test_one_step_is_gradient_descent_by_finite_differences(seed):
    widths, Ws, x, t, lr = network(seed)
    heap, r = one_step(widths, Ws, x, t, lr, "verified")
    checked = 0
    for i, W in enumerate(Ws):
        def f(Wi, i=i):
            return loss_np(Ws[:i] + [Wi] + Ws[i + 1:], x, t)

        fd, err = central_difference(f, W)
        grad = (W.reshape(-1) - heap[f"l{i}"]) / lr           # the step the evaluator took, divided by α
        bound = err.reshape(-1) + 1e-6 * np.abs(fd.reshape(-1)) + 1e-12
        assert np.all(np.abs(grad - fd.reshape(-1)) <= bound), (widths, i, grad, fd.reshape(-1), err)
        checked += W.size
    fd, err = central_difference(lambda v: loss_np(Ws, v, t), x)
    assert np.all(np.abs(r.value[0] / lr - fd) <= err + 1e-6 * np.abs(fd) + 1e-12), (widths, r.value[0] / lr, fd)
    assert checked == sum(widths[i] * widths[i + 1] for i in range(len(widths) - 1))


def test_finite_differences_catch_a_wrong_step():
    """The comparison can fail: a step with one weight's gradient off by
    1e-4 relative is rejected by the finite-difference bound."""
    widths, Ws, x, t, lr = network(0)
    gW, _ = torch_gradients(Ws, x, t)
    k = int(np.argmax(np.abs(gW[0])))
    fd, err = central_difference(lambda Wi: loss_np([Wi] + Ws[1:], x, t), Ws[0])
    wrong = gW[0].reshape(-1).copy()
    wrong[k] *= 1 + 1e-4
    assert abs(wrong[k] - fd.reshape(-1)[k]) > err.reshape(-1)[k] + 1e-6 * abs(fd.reshape(-1)[k]) + 1e-12


def residual_network(seed: int):
    """As :func:`network`, with n_L = n_0 (the residual block)."""
    widths, Ws, x, t, lr = network(seed)
    rng = np.random.default_rng(2000 + seed)
    widths[-1] = widths[0]
    Ws[-1] = rng.normal(0.0, 1.0, (widths[0], widths[-2]))
    return widths, Ws, x, rng.normal(size=widths[0]), lr


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("seed", SEEDS)
def test_residual_block_step_is_gradient_descent(seed, engine):
    """examples/resnet.rh at random depths and widths (res_train_gradient
    in theories/analysis/resnet_grad.v): PyTorch, then finite differences
    for the input, whose cotangent has the skip connection's share."""
    widths, Ws, x, t, lr = residual_network(seed)
    heap, r = one_step(widths, Ws, x, t, lr, engine, residual=True)
    gW, gx = torch_gradients(Ws, x, t, residual=True)
    for i, (W, g) in enumerate(zip(Ws, gW)):
        expected = (W - lr * g).reshape(-1)
        np.testing.assert_allclose(heap[f"l{i}"], expected, rtol=1e-9, atol=1e-9 * np.max(np.abs(expected)),
                                   err_msg=f"widths {widths}, layer {i}")
    np.testing.assert_allclose(r.value[0], lr * gx, rtol=1e-9, atol=1e-9 * lr * max(np.max(np.abs(gx)), 1e-300))
    fd, err = central_difference(lambda v: loss_np(Ws, v, t, residual=True), x)
    assert np.all(np.abs(r.value[0] / lr - fd) <= err + 1e-6 * np.abs(fd) + 1e-12), (widths, r.value[0] / lr, fd)
