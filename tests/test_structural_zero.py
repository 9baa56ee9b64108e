"""−0.0 is an exact two-sided identity of OCaml's float addition and +0.0
is not (docs/decisions.md, "The structural zero `0_A` for that
evaluator"): the law `x + 0 = x ∧ 0 + x = x` an evaluator that skips the
additions of a structural zero would take as a hypothesis on the scalar
model, checked here for the floats of the compiled evaluator (native
code, as `rh-eval` is built) on every special value and two million
random bit patterns of both signs, subnormals and infinities included."""

from __future__ import annotations

import shutil
import subprocess

PROGRAM = r"""
let bits = Int64.bits_of_float
let bad = ref 0 and n = ref 0
let check x =
  if not (Float.is_nan x) then begin
    incr n;
    let nz = Sys.opaque_identity (-0.0) and x' = Sys.opaque_identity x in
    if bits (x' +. nz) <> bits x || bits (nz +. x') <> bits x then begin
      incr bad; if !bad <= 5 then Printf.printf "counterexample %h\n" x end
  end
let () =
  List.iter check [ 0.0; -0.0; 1.0; -1.0; infinity; neg_infinity; max_float; -. max_float;
                    min_float; -. min_float; Float.succ 0.0; Float.pred 0.0; epsilon_float ];
  Random.init 28;
  for _ = 1 to 1_000_000 do
    check (Int64.float_of_bits (Random.int64 Int64.max_int));
    check (-. (Int64.float_of_bits (Random.int64 Int64.max_int)))
  done;
  let pz = Sys.opaque_identity 0.0 and nz = Sys.opaque_identity (-0.0) in
  Printf.printf "checked %d bad %d\n%Ld %Ld\n" !n !bad (bits (pz +. nz)) (bits (nz +. pz))
"""


def test_negative_zero_is_an_exact_identity_of_float_addition(tmp_path):
    ocamlopt = shutil.which("ocamlfind")
    assert ocamlopt is not None, "ocamlfind (the OCaml toolchain that builds rh-eval) is not on PATH"
    src = tmp_path / "zero.ml"
    src.write_text(PROGRAM)
    subprocess.run([ocamlopt, "ocamlopt", str(src), "-o", str(tmp_path / "zero")], check=True,
                   capture_output=True, cwd=tmp_path)
    out = subprocess.run([str(tmp_path / "zero")], check=True, capture_output=True, text=True).stdout
    lines = out.splitlines()
    checked, bad = lines[-2].split()[1], lines[-2].split()[3]
    assert int(checked) > 1_900_000 and bad == "0", out
    # +0.0 is not: (+0.0) + (−0.0) and (−0.0) + (+0.0) are +0.0 (bits 0), not −0.0 (bit 63 set)
    assert lines[-1].split() == ["0", "0"], out
