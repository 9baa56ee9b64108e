(** * The executable semantics: step functions and the evaluator

    - [step_tm_fn]: one step of a closed term, or the reason it cannot step;
    - [rh_fn]: the rewriting [RH] as a function with fuel;
    - [step_conf_fn]: one step of a configuration [(hp, P)];
    - [run]: iterate [step_conf_fn] at most [fuel] times.
    [interp_facts.v] proves them to agree with the relations. *)
From RevHandlers Require Import prelude signature syntax subst typing typing_lemmas
  rd term_sem cmd_ctx rh cmd_sem.

Section interp.
Context {Srt : sorts} {Σ : signature} {E : evaluator}.

(** ** Terms *)
Inductive tm_step : Type :=
| TSStep (M' : tm)                (** one step *)
| TSValue                         (** a value: no step *)
| TSStuckEv (f : fsym) (V : tm)   (** [f(V)] with [Ev(f, V)] undefined *)
| TSWrong.                        (** a shape no well-typed closed term has *)

(** The loop of the tuple case of [step_tm_fn] ([step] is [step_tm_fn],
    a parameter outside the [fix] so that [step_tm_fn] is recursive through it):
    the components before [l], values already, are kept in reverse order
    in [rpre], so that a step costs time linear in the tuple's width, not
    quadratic. *)
Definition tuple_step (step : tm -> tm_step) : list tm -> list tm -> tm_step :=
  fix go (rpre l : list tm) {struct l} : tm_step :=
    match l with
    | [] => TSValue
    | M' :: l' =>
        match step M' with
        | TSStep M'' => TSStep (Tuple (rev_append rpre (M'' :: l')))
        | TSValue => go (M' :: rpre) l'
        | r => r
        end
    end.

Fixpoint step_tm_fn (M : tm) : tm_step :=
  match M with
  | Var _ | Const _ => TSValue
  | App f N =>
      match step_tm_fn N with
      | TSStep N' => TSStep (App f N')
      | TSValue => match ev f N with Some V => TSStep V | None => TSStuckEv f N end
      | r => r
      end
  | Add M1 M2 =>
      match step_tm_fn M1 with
      | TSStep M1' => TSStep (Add M1' M2)
      | TSValue =>
          match step_tm_fn M2 with
          | TSStep M2' => TSStep (Add M1 M2')
          | TSValue =>
              match M1, M2 with
              | Const c1, Const c2 => TSStep (Const (cadd c1 c2))
              | _, _ => TSWrong
              end
          | r => r
          end
      | r => r
      end
  | Tuple Ms => tuple_step step_tm_fn [] Ms
  | Proj i N =>
      match step_tm_fn N with
      | TSStep N' => TSStep (Proj i N')
      | TSValue =>
          match N with
          | Tuple Vs => match nth_error Vs i with Some V => TSStep V | None => TSWrong end
          | _ => TSWrong
          end
      | r => r
      end
  | Let N1 N2 =>
      match step_tm_fn N1 with
      | TSStep N1' => TSStep (Let N1' N2)
      | TSValue => TSStep (subst_tm (list_subst [N1]) N2)
      | r => r
      end
  | Rd N1 N2 L =>
      match step_tm_fn N1 with
      | TSStep N1' => TSStep (Rd N1' N2 L)
      | TSValue =>
          match step_tm_fn L with
          | TSStep L' => TSStep (Rd N1 N2 L')
          | TSValue =>
              match infer_tm [] L with
              | Some A => TSStep (rd_rewrite [] A N1 L N2)
              | None => TSWrong
              end
          | r => r
          end
      | r => r
      end
  end.

(** ** [RH] *)
Inductive rh_result : Type :=
| RHOk (R' : cmd)
| RHNoFuel
| RHWrong.

Fixpoint rh_fn (fuel : nat) (H : handler) (Bs : list ty) (Vs : list tm) (R : cmd) {struct fuel}
    : rh_result :=
  match fuel with
  | 0 => RHNoFuel
  | S fuel' =>
      let '(K, R0) := split_c R in
      let rh_term F M :=
        match infer_tm Bs M with
        | Some B' =>
            match rh_fn fuel' H (B' :: Bs) (Var 0 :: map shift Vs)
                    (fill_t (shift_frames K) F (Var 0)) with
            | RHOk Rrec => RHOk (rh_term_out Bs Vs M Rrec)
            | r => r
            end
        | None => RHWrong
        end in
      match R0 with
      | Ret (Var z) =>
          match K with
          | [] => match nth_error Vs z with
                  | Some Vz => RHOk (rh_ret_out H Bs z Vz)
                  | None => RHWrong
                  end
          | Q :: K' => rh_fn fuel' H Bs Vs (fill_c K' (subst_cmd (list_subst [Var z]) Q))
          end
      | Op o (Var k) =>
          match nth_error Vs k with
          | Some Vk =>
              let '(D, Qf, Qb) := clause_of H o in
              match rh_fn fuel' H (ar o :: Bs) (Proj 0 (Var 0) :: map shift Vs)
                      (fill_c (shift_frames K) (Ret (Var 0))) with
              | RHOk Rrec => RHOk (rh_op_out Bs o k Vk Qf Qb Rrec)
              | r => r
              end
          | None => RHWrong
          end
      | RevHandle (Var z) R1 H1 =>
          match nth_error Bs z with
          | Some (TProd As1) =>
              match rh_fn fuel' H1 As1 (proj_list z (length As1)) R1 with
              | RHOk R1' => rh_fn fuel' H Bs Vs (fill_c K R1')
              | r => r
              end
          | _ => RHWrong
          end
      | Ret M => rh_term TRet M
      | Op o M => rh_term (TOp o) M
      | RevHandle M R1 H1 => rh_term (TRev R1 H1) M
      | CLet _ _ => RHWrong
      end
  end.

(** ** Configurations *)
Inductive conf_step : Type :=
| CSStep (hp : heap) (P : cmd)      (** one step *)
| CSDone (V : tm)                   (** [⌊V⌋]: the result *)
| CSStuckEv (f : fsym) (V : tm)     (** [Ev(f, V)] undefined *)
| CSStuckOp (o : opsym) (V : tm)    (** an operation no handler covers *)
| CSNoFuel                          (** [RH] ran out of fuel *)
| CSWrong.                          (** a shape no well-typed closed command has *)

Definition term_conf_step (hp : heap) (K : list cmd) (F : tcframe) (M : tm)
    (k : unit -> conf_step) : conf_step :=
  match step_tm_fn M with
  | TSStep M' => CSStep hp (fill_t K F M')
  | TSValue => k tt
  | TSStuckEv f V => CSStuckEv f V
  | TSWrong => CSWrong
  end.

Definition step_conf_fn (fuel : nat) (hp : heap) (P : cmd) : conf_step :=
  let '(K, P0) := split_c P in
  match P0 with
  | Ret M =>
      term_conf_step hp K TRet M (fun _ =>
        match K with
        | [] => CSDone M
        | Q :: K' => CSStep hp (fill_c K' (subst_cmd (list_subst [M]) Q))
        end)
  | Op o M =>
      term_conf_step hp K (TOp o) M (fun _ =>
        match o with
        | OpGet l => CSStep hp (fill_c K (Ret (Const (heap_lookup hp l))))
        | OpPut l =>
            match M with
            | Const c => CSStep (heap_update hp l c) (fill_c K (Ret (Const (czero unit_base))))
            | _ => CSWrong
            end
        | OpUser _ => CSStuckOp o M
        end)
  | RevHandle M R H =>
      term_conf_step hp K (TRev R H) M (fun _ =>
        match M with
        | Tuple Vs =>
            match infer_tm [] M with
            | Some (TProd Bs) =>
                match rh_fn fuel H Bs Vs R with
                | RHOk R' => CSStep hp (fill_c K R')
                | RHNoFuel => CSNoFuel
                | RHWrong => CSWrong
                end
            | _ => CSWrong
            end
        | _ => CSWrong
        end)
  | CLet _ _ => CSWrong
  end.

(** ** The evaluator *)
Inductive run_result : Type :=
| RDone (hp : heap) (V : tm) (steps : nat)
| RStuckEv (hp : heap) (P : cmd) (f : fsym) (V : tm) (steps : nat)
| RStuckOp (hp : heap) (P : cmd) (o : opsym) (V : tm) (steps : nat)
| ROutOfFuel (hp : heap) (P : cmd) (steps : nat)
| RWrong (hp : heap) (P : cmd) (steps : nat).

(** [run fuel n hp P]: at most [fuel] steps from [(hp, P)], [n] steps
    having been taken before; [fuel] also bounds each [RH] rewriting. *)
Fixpoint run (fuel : nat) (n : nat) (hp : heap) (P : cmd) {struct fuel} : run_result :=
  match fuel with
  | 0 => ROutOfFuel hp P n
  | S fuel' =>
      match step_conf_fn fuel hp P with
      | CSStep hp' P' => run fuel' (S n) hp' P'
      | CSDone V => RDone hp V n
      | CSStuckEv f V => RStuckEv hp P f V n
      | CSStuckOp o V => RStuckOp hp P o V n
      | CSNoFuel => ROutOfFuel hp P n
      | CSWrong => RWrong hp P n
      end
  end.

End interp.
