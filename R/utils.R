# Threads, sampling and small checks.

#' Number of threads used by modelprofiles
#'
#' The number of threads of the C++ loops is taken, in this order, from the
#' `threads` argument, the option `modelprofiles.threads`, the environment
#' variable `MODELPROFILES_THREADS`, and otherwise 2 (CRAN's limit for
#' checks). Results do not depend on it: every worker owns its output cells
#' and sums in a fixed order.
#'
#' @param threads `NULL` or a positive whole number.
#' @returns An integer.
#' @examples
#' profile_threads()
#' profile_threads(1)
#' @export
profile_threads <- function(threads = NULL) {
  resolve_threads(threads, environment())
}

# The number of threads (see profile_threads()), with errors raised in
# `call` (the user's call) and naming where the bad value came from.
resolve_threads <- function(threads, call) {
  what <- "{.arg threads}"
  if (is.null(threads)) {
    threads <- getOption("modelprofiles.threads", NULL)
    what <- "The option {.code modelprofiles.threads}"
  }
  if (is.null(threads)) {
    env <- Sys.getenv("MODELPROFILES_THREADS", "")
    if (nzchar(env)) threads <- suppressWarnings(as.numeric(env))
    what <- "The environment variable {.envvar MODELPROFILES_THREADS}"
  }
  if (is.null(threads)) return(2L)
  if (!is_whole(threads, 1)) {
    cli::cli_abort(
      paste(what, "must be a whole number from 1 to {(.Machine$integer.max)}, not {.val {format_value(threads)}}."),
      call = call
    )
  }
  as.integer(threads)
}

# Rows of the background sample: all rows, or N of them drawn without
# replacement (sorted). With `seed`, the draw is reproducible and the
# caller's random-number stream is left as it was.
sample_rows <- function(n, N, seed) {
  if (is.null(N) || N >= n) return(seq_len(n))
  if (is.null(seed)) return(sort(sample.int(n, N)))
  with_seed(seed, sort(sample.int(n, N)))
}

# With a `seed`, seed the random-number stream for the rest of an entry
# point's call and return the function that leaves the session's stream as
# it was before the call, which the entry point calls on exit, whatever was
# drawn meanwhile (by the draw of the rows, or by the model's predict(), as
# ranger's draws a seed). The draws of with_seed() inside the call then
# give the same rows as before. With `seed = NULL`, nothing is done (and
# nothing is promised). `env`: the entry point's frame, for errors.
seed_call <- function(seed, env) {
  if (is.null(seed)) return(function() invisible())
  check_number(seed, is.finite,
               "{.arg seed} must be {.code NULL} or a single number, not {format_value(x)}.", env)
  restore <- rng_keeper()
  set.seed(seed)
  restore
}

with_seed <- function(seed, expr) {
  restore <- rng_keeper()
  on.exit(restore())
  set.seed(seed)
  expr
}

# The function that puts the session's random-number state back as it is
# now: .Random.seed (or none) and the generator's kinds. (future's
# `seed = TRUE` can leave R's generator on "L'Ecuyer-CMRG" under a
# .Random.seed of another kind, and set.seed() seeds the generator R is on,
# not .Random.seed's.)
rng_keeper <- function() {
  genv <- globalenv()
  had <- exists(".Random.seed", envir = genv, inherits = FALSE)
  old <- if (had) get(".Random.seed", envir = genv, inherits = FALSE)
  kind <- RNGkind()
  function() {
    if (!identical(RNGkind(), kind)) suppressWarnings(RNGkind(kind[1L], kind[2L], kind[3L]))
    if (had) {
      assign(".Random.seed", old, envir = genv)
    } else if (exists(".Random.seed", envir = genv, inherits = FALSE)) {
      rm(".Random.seed", envir = genv)
    }
  }
}

# A single finite whole number from `min` to the largest integer (so that
# as.integer() keeps it).
is_whole <- function(x, min = 1) {
  is.numeric(x) && length(x) == 1L && !is.na(x) && is.finite(x) && x >= min &&
    x <= .Machine$integer.max && x == round(x)
}

# A whole-number argument, as an integer; errors name the argument and are
# raised in `call`, the user's call. `hint`: a bullet added to the error.
check_whole <- function(x, arg, min = 1, call, hint = NULL) {
  if (!is_whole(x, min)) {
    cli::cli_abort(c(
      "{.arg {arg}} must be a whole number from {min} to {(.Machine$integer.max)}, not {.val {format_value(x)}}.",
      i = hint %||% if (is.character(x) && length(x) == 1L) "That is a string: give the number without quotes."
    ), call = call)
  }
  invisible(as.integer(x))
}

# A short description of a value for an error message.
format_value <- function(x) {
  if (is.null(x)) return("NULL")
  if (!is.atomic(x)) return(paste0("a ", class(x)[1L]))
  if (length(x) != 1L) return(paste0("a vector of length ", length(x)))
  # (The value itself: cli's {.val} quotes a string, not a number.)
  if (is.numeric(x) || is.logical(x) || is.character(x)) return(unclass(x))
  format(x)
}

# x at `rows` (distinct row numbers within 1..length(x)): x itself, not a
# copy, when they are all of its rows.
at_rows <- function(x, rows) if (length(rows) == length(x)) x else x[rows]

# The union of sets of distinct row numbers within 1..n, in increasing order
# (no vector longer than n made).
row_union <- function(sets, n) {
  if (any(lengths(sets) == n)) return(seq_len(n))
  if (length(sets) == 1L) return(sort(sets[[1L]]))
  mark <- logical(n)
  for (r in sets) mark[r] <- TRUE
  which(mark)
}

# The background rows of `data` (no copy when they are all its rows).
background_rows <- function(data, rows) {
  if (length(rows) == nrow(data)) data else data[rows, , drop = FALSE]
}

`%||%` <- function(a, b) if (is.null(a)) b else a

# A warning that names the user's call: `call` (an entry point's frame, or
# a call) as the call the user wrote, with the function's name where it was
# called through do.call() or as a function object (which R would print as
# "In (function (x, ...").
mp_warn <- function(message, call, ..., .envir = parent.frame()) {
  cli::cli_warn(message, call = user_call(call), ..., .envir = .envir)
}

user_call <- function(call) {
  # (rlang's call of a frame: the generic's for a method's frame.)
  cl <- if (is.environment(call)) rlang::error_call(call) else call
  if (!is.call(cl) || is.symbol(cl[[1L]]) || !is.function(cl[[1L]])) return(cl)
  ns <- asNamespace("modelprofiles")
  for (fn in getNamespaceExports(ns)) {
    if (identical(cl[[1L]], get(fn, envir = ns))) {
      cl[[1L]] <- as.name(fn)
      return(cl)
    }
  }
  cl[[1L]] <- as.name("<function>")
  cl
}

# An argument's old name, accepted for one release: a warning (classes
# "modelprofiles_deprecated" and base R's "deprecatedWarning") naming the
# new one, and the value to use (the old name's); both names given is an
# error.
deprecated_arg <- function(old, new, value, new_given, call) {
  if (new_given) {
    cli::cli_abort("{.arg {old}} is the old name of {.arg {new}}; give {.arg {new}} only.", call = call)
  }
  mp_warn("{.arg {old}} is deprecated; use {.arg {new}}.", call,
          class = c("modelprofiles_deprecated", "deprecatedWarning"))
  value
}

# `x` of class `class` when it is a list with the fields `required` (an
# internal error otherwise: results are made by the package only).
validate_result <- function(x, class, required) {
  if (!is.list(x) || is.object(x)) {
    stop("internal error: an ", class, " is made from a plain list", call. = FALSE)
  }
  absent <- setdiff(required, names(x))
  if (length(absent)) {
    stop("internal error: an ", class, " lacks ", paste(absent, collapse = ", "), call. = FALSE)
  }
  structure(x, class = class)
}
