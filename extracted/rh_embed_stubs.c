/* The C face of the verified evaluator as a shared library
   (librh_embed.so, loaded by revhandlers/inprocess.py with ctypes): each
   function calls an OCaml function of rh_embed.ml registered by name.
   Numbers cross as the caller's double buffers: copied into a fresh OCaml
   float array on the way in (rh_embed_stage), out of the heap's array into
   the caller's buffer on the way out (rh_embed_read).  Not reentrant: the
   caller calls one function at a time (the Python side holds a lock and
   the GIL). */

#define CAML_NAME_SPACE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <caml/mlvalues.h>
#include <caml/alloc.h>
#include <caml/memory.h>
#include <caml/callback.h>

static int started = 0;
static char *answer = NULL;

static const value *fn(const char *name)
{
  const value *f = caml_named_value(name);
  if (f == NULL) abort();
  return f;
}

/* Start the OCaml runtime (once). */
int rh_embed_start(void)
{
  if (!started) {
    static char *argv[] = { "rh-embed", NULL };
    caml_startup(argv);
    started = 1;
  }
  return 0;
}

/* The answer, kept until the next call that answers. */
static const char *keep(value s)
{
  size_t n = caml_string_length(s);
  char *a = malloc(n + 1);
  if (a == NULL) return "(error (kind out-of-memory) (rule none) (message \"no memory for the answer\"))";
  memcpy(a, String_val(s), n);
  a[n] = 0;
  free(answer);
  answer = a;
  return answer;
}

/* A request line of `rh-eval --serve`: its answer line. */
const char *rh_embed_request(const char *line)
{
  CAMLparam0();
  CAMLlocal2(l, r);
  l = caml_copy_string(line);
  r = caml_callback(*fn("rh_embed_request"), l);
  CAMLreturnT(const char *, keep(r));
}

/* Stage location LOC's N numbers at DATA (copied) for the next exec. */
int rh_embed_stage(const char *loc, const double *data, long n)
{
  CAMLparam0();
  CAMLlocal2(l, a);
  l = caml_copy_string(loc);
  if (n == 0) {
    a = caml_alloc_float_array(0);
  } else {
    a = caml_alloc_float_array(n);
    memcpy((double *)a, data, n * sizeof(double));
  }
  caml_callback2(*fn("rh_embed_stage"), l, a);
  CAMLreturnT(int, 0);
}

/* Run session NAME on its heap updated by the staged locations; FUEL < 0:
   none; VALUE 0 text, 1 f64, 2 none.  The answer line. */
const char *rh_embed_exec(const char *name, long fuel, int value_mode)
{
  CAMLparam0();
  CAMLlocal2(nm, r);
  nm = caml_copy_string(name);
  r = caml_callback3(*fn("rh_embed_exec"), nm, Val_long(fuel), Val_int(value_mode));
  CAMLreturnT(const char *, keep(r));
}

/* Copy location LOC of session NAME into OUT if it has room for its
   numbers (CAP); the number of numbers, or -1 if there is no such session
   or location. */
long rh_embed_read(const char *name, const char *loc, double *out, long cap)
{
  CAMLparam0();
  CAMLlocal3(nm, l, r);
  nm = caml_copy_string(name);
  l = caml_copy_string(loc);
  r = caml_callback2_exn(*fn("rh_embed_read"), nm, l);
  if (Is_exception_result(r)) CAMLreturnT(long, -1);
  long n = (long)(Wosize_val(r) / Double_wosize);
  if (n > 0 && n <= cap) memcpy(out, (const double *)r, n * sizeof(double));
  CAMLreturnT(long, n);
}

/* The bounds of every later request: TIMEOUT seconds (0: none), MEMORY MB (0: none). */
int rh_embed_set_limits(double timeout, long memory)
{
  CAMLparam0();
  CAMLlocal2(t, m);
  t = caml_copy_double(timeout);
  m = Val_long(memory);
  caml_callback2(*fn("rh_embed_set_limits"), t, m);
  CAMLreturnT(int, 0);
}

/* One run in one call: stage NSET locations (names, data, lengths), run
   session NAME as rh_embed_exec, and on a result copy the NREAD locations
   asked for into READ_OUT (room for READ_LEN[i] numbers each; READ_LEN[i]
   becomes the location's length, or -1 if there is no such location;
   nothing is copied where the room is short).  The answer line. */
const char *rh_embed_run(const char *name, long nset, const char **set_names, const double **set_data,
                         const long *set_len, long nread, const char **read_names, double **read_out,
                         long *read_len, long fuel, int value_mode)
{
  for (long i = 0; i < nset; i++) rh_embed_stage(set_names[i], set_data[i], set_len[i]);
  const char *a = rh_embed_exec(name, fuel, value_mode);
  if (strncmp(a, "(result", 7) == 0)
    for (long i = 0; i < nread; i++) read_len[i] = rh_embed_read(name, read_names[i], read_out[i], read_len[i]);
  return a;
}

/* A run as rh_embed_run, its arguments in one record (one argument to
   marshal per call: revhandlers/rh/inprocess.py keeps a record per shape
   of request, its buffers at fixed addresses); READ_LEN starts as a copy
   of READ_CAP, the room of each buffer.  On a result without a value,
   STEPS and SECONDS are read back from the answer line (the numbers it
   prints; STEPS is -1 otherwise). */
struct rh_plan {
  const char *name;
  long nset;
  const char **set_names;
  const double **set_data;
  const long *set_len;
  long nread;
  const char **read_names;
  double **read_out;
  long *read_len;
  const long *read_cap;
  long fuel;
  long value_mode;
  long steps;
  double seconds;
};

const char *rh_embed_run_plan(struct rh_plan *p)
{
  for (long i = 0; i < p->nread; i++) p->read_len[i] = p->read_cap[i];
  const char *a = rh_embed_run(p->name, p->nset, p->set_names, p->set_data, p->set_len, p->nread, p->read_names,
                               p->read_out, p->read_len, p->fuel, (int)p->value_mode);
  long steps;
  double seconds;
  int end = 0;
  p->steps = -1;
  if (sscanf(a, "(result (value) (read) (steps %ld) (seconds %lf))%n", &steps, &seconds, &end) == 2 && end > 0
      && a[end] == 0) {
    p->steps = steps;
    p->seconds = seconds;
  }
  return a;
}
