(** * Rule coverage (instrumentation for testing, in the style of PLT Redex)

    Which rule of the semantics a step uses, and which cases of the [RH]
    and [W.R_V(x.N)] rewritings it goes through.  These functions follow
    the recursion of [step_conf_fn], [rh_fn] and [rdr] and return tags
    instead of results; they decide nothing about meaning (the evaluator
    never calls them) and are used only to count how often each rule fires
    over a random-testing campaign ([revhandlers fuzz]). *)
From RevHandlers Require Import prelude signature syntax subst typing typing_lemmas
  rd term_sem cmd_ctx rh cmd_sem interp.

Inductive rule_tag : Type :=
(* command steps *)
| Tstep_tm_app | Tstep_tm_add | Tstep_tm_proj | Tstep_tm_let | Tstep_tm_rd
| Tstep_cmd_let_val | Tstep_cmd_revhandle | Tstep_conf_get | Tstep_conf_put
(* cases of RH (Fig. 5) *)
| Trh_ret | Trh_let_var | Trh_op | Trh_rev | Trh_term
(* cases of W.R_V(x.N) (Fig. 4) *)
| TR_var | TR_varo | TR_const | TR_fun | TR_add | TR_tuple | TR_proj | TR_let | TR_rd | TR_rd_unrewritten.

Section coverage.
Context {Srt : sorts} {Σ : signature} {E : evaluator}.

(** The head redex [step_tm_fn] contracts. *)
Fixpoint tm_redex (M : tm) : option tm :=
  match M with
  | Var _ | Const _ => None
  | App _ N | Proj _ N => if is_value N then Some M else tm_redex N
  | Let N _ => if is_value N then Some M else tm_redex N
  | Add M1 M2 | Rd M1 _ M2 =>
      if is_value M1 then (if is_value M2 then Some M else tm_redex M2) else tm_redex M1
  | Tuple Ms =>
      (fix go (l : list tm) : option tm :=
         match l with
         | [] => None
         | N :: l' => if is_value N then go l' else tm_redex N
         end) Ms
  end.

(** The cases of [W.R_θ(x⃗.N)], in the order [rdr] goes through them. *)
Fixpoint rdr_cases (d : nat) (Γ0 : ctx) (As : list ty) (θ : nat -> tm) (W N : tm) {struct d} : list rule_tag :=
  (fix go (Γ0 : ctx) (As : list ty) (θ : nat -> tm) (W N : tm) {struct N} : list rule_tag :=
     match N with
     | Var x => if Nat.ltb x (length As) then [TR_var] else [TR_varo]
     | Const _ => [TR_const]
     | App f M => TR_fun :: go Γ0 As (shift_subst θ) (Var 0) M
     | Add M1 M2 => TR_add :: go Γ0 As θ W M1 ++ go Γ0 As θ W M2
     | Tuple Ms =>
         TR_tuple :: concat ((fix gos (i : nat) (Ms : list tm) {struct Ms} : list (list rule_tag) :=
                               match Ms with
                               | [] => []
                               | M :: Ms' => go Γ0 As θ (Proj i W) M :: gos (S i) Ms'
                               end) 0 Ms)
     | Proj i M =>
         match infer_tm (As ++ Γ0) M with
         | Some (TProd Bs) => TR_proj :: go Γ0 As θ (onehot Bs i W) M
         | _ => [TR_proj]
         end
     | Let M N' =>
         match infer_tm (As ++ Γ0) M with
         | Some A' =>
             TR_let :: go Γ0 (A' :: As) (up θ) (shift W) N'
               ++ go Γ0 As (shift_subst (shift_subst θ)) (Proj 0 (Var 0)) M
         | None => [TR_let]
         end
     | Rd M N' L =>
         match d with
         | 0 => [TR_rd_unrewritten]
         | S d' =>
             match infer_tm (As ++ Γ0) L with
             | Some Ay =>
                 TR_rd :: rdr_cases d' (As ++ Γ0) [Ay] rd_inner_subst (Var 0) N'
                   ++ rdr_cases d' Γ0 As θ W
                        (Let L (Let (shift M)
                           (Proj 0 (rdr d' (As ++ Γ0) [Ay] rd_inner_subst (Var 0) N'))))
             | None => [TR_rd]
             end
         end
     end) Γ0 As θ W N.

(** The cases of [RH], in the order [rh_fn] goes through them. *)
Fixpoint rh_cases (fuel : nat) (H : handler) (Bs : list ty) (Vs : list tm) (R : cmd) {struct fuel}
    : list rule_tag :=
  match fuel with
  | 0 => []
  | S fuel' =>
      let '(K, R0) := split_c R in
      let rh_term F M :=
        match infer_tm Bs M with
        | Some B' => Trh_term :: rh_cases fuel' H (B' :: Bs) (Var 0 :: map shift Vs)
                                  (fill_t (shift_frames K) F (Var 0))
        | None => []
        end in
      match R0 with
      | Ret (Var z) =>
          match K with
          | [] => [Trh_ret]
          | Q :: K' => Trh_let_var :: rh_cases fuel' H Bs Vs (fill_c K' (subst_cmd (list_subst [Var z]) Q))
          end
      | Op o (Var k) =>
          Trh_op :: rh_cases fuel' H (ar o :: Bs) (Proj 0 (Var 0) :: map shift Vs)
                      (fill_c (shift_frames K) (Ret (Var 0)))
      | RevHandle (Var z) R1 H1 =>
          match nth_error Bs z with
          | Some (TProd As1) =>
              Trh_rev :: rh_cases fuel' H1 As1 (proj_list z (length As1)) R1
                ++ match rh_fn fuel' H1 As1 (proj_list z (length As1)) R1 with
                   | RHOk R1' => rh_cases fuel' H Bs Vs (fill_c K R1')
                   | _ => []
                   end
          | _ => []
          end
      | Ret M => rh_term TRet M
      | Op o M => rh_term (TOp o) M
      | RevHandle M R1 H1 => rh_term (TRev R1 H1) M
      | CLet _ _ => []
      end
  end.

Definition term_tags (M : tm) : list rule_tag :=
  match tm_redex M with
  | Some (App _ _) => [Tstep_tm_app]
  | Some (Add _ _) => [Tstep_tm_add]
  | Some (Proj _ _) => [Tstep_tm_proj]
  | Some (Let _ _) => [Tstep_tm_let]
  | Some (Rd W N V) =>
      Tstep_tm_rd :: match infer_tm [] V with
                     | Some A => rdr_cases (rd_depth N) [] [A] (list_subst [V]) W N
                     | None => []
                     end
  | _ => []
  end.

(** The tags of the step [step_conf_fn fuel hp P] takes. *)
Definition step_tags (fuel : nat) (P : cmd) : list rule_tag :=
  let '(K, P0) := split_c P in
  match P0 with
  | Ret M => if is_value M then (match K with [] => [] | _ => [Tstep_cmd_let_val] end) else term_tags M
  | Op o M =>
      if is_value M then
        match o with OpGet _ => [Tstep_conf_get] | OpPut _ => [Tstep_conf_put] | OpUser _ => [] end
      else term_tags M
  | RevHandle M R H =>
      if is_value M then
        match M, infer_tm [] M with
        | Tuple Vs, Some (TProd Bs) => Tstep_cmd_revhandle :: rh_cases fuel H Bs Vs R
        | _, _ => []
        end
      else term_tags M
  | CLet _ _ => []
  end.

End coverage.
