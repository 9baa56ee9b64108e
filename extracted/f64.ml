(* Exact transport of numbers: float arrays as base64 (RFC 4648, standard
   alphabet, '=' padding) of their little-endian IEEE binary64 bytes. *)

let alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

let encode (a : float array) : string =
  let n = Array.length a in
  let b = Bytes.create (8 * n) in
  Array.iteri (fun i x -> Bytes.set_int64_le b (8 * i) (Int64.bits_of_float x)) a;
  let len = Bytes.length b in
  let out = Buffer.create (((len + 2) / 3 * 4) + 1) in
  let byte i = if i < len then Char.code (Bytes.unsafe_get b i) else 0 in
  let i = ref 0 in
  while !i < len do
    let v = (byte !i lsl 16) lor (byte (!i + 1) lsl 8) lor byte (!i + 2) in
    Buffer.add_char out alphabet.[(v lsr 18) land 63];
    Buffer.add_char out alphabet.[(v lsr 12) land 63];
    Buffer.add_char out (if !i + 1 < len then alphabet.[(v lsr 6) land 63] else '=');
    Buffer.add_char out (if !i + 2 < len then alphabet.[v land 63] else '=');
    i := !i + 3
  done;
  Buffer.contents out

let value c =
  match c with
  | 'A' .. 'Z' -> Char.code c - 65
  | 'a' .. 'z' -> Char.code c - 71
  | '0' .. '9' -> Char.code c + 4
  | '+' -> 62
  | '/' -> 63
  | _ -> -1

(* [None] unless [s] is canonical base64 of a whole number of binary64s. *)
let decode (s : string) : float array option =
  let len = String.length s in
  if len mod 4 <> 0 then None
  else
    let pad = if len >= 1 && s.[len - 1] = '=' then if len >= 2 && s.[len - 2] = '=' then 2 else 1 else 0 in
    let nbytes = (len / 4 * 3) - pad in
    if nbytes mod 8 <> 0 then None
    else
      let b = Bytes.create nbytes in
      let ok = ref true in
      let q = ref 0 in
      while !ok && !q < len / 4 do
        let c k = let p = (4 * !q) + k in if p >= len - pad then 0 else value (String.unsafe_get s p) in
        let c0 = c 0 and c1 = c 1 and c2 = c 2 and c3 = c 3 in
        if c0 < 0 || c1 < 0 || c2 < 0 || c3 < 0 then ok := false
        else begin
          let v = (c0 lsl 18) lor (c1 lsl 12) lor (c2 lsl 6) lor c3 in
          let put k x = let p = (3 * !q) + k in if p < nbytes then Bytes.set b p (Char.chr x) in
          put 0 ((v lsr 16) land 255);
          put 1 ((v lsr 8) land 255);
          put 2 (v land 255)
        end;
        incr q
      done;
      if not !ok then None
      else Some (Array.init (nbytes / 8) (fun i -> Int64.float_of_bits (Bytes.get_int64_le b (8 * i))))
