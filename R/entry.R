# The start that the entry points share (model_profile(),
# model_profile_2d(), compare_profiles(), h_statistic(),
# hidden_interactions(), find_regions()), in one place
# (tools/house-rules.R checks that every entry point calls it).

# In order: no unknown argument in `dots` and `x` given (check_entry(),
# naming `fn`'s help page), the deprecated `level` and `B` (one warning),
# `engine`, the seed set (seed_call()), the inputs (setup_inputs()) and
# the band setting of `bands` among `types` (check_bands(); none for an
# entry point without `bands`). `env` is the
# entry point's frame, for errors. Returns list(inputs, engine,
# restore_seed): the entry point registers
# `on.exit(start$restore_seed(), add = TRUE)` at once, so that it owns its
# exit; should a check here fail after the seed was set, the seed is put
# back here.
start_call <- function(fn, env, dots, x, data, predict_function, label, weights, threads, memory_budget,
                       seed, engine, bands = NULL, types = NULL, level = NULL, B = NULL) {
  check_entry(missing(x), length(dots), names(dots), fn, env)
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
