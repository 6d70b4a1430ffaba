# The start that every entry point shares (tools/house-rules.R checks that
# each calls it).

# In order: no unknown argument in `dots` and `x` given (check_entry(),
# naming `fn`'s help page), the deprecated `level` and `B` (one warning),
# `engine`, the seed set (seed_call()), the inputs (setup_inputs()) and
# the band setting of `bands` among `types` (check_bands(); none for an
# entry point without `bands`). `env` is the entry point's frame, for
# errors. Returns list(inputs, engine, restore_seed): the entry point
# registers `on.exit(start$restore_seed(), add = TRUE)` at once, so that it
# owns its exit; should a check here fail after the seed was set, the seed
# is put back here.
start_call <- function(fn, env, dots, x, data, predict_function, label, weights, threads, memory_budget,
                       seed, engine, bands = NULL, types = NULL, level = NULL, B = NULL) {
  check_entry(missing(x), length(dots), names(dots), fn, env)
  # Names of the user's call that R matched partially to a parameter
  # (`variable` for `variables`): refused, with the hint.
  check_arg_names(names(rlang::frame_call(env))[-1L], fn, env)
  warn_band_args(bands, level, B, env)
  engine <- rlang::arg_match(engine, c("auto", "native", "predict"), error_arg = "engine", error_call = env)
  restore_seed <- seed_call(seed, env)
  started <- FALSE
  on.exit(if (!started) restore_seed(), add = TRUE)
  inputs <- setup_inputs(x, data, predict_function, label, weights, threads, memory_budget, env)
  if (!is.null(bands)) inputs$bands <- check_bands(bands, env, types, level, B)
  started <- TRUE
  list(inputs = inputs, engine = engine, restore_seed = restore_seed)
}

# The checks every entry point starts with: `x` given (`missing_x`), and
# no argument in `...` (n of them, named `names`) that no parameter took:
# an unknown name gets a hint to the argument it is close to (a prefix of
# it, as R's partial matching would take it, or a near miss).
check_entry <- function(missing_x, n, names, fn, call) {
  if (n > 0L) {
    names <- names %||% rep("", n)
    named <- names[!is.na(names) & nzchar(names)]
    cli::cli_abort(c(
      if (length(named)) "Unknown argument{?s}: {.arg {named}}.",
      if (length(named) < n) "{n - length(named)} argument{?s} given by position that no parameter takes; name {?it/them}.",
      arg_hints(named, entry_args(fn)),
      i = paste0("See {.help modelprofiles::", fn, "} for the arguments.")
    ), call = call)
  }
  if (missing_x) cli::cli_abort("{.arg x} is missing: give a fitted model or an explainer.", call = call)
  invisible()
}

# Names given to the entry point `fn` (`...names()` of model_profile(),
# before R matches them to a method) that are not exactly its arguments'
# (its methods' parameters and the names front_door() takes): an error
# (check_entry()), so that no name is partially matched to an argument.
check_arg_names <- function(names, fn, call) {
  bad <- names[!is.na(names) & nzchar(names) & !names %in% entry_args(fn)]
  if (length(bad)) check_entry(FALSE, length(bad), bad, fn, call)
  invisible()
}

# The argument names of the entry point `fn`: its (and its methods')
# parameters, and the names its front door takes (door_accepted).
entry_args <- function(fn) {
  ns <- asNamespace("modelprofiles")
  fns <- Filter(is.function, lapply(paste0(fn, c("", ".default", ".explainer")), get0, envir = ns, inherits = FALSE))
  setdiff(c(unlist(lapply(fns, function(f) names(formals(f)))), door_accepted[[fn]]), "...")
}

# "Did you mean" lines for unknown argument names (nearest_names()).
arg_hints <- function(unknown, known) {
  near <- lapply(unknown, nearest_names, known = known)
  has <- lengths(near) > 0L
  if (!any(has)) return(character())
  meant <- vapply(near[has], function(n) paste0("{.arg ", n, "}", collapse = " or "), character(1))
  stats::setNames(paste0("{.arg ", unknown[has], "} is not an argument; did you mean ", meant,
                         "? Names are matched in full."), rep("i", sum(has)))
}
