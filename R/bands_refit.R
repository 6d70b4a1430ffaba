#' Bands that include the model's uncertainty: refit on bootstrap resamples
#'
#' `refit_bands()` refits the model `B` times on resamples of its training
#' data, with your `refit` function, recomputes the same profile for each
#' refitted model (the same background rows, grids, AL edges, bandwidths,
#' weights and classes) and gives the profile percentile bands over the
#' refits (as the `ale` package's model bootstrap does). Unlike
#' `bands = "bootstrap"` of [model_profile()], which holds the model fixed
#' and makes no extra prediction, these bands include how the fitted model
#' itself varies with its training data; each refit costs a fit and a
#' profile. The refits run as futures under your [future::plan()] (when
#' future is installed), with progress shown through progressr.
#'
#' @param profile A [model_profile()] result without subgroups or clusters.
#' @param refit A function of one argument, a data frame of training rows,
#'   that returns a fitted model (for example
#'   `function(d) ranger::ranger(y ~ ., d, num.trees = 100)`).
#' @param data The training data that `refit` is given resamples of.
#' @param background The data frame the profile was computed from (its
#'   `data` argument); `profile$rows` are its rows. By default `data`.
#' @param predict_function `NULL` (each refitted model's own default) or a
#'   function `function(model, newdata)`; a predict function given to
#'   [model_profile()] is not reused, since it may hold the original model.
#' @param B Number of refits.
#' @param level Confidence level of the bands.
#' @param seed `NULL` or a number for reproducible resamples (and random
#'   numbers in `refit`, such as a forest's).
#' @returns `profile` with percentile bands over the refits: columns
#'   `_lower_` and `_upper_` of `agr_profiles`, `bands` (`type = "refit"`,
#'   `level`, `B`) and `replicates`, the profiles of the refitted models (a
#'   row per row of `agr_profiles`, a column per refit).
#' @seealso [profile_bands] for bands of the sampling uncertainty alone.
#' @examples
#' fit <- lm(mpg ~ wt + hp, data = mtcars)
#' pd <- model_profile(fit, mtcars[c("wt", "hp")], variables = "wt", grid_points = 10)
#' pd <- refit_bands(pd, function(d) lm(mpg ~ wt + hp, data = d), mtcars,
#'                   background = mtcars[c("wt", "hp")], B = 10, seed = 1)
#' plot(pd)
#' @export
refit_bands <- function(profile, refit, data, background = data, predict_function = NULL,
                        B = 50, level = 0.95, seed = NULL) {
  call <- rlang::current_env()
  if (!inherits(profile, "mp_profile")) {
    cli::cli_abort("{.arg profile} must be a {.fn model_profile} result.", call = call)
  }
  if (!is.null(profile$groups) || !is.null(profile$clusters)) {
    cli::cli_abort("{.fn refit_bands} takes profiles without subgroups or clusters.", call = call)
  }
  if (!is.function(refit)) cli::cli_abort("{.arg refit} must be a function of a data frame.", call = call)
  if (!is.data.frame(data) || nrow(data) < 2L) {
    cli::cli_abort("{.arg data} must be a data frame of training rows.", call = call)
  }
  if (!is.data.frame(background) || nrow(background) < max(profile$rows)) {
    cli::cli_abort("{.arg background} must be the data frame {.arg profile} was computed from.", call = call)
  }
  bands <- check_bands("bootstrap", level, B, call)
  bg <- background[profile$rows, , drop = FALSE]
  run <- function(idx) {
    model <- refit(data[idx, , drop = FALSE])
    refit_profile(profile, model, bg, predict_function)
  }
  draws <- function() lapply(seq_len(bands$B), function(b) sample.int(nrow(data), replace = TRUE))
  yhat <- if (is.null(seed)) run_refits(draws(), run) else with_seed(seed, run_refits(draws(), run))
  R <- do.call(cbind, yhat)
  if (!is.matrix(R) || nrow(R) != nrow(profile$agr_profiles)) {
    cli::cli_abort("The refitted models' profiles do not match {.arg profile}'s rows.", call = call)
  }
  lim <- band_limits(profile$agr_profiles$`_yhat_`, bands$level, reps = R)
  profile$agr_profiles$`_se_` <- NULL
  profile$agr_profiles$`_lower_` <- as.vector(lim$lower)
  profile$agr_profiles$`_upper_` <- as.vector(lim$upper)
  profile$bands <- list(type = "refit", level = bands$level, B = bands$B)
  profile$replicates <- R
  profile
}

# The refits, as futures under the user's plan when future is installed
# (each with its own random-number stream, drawn from the caller's), with
# progress; a list of the profiles' `_yhat_`.
run_refits <- function(draws, run) {
  progress <- new_progress(length(draws))
  if (!requireNamespace("future", quietly = TRUE)) {
    return(lapply(draws, function(idx) {
      on.exit(tick(progress))
      run(idx)
    }))
  }
  fs <- lapply(draws, function(idx) {
    future::future(run(idx), seed = TRUE, packages = "modelprofiles",
                   globals = list(run = run, idx = idx))
  })
  lapply(fs, function(f) {
    on.exit(tick(progress))
    future::value(f)
  })
}

# The profile of `model` with the settings of `profile`, on its background
# rows `bg`: its `_yhat_`, in the order of profile$agr_profiles.
refit_profile <- function(profile, model, bg, predict_function) {
  s <- profile$settings
  numeric_vars <- profile$variables[vapply(profile$variables, function(v) {
    column_kind(bg[[v]]) == "numeric"
  }, logical(1))]
  splits <- if (s$type != "accumulated") profile$grids else if (s$method == "interval") profile$grids[numeric_vars]
  p <- suppressMessages(model_profile(
    model, bg, predict_function = predict_function, variables = profile$variables, type = s$type,
    N = NULL, method = s$method, grid_points = s$grid_points, variable_splits = splits,
    intervals = s$intervals, bandwidth = profile$bandwidth, keep_ice = FALSE,
    level_order = s$level_order, na_level = s$na_level, weights = profile$weights,
    class = profile$class, label = profile$label
  ))
  if (!identical(nrow(p$agr_profiles), nrow(profile$agr_profiles))) return(NULL)
  p$agr_profiles$`_yhat_`
}
