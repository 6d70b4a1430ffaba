# The engine as a plan: which engine makes a request's predictions, chosen
# for the setup once (prepare_engine()) and decided for a request here
# alone (estimators ask request_engine(), request_chunk_rows() and
# row_order(), never the setup's engines):
# - "native": the setup's compiled tree ensemble (R/engine_native.R), for
#   a request that allows it (`native`);
# - "linear": the setup's linear predictor (R/engine_linear.R), for the ICE
#   curves of one of its variables (`cols`, NULL for any) of a request
#   that allows them (`linear`);
# - "predict": the predict function, through the executor's stacked rows
#   (R/executor.R).
request_engine <- function(setup, native = TRUE, linear = FALSE, cols = NULL) {
  if (native && !is.null(setup$native)) return("native")
  if (linear && !is.null(setup$linear) &&
      (is.null(cols) || (length(cols) == 1L && names(setup$data)[cols] %in% setup$linear$variables))) {
    return("linear")
  }
  "predict"
}

# A specification's predictions (evaluate_chunk(), R/executor.R) from the
# engine request_engine() gives, or NULL for the predict function (the band
# plan's per-tree walks, tree_spec(), are the native engine's alone).
direct_predictions <- function(setup, req, spec) {
  if (spec$kind == "trees") return(native_trees(setup, spec))
  engine <- request_engine(setup, req$native, req$linear && spec$kind == "curve", spec$cols)
  if (engine == "native") {
    if (spec$kind == "sums") return(native_walk(setup, spec$cols, spec$grid, spec$rows, spec$w))
    if (spec$kind == "observed") return(native_observed(setup, spec))
    if (spec$kind == "curve" && length(spec$cols) <= 2L) {
      return(native_walk(setup, spec$cols, spec$grid, spec$rows))
    }
    s <- as_stacked(spec)
    return(native_predict_stacked(setup, expand(s$rows), s$cols, lapply(s$values, expand)))
  }
  if (engine == "linear") return(linear_ice(setup, spec$cols, spec$grid[[1L]], spec$rows))
  NULL
}

# The setup's engines (new_setup()): engine "auto" or "native" (see
# model_profile()) tries the linear predictor (where `linear` allows it),
# then the compiled tree ensemble; a setup has at most one of the two. The
# native and linear engines stand in for the adapter's own predict
# function only: a function the user wrote is the model.
prepare_engine <- function(setup, engine, linear) {
  own <- is_default_predictor(setup$predict_function)
  if (engine == "native" && !own) {
    cli::cli_abort(c(
      "The native engine stands in for the model's own predict function only, not for {.arg predict_function}.",
      i = "Leave out {.arg predict_function}, or use {.code engine = \"predict\"}."
    ), call = setup$error_call)
  }
  if (own && engine != "predict") {
    if (linear) setup$linear <- linear_prepare(setup)
    if (is.null(setup$linear)) setup$native <- native_prepare(setup, engine, setup$error_call)
    if (!is.null(setup$linear) || !is.null(setup$native)) setup$engine <- "native"
  }
  setup
}

# The native engine's predictions at background rows `rows` (the probe of
# the outputs, probe_outputs()), or NULL without it.
engine_probe <- function(setup, rows) {
  if (!is.null(setup$native)) native_eval(setup$native$model, setup$native$X, rows)
}

# Bytes the native engine holds (chunk_memory()), or NULL without it: per
# stacked row (its predictions, their copy, a value and a source row) and
# for the call (the compiled model and its leaves).
engine_bytes <- function(setup) {
  nat <- setup$native
  if (!is.null(nat)) list(row = native_row_bytes * (setup$n_columns + 2), held = nat$bytes + nat$leaves_bytes)
}

# The chunk size of a request: the budget's for the native and linear
# engines, capped for predict().
request_chunk_rows <- function(setup, native = TRUE, linear = FALSE) {
  if (request_engine(setup, native, linear) != "predict") setup$chunk_rows_direct else setup$chunk_rows_predict
}

# Order of the rows of a request's ICE curves: "observation" (each row
# repeated over the grid: fewest predict() calls, fastest for trees) for
# the native and linear engines, tree ensembles and fewer than
# grid_order_rows rows, else "grid" (one predict() call per grid value over
# rows whose other columns are shared); option modelprofiles.row_order
# overrides.
row_order <- function(setup, n, native = TRUE, linear = FALSE) {
  if (request_engine(setup, native, linear) != "predict") return("observation")
  opt <- getOption("modelprofiles.row_order", "auto")
  if (!identical(opt, "auto")) return(match.arg(opt, c("observation", "grid")))
  if (setup$adapter$tree || n < grid_order_rows) "observation" else "grid"
}

# Are the linear engine's curves the predictions themselves (an identity
# link: intercept and slope, with no table of the curves)?
linear_identity <- function(setup) isTRUE(setup$linear$identity)
