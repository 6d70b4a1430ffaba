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
#'   `data` argument); `profile$rows` are its rows. By default `data`. Its
#'   rows `profile$rows` must hold the profile's background values
#'   (`profile$observed`): a profile of test rows with refits on training
#'   rows needs `background` = the test rows, and a mismatch is an error.
#' @param predict_function `NULL` (each refitted model's own default) or a
#'   function `function(model, newdata)`; a predict function given to
#'   [model_profile()] is not reused, since it may hold the original model.
#' @param B Number of refits.
#' @param level Confidence level of the bands.
#' @param seed `NULL` or a number for reproducible resamples (and random
#'   numbers in `refit`, such as a forest's).
#' @details Each refitted model must predict what the profiled one did:
#'   the same kind of model (regression, or classification with its
#'   probabilities), the same profiled classes, as many outputs. A refit
#'   that returns another kind (a classifier for a regression, a model of
#'   other classes, classes instead of probabilities) is an error, since its
#'   profiles would be on another scale than the profile's.
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
  check_refit_background(profile, background, call)
  bands <- band_values("bootstrap", level, B, call)
  bg <- background[profile$rows, , drop = FALSE]
  run <- function(idx) {
    model <- refit(data[idx, , drop = FALSE])
    refit_profile(profile, model, bg, predict_function)
  }
  draws <- function() lapply(seq_len(bands$B), function(b) sample.int(nrow(data), replace = TRUE))
  out <- if (is.null(seed)) run_refits(draws(), run) else with_seed(seed, run_refits(draws(), run))
  for (b in seq_along(out)) check_refit_kind(profile, out[[b]], b, call)
  R <- do.call(cbind, lapply(out, `[[`, "yhat"))
  if (!is.matrix(R) || nrow(R) != nrow(profile$agr_profiles)) {
    cli::cli_abort("The refitted models' profiles do not match {.arg profile}'s rows.", call = call)
  }
  lim <- band_limits(profile$agr_profiles$`_yhat_`, bands$level, reps = R)
  profile$agr_profiles$`_se_` <- NULL
  profile$agr_profiles$`_lower_` <- as.vector(lim$lower)
  profile$agr_profiles$`_upper_` <- as.vector(lim$upper)
  profile$bands <- list(type = "refit", level = bands$level, B = bands$B)
  profile$replicates <- R
  new_mp_profile(profile)
}

# The refits, as futures under the user's plan when future is installed
# (each with its own random-number stream, drawn from the caller's), with
# progress; a list of the profiles' `_yhat_`.
run_refits <- function(draws, run) {
  progress <- new_progress(length(draws))
  fs <- if (requireNamespace("future", quietly = TRUE)) lapply(draws, function(idx) {
    future::future(run(idx), seed = TRUE, packages = "modelprofiles",
                   globals = list(run = run, idx = idx))
  })
  lapply(seq_along(draws), function(b) {
    on.exit(tick(progress))
    if (is.null(fs)) run(draws[[b]]) else future::value(fs[[b]])
  })
}

# `background` must be the data the profile was computed from: its rows
# profile$rows hold the profile's background values (profile$observed) of
# the profiled variables, value for value (missing where they are).
check_refit_background <- function(profile, background, call) {
  why <- "{.arg background} must be the data frame {.arg profile} was computed from (the {.arg data} of {.fn model_profile})."
  if (!is.data.frame(background)) {
    cli::cli_abort(c(why, x = "It is {.cls {class(background)[1L]}}, not a data frame."), call = call)
  }
  if (nrow(background) < max(profile$rows)) {
    cli::cli_abort(c(why, x = "It has {nrow(background)} rows; {.arg profile} used rows up to {max(profile$rows)}."),
                   call = call)
  }
  absent <- setdiff(profile$variables, names(background))
  if (length(absent)) {
    cli::cli_abort(c(why, x = "It has no column {.field {absent}}."), call = call)
  }
  obs <- profile$observed
  if (is.null(obs)) return(check_other_columns(profile, background, why, call))
  for (v in intersect(profile$variables, names(obs))) {
    mine <- background[[v]][profile$rows]
    theirs <- obs[[v]]
    bad <- which(!same_values(mine, theirs))
    if (length(bad)) {
      i <- bad[1L]
      cli::cli_abort(c(
        why,
        x = "Its rows {.code profile$rows} differ from the profile's background rows in {.field {v}}: {length(bad)} of {length(theirs)} value{?s} (the first in row {profile$rows[i]}: {format_cell(mine[i])} in {.arg background}, {format_cell(theirs[i])} in the profile).",
        i = "Give the profiled rows as {.arg background} (by default it is {.arg data}, the training rows)."
      ), call = call)
    }
  }
  check_other_columns(profile, background, why, call)
}

# Are x and y (a column, and the same column as kept in a profile) the same
# value for value, missing where they are? Numbers (and dates, times) as
# numbers, anything else as text.
same_values <- function(x, y) {
  if (length(x) != length(y)) return(rep(FALSE, max(length(x), length(y))))
  num <- function(v) (is.numeric(v) || inherits(v, c("Date", "POSIXt", "difftime"))) && !is.factor(v)
  as_ <- if (num(x) && num(y)) as.double else as.character
  a <- as_(x)
  b <- as_(y)
  (is.na(a) & is.na(b)) | (!is.na(a) & !is.na(b) & a == b)
}

format_cell <- function(x) if (is.na(x)) "NA" else format(x, digits = 8)

# A refit's profile (refit_profile()) must be of the kind of `profile`:
# the same task (when known), classes and number of outputs.
check_refit_kind <- function(profile, r, b, call) {
  kind <- function(task, class, n) {
    what <- if (length(class)) {
      paste0("the probabilit", if (length(class) > 1L) "ies" else "y", " of class",
             if (length(class) > 1L) "es", " ", paste0("\"", class, "\"", collapse = ", "))
    } else {
      "one number per row"
    }
    paste0(what, if (!is.null(task)) paste0(" (", task, ")"), ", ", n, " profile", if (n != 1L) "s", " per variable")
  }
  same <- identical(r$class, profile$class) && identical(r$n_labels, length(profile$labels)) &&
    (is.null(profile$task) || identical(r$task, profile$task))
  if (same) return(invisible())
  cli::cli_abort(c(
    "The model that {.arg refit} returned in refit {b} predicts another kind of thing than the profiled model.",
    x = "Refit {b}: {kind(r$task, r$class, r$n_labels)}; {.arg profile}: {kind(profile$task, profile$class, length(profile$labels))}.",
    i = "{.arg refit} must return a model of the profiled model's kind, whose predictions are on the profile's scale."
  ), call = call)
}

# The profile of `model` with the settings of `profile`, on its background
# rows `bg`: list(yhat (its `_yhat_`, in the order of profile$agr_profiles,
# or NULL when its rows differ), task, class, n_labels (what it predicts)).
refit_profile <- function(profile, model, bg, predict_function) {
  s <- profile$settings
  numeric_vars <- profile$variables[vapply(profile$variables, function(v) {
    column_kind(bg[[v]]) == "numeric"
  }, logical(1))]
  splits <- if (s$type != "accumulated") profile$grids else if (s$method == "interval") profile$grids[numeric_vars]
  p <- refit_model_profile(
    model, bg, predict_function = predict_function, variables = profile$variables, type = s$type,
    N = NULL, method = s$method, bandwidth = profile$bandwidth, keep_ice = FALSE,
    grid = profile_grids(points = s$grid_points, splits = splits, intervals = s$intervals,
                         level_order = s$level_order, na_level = s$na_level),
    weights = profile$weights,
    class = profile$class, label = profile$label
  )
  kind <- list(task = p$task, class = p$class, n_labels = length(p$labels))
  if (!identical(nrow(p$agr_profiles), nrow(profile$agr_profiles))) return(c(list(yhat = NULL), kind))
  c(list(yhat = p$agr_profiles$`_yhat_`), kind)
}

# model_profile() of a refitted model, its messages muffled; its error
# (a model that predicts classes, or not the profiled classes) says that a
# model `refit` returned failed, and why.
refit_model_profile <- function(model, ...) {
  tryCatch(suppressMessages(model_profile(model, ...)), error = function(e) {
    cli::cli_abort(c(
      "The model that {.arg refit} returned cannot be profiled as {.arg profile} was.",
      i = "{.arg refit} must return a model of the profiled model's kind, whose predictions are on the profile's scale."
    ), parent = e, call = NULL)
  })
}

# The columns of `background` other than the profiled ones (which the model
# may use) against the profile's fingerprints of them.
check_other_columns <- function(profile, background, why, call) {
  prints <- profile$background_prints
  changed <- names(prints)[vapply(names(prints), function(v) {
    !v %in% names(background) || !same_print(column_print(background[[v]], profile$rows), prints[[v]])
  }, logical(1))]
  changed <- setdiff(changed, profile$variables)
  if (length(changed)) {
    cli::cli_abort(c(
      why,
      x = "Its rows {.code profile$rows} differ from the profile's background rows in {.field {changed}}, which the model may use.",
      i = "Give the profiled rows as {.arg background} (by default it is {.arg data}, the training rows)."
    ), call = call)
  }
  invisible()
}

# A column's fingerprint at `rows` (NULL: all): position-weighted sums of
# its numbers (of a factor's levels, of a string's characters) and its
# number of missing values, from which a changed background column is told
# (refit_bands()). In blocks of rows: no vector of the column's length.
column_print <- function(x, rows = NULL) {
  chars <- is.character(x) || is.factor(x)
  if (!chars) {
    fast <- numeric_column_print(x, rows)
    if (!is.null(fast)) return(fast)
  }
  lv <- if (chars) sort(unique(as.character(if (is.null(rows)) x else x[rows])))
  n <- if (is.null(rows)) length(x) else length(rows)
  out <- c(0, 0, 0)
  for (s in seq(1L, max(n, 1L), by = print_block_rows)) {
    i <- seq.int(s, min(n, s + print_block_rows - 1L))
    xi <- if (is.null(rows)) x[i] else x[rows[i]]
    z <- if (chars) nchar(as.character(xi), "bytes") + match(as.character(xi), lv) else as.double(unclass(xi))
    na <- is.na(z)
    z[na] <- 0
    out <- out + c(sum(z), sum(z * (1 + (i %% 7))), sum(na))
  }
  out
}

# The fingerprints of the columns of `data` at `rows`, by column name.
background_prints <- function(data, rows) {
  if (length(rows) == nrow(data) && !is.unsorted(rows, strictly = TRUE)) rows <- NULL
  lapply(data, column_print, rows = rows)
}

same_print <- function(a, b) isTRUE(all.equal(a, b, tolerance = 1e-10))
