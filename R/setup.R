# The setup of a call: what every entry point validates and samples once,
# with the same code, before any estimator runs. Three steps:
#
# setup_inputs()  model, data, predict function, adapter, label, weights,
#                 threads and memory budget, from an explainer or the
#                 arguments;
# setup_rows()    the background rows (N drawn, rows of weight 0 left out)
#                 and, for bootstrap bands, the resamples;
# new_setup()     the immutable "mp_setup": the background columns and
#                 weights, the engine, the profiled outputs (classes) and
#                 the chunking policy.
#
# The entry points check their own arguments between these steps, so that
# every error names the user's call: `inputs$error_call` and
# `setup$error_call` are the entry point's frame (cli's `call =`, and the
# key of the per-call caches, R/executor_cost.R); a result's `$call` is the
# user's call itself.

setup_inputs <- function(x, data, predict_function, label, weights, threads, memory_budget, call) {
  # The call's compiled models (native_compile_cached()), from
  # compile_model() or compiled once in the call.
  compiled <- if (inherits(x, "mp_compiled")) x
  if (!is.null(compiled)) x <- compiled$model
  inputs <- resolve_inputs(x, data, predict_function, label, call)
  inputs$compiled <- native_store(compiled)
  inputs$weights <- resolve_weights(weights, x, inputs$data, call)
  inputs$threads <- resolve_threads(threads, call)
  inputs$memory_budget <- check_budget(memory_budget, call)
  inputs$error_call <- call
  inputs
}

setup_rows <- function(inputs, N, seed) {
  draw <- function() {
    rows <- weighted_rows(sample_rows(nrow(inputs$data), N, NULL), inputs$weights, inputs$error_call)
    # The bootstrap's resamples follow the draw of the rows in one stream.
    if (identical(inputs$bands$type, "bootstrap")) {
      check_resamples_budget(length(rows), inputs$bands$B, inputs$memory_budget, inputs$error_call)
      attr(rows, "resamples") <- draw_resamples(length(rows), inputs$bands$B)
    }
    rows
  }
  if (is.null(seed)) draw() else with_seed(seed, draw())
}

# engine: "auto", "native" or "predict" (see model_profile()); linear: may
# the linear engine give PD curves?
new_setup <- function(inputs, rows, class = NULL, engine = "predict", linear = FALSE) {
  call <- inputs$error_call
  background <- unclass_frame(background_rows(inputs$data, rows))
  setup <- list(
    model = inputs$model, adapter = inputs$adapter, predict_function = inputs$predict_function,
    label = inputs$label, error_call = call, threads = inputs$threads,
    memory_budget = inputs$memory_budget, data = background, n = length(rows), rows = rows,
    weights = if (is.null(inputs$weights)) rep(1, length(rows)) else as.double(at_rows(inputs$weights, rows)),
    weighted = !is.null(inputs$weights), native = NULL, linear = NULL, engine = "predict",
    compiled = inputs$compiled,
    bands = band_plan(inputs$bands %||% no_bands()), resamples = attr(rows, "resamples")
  )
  if (!is.null(attr(setup$rows, "resamples"))) attr(setup$rows, "resamples") <- NULL
  setup <- scale_weights(setup)
  setup <- prepare_engine(setup, engine, linear)
  y <- probe_outputs(setup)
  setup$call_seconds <- attr(y, "seconds")
  setup$n_columns <- ncol(y)
  setup$outputs <- select_outputs(y, class, call, setup$adapter$positive)
  setup$n_outputs <- length(setup$outputs$columns)
  setup$memory_budget <- floor_budget(setup)
  setup <- c(setup, chunk_policy(setup))
  structure(setup, class = "mp_setup")
}

# The setup with `bytes` of its memory budget held by what a call keeps
# (ICE curves, ...): its chunks sized for the rest (at least half the
# budget; what is kept never takes more).
reserve_memory <- function(setup, bytes) {
  if (bytes <= 0 || !is.finite(setup$memory_budget)) return(setup)
  rest <- setup
  rest$memory_budget <- max(budget_bytes(setup, "kept_rest"), budget_bytes(setup) - bytes) / 2^20
  pol <- chunk_policy(rest)
  setup[names(pol)] <- pol
  setup
}

# The predictions of two probe rows (not counted; only their shape is
# used), which decide the outputs to profile: rows without missing values
# where there are such (a model's predict() may refuse them). Attribute
# "seconds": the time they took, the cost model's cost per call of the
# predict function (R/executor_cost.R).
probe_outputs <- function(setup) {
  first <- seq_len(min(setup$n, 1000L))
  complete <- which(do.call(stats::complete.cases, unname(lapply(setup$data, `[`, first))))
  probe <- if (length(complete)) utils::head(complete, 2L) else seq_len(min(setup$n, 2L))
  t0 <- proc.time()[[3L]]
  y <- engine_probe(setup, probe) %||%
    probe_predict(setup$predict_function, setup$model, stack_frame(setup$data, probe, threads = setup$threads),
                  setup$error_call)
  seconds <- proc.time()[[3L]] - t0
  y <- check_predictions(y, length(probe), call = setup$error_call, allow_na = TRUE,
                         classifier = identical(setup$adapter$task, "classification"))
  structure(y, seconds = seconds)
}

# The first call of the predict function: its error is the user's first
# sight of a model that does not fit the data, so it says so.
probe_predict <- function(predict_function, model, newdata, call) {
  tryCatch(predict_function(model, newdata), error = function(e) {
    no_method <- grepl("no applicable method for 'predict'", conditionMessage(e), fixed = TRUE)
    cli::cli_abort(c(
      "The predict function failed on rows of {.arg data}.",
      x = conditionMessage(e),
      i = if (no_method) {
        "A {.cls {class(model)[1L]}} object has no {.fn predict} method: give {.arg predict_function}, a {.code function(model, newdata)} returning one number per row."
      } else {
        "Does {.arg data} hold every column the model uses, with the types it was fitted on?"
      }
    ), call = call)
  })
}

# Chunk sizes, in stacked rows: the budget's "chunk" share, through
# predict() at most max_chunk_rows, at least chunk_floor(). What the call
# holds (chunk_memory()) comes off the budget first, leaving its
# "chunks_least" share at least. Under a plan, a future carries the rows of
# up to 4 budget-sized chunks (at most max_chunks_per_future).
chunk_policy <- function(setup) {
  mem <- chunk_memory(setup)
  avail <- max(budget_bytes(setup) - mem$held, budget_bytes(setup, "chunks_least"))
  least <- chunk_floor()
  rows <- function(bytes) min(.Machine$integer.max, max(1, least, floor(budget_part(avail, "chunk") / bytes)))
  budget_rows <- rows(mem$predict_row)
  predict_rows <- min(budget_rows, max_chunk_rows)
  direct_rows <- if (is.null(mem$native_row)) budget_rows else rows(mem$native_row)
  # (At least gc_min_bytes: a collection takes tens of milliseconds, and
  # below that R's own collections keep the garbage small.)
  gc_bytes <- max(budget_part(avail, "garbage"), gc_min_bytes)
  list(chunk_rows_direct = direct_rows, chunk_rows_predict = predict_rows, gc_bytes = gc_bytes,
       row_bytes = mem$predict_row,
       per_future = min(max_chunks_per_future, as.integer(4 * budget_rows %/% predict_rows)))
}

# Stacked rows per chunk at least: min_chunk_rows, or the option
# modelprofiles.min_chunk_rows (internal: the tests set it to 0, no floor,
# to exercise many chunks of small data with small budgets).
chunk_floor <- function() getOption("modelprofiles.min_chunk_rows", min_chunk_rows)

# What chunk_policy() counts, in bytes: a stacked row through predict()
# (the adapter's count) and of the native engine (NULL without it), and
# what the call holds besides the chunks (the background's weights and the
# native engine's compiled model and leaves).
chunk_memory <- function(setup) {
  bytes <- vapply(setup$data, column_bytes, numeric(1))
  eng <- engine_bytes(setup)
  list(predict_row = adapter_row_bytes(setup$adapter, bytes), native_row = eng$row,
       held = 8 * setup$n + (eng$held %||% 0))
}

# The memory budget a call uses, in MiB: the user's, or, when that is less
# than chunks of chunk_floor() stacked rows need (chunk_policy()), that
# need (to 3 significant digits), with a warning: tiny chunks would make
# the call pay predict()'s fixed cost per call thousands of times over, to
# save a few MiB. The raised budget is the call's for everything it bounds
# (not the native engine's leaves, decided before).
floor_budget <- function(setup) {
  mem <- chunk_memory(setup)
  least <- chunk_floor()
  chunk <- 3 * least * max(mem$predict_row, mem$native_row)
  need <- min(mem$held + chunk, 4 * chunk) / 2^20
  if (setup$memory_budget >= need || need <= 0) return(setup$memory_budget)
  unit <- 10^(floor(log10(need)) - 2)
  used <- ceiling(need / unit) * unit
  cli::cli_warn(c(
    "{.arg memory_budget} = {format(setup$memory_budget)} MiB is less than a chunk of {format(least, big.mark = \",\")} rows to predict needs; used {format(used)} MiB instead.",
    i = "The numbers do not depend on the budget; smaller chunks would only be slower."
  ), call = setup$error_call)
  used
}

column_bytes <- function(x) {
  switch(typeof(x), double = 8, integer = 4, logical = 4, character = 8, 8)
}

# Labels of the profiled outputs: the label, or `<label>.<class>` per class
# of a multiclass model (or when several classes are chosen).
output_labels <- function(setup, label = setup$label) {
  if (isTRUE(setup$outputs$suffix)) paste0(label, ".", setup$outputs$classes) else label
}

