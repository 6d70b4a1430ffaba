#' Ceteris-paribus profiles of chosen observations
#'
#' `predict_profile()` computes the ceteris-paribus (what-if, ICE) profiles
#' of one or a few observations: for each profiled variable, the model's
#' prediction for the observation with that variable set to each value of a
#' grid and the others kept as they are (chapter 10 of *Explanatory Model
#' Analysis*). It is the counterpart of `DALEX::predict_profile()` and
#' `ingredients::ceteris_paribus()`, and gives their numbers.
#'
#' The grid of each variable is made from the background rows `data` (an
#' explainer's by default), as ingredients makes it: for a numeric variable
#' `grid_points` evenly spaced values from its minimum to its maximum
#' (`variable_splits_type = "uniform"`, DALEX's default) or the distinct
#' quantiles (`quantile(x, seq(0, 1, length.out = grid_points))`,
#' `"quantiles"`, ingredients' default); for another variable its sorted
#' distinct values. With `variable_splits_with_obs = TRUE` the observations'
#' own values are added. An integer column is profiled as a double column
#' (its grid's type), as ingredients does.
#'
#' @param x A fitted model, or a DALEX explainer (from `DALEX::explain()`).
#' @param new_observation A data frame (or a matrix with column names) of
#'   the observations to profile: one row or several.
#' @param variables Names of the variables to profile; `NULL` for every
#'   column of `new_observation` that is in `data`.
#' @param data The background rows the grids are made from (an explainer's
#'   data by default). Not needed when `variable_splits` gives every grid.
#' @param predict_function,label,class,engine As for [model_profile()].
#' @param grid_points Number of grid points of a numeric variable.
#' @param variable_splits_type `"uniform"` (DALEX's default) or
#'   `"quantiles"` (ingredients' default).
#' @param variable_splits `NULL` or a named list of grids, used as given.
#' @param variable_splits_with_obs Add the observations' own values to the
#'   grids?
#' @param type `"ceteris_paribus"`, DALEX's name of these profiles (the only
#'   type).
#' @param ... Arguments of the method (`predict_profile.default()` serves
#'   models and explainers alike); every name in full.
#' @returns The profiles as ingredients' `ceteris_paribus_explainer` table, a
#'   data frame of class `c("mp_ice", "ceteris_paribus_explainer",
#'   "data.frame")` (see [mp_ice]) with a row per grid point of each
#'   variable and observation: DALEX's long columns `_vname_`, `_label_`,
#'   `_ids_` (the row name of the observation), `_x_`, `_yhat_`, and a column
#'   per profiled variable (the grid value on its own profile, the
#'   observation's value on the others'); attribute `"observations"` holds
#'   `new_observation` with its predictions (`_yhat_`), `_label_` and
#'   `_ids_`. `plot()` draws the profiles with each observation's point
#'   marked; `ingredients::show_observations()`, `show_rugs()` and
#'   `aggregate_profiles()` take it as they take ingredients' own.
#' @seealso [model_profile()] for profiles averaged over many rows.
#' @examples
#' fit <- lm(mpg ~ wt * hp + qsec, data = mtcars)
#' X <- mtcars[c("wt", "hp", "qsec")]
#' cp <- predict_profile(fit, X["Fiat 128", ], data = X, grid_points = 21)
#' head(cp)
#' plot(cp)
#' # Several observations, ingredients' quantile grid.
#' cp2 <- predict_profile(fit, X[c("Fiat 128", "Valiant"), ], "wt", data = X,
#'                        variable_splits_type = "quantiles")
#' attr(cp2, "observations")
#' @export
predict_profile <- function(x, ...) {
  env <- environment()
  if (missing(x)) cli::cli_abort("{.arg x} is missing: give a fitted model or a DALEX explainer.", call = env)
  # Every name exact before R matches them to the method's parameters
  # (`variable` would match four of them).
  check_arg_names(...names(), "predict_profile", env)
  UseMethod("predict_profile")
}

#' @rdname predict_profile
#' @export
predict_profile.default <- function(x, new_observation, variables = NULL, data = NULL, predict_function = NULL,
                            grid_points = 101, variable_splits_type = c("uniform", "quantiles"),
                            variable_splits = NULL, variable_splits_with_obs = FALSE, label = NULL,
                            class = NULL, engine = c("auto", "native", "predict"),
                            type = "ceteris_paribus", ...) {
  call <- rlang::current_env()
  # (The user's call, named by the generic, as rlang names `call`.)
  user_call <- rlang::frame_call(call)
  user_call[[1L]] <- quote(predict_profile)
  if (missing(new_observation)) {
    cli::cli_abort("{.arg new_observation} is missing: give the rows to profile, e.g. {.code data[1, ]}.", call = call)
  }
  if (!identical(type, "ceteris_paribus")) {
    cli::cli_abort(c("{.arg type} must be {.val ceteris_paribus}, not {.val {format_value(type)}}.",
                     i = "DALEX's other explanations of one observation are {.fn DALEX::predict_parts}'s."), call = call)
  }
  variable_splits_type <- arg_one(variable_splits_type, c("uniform", "quantiles"), "variable_splits_type", call)
  grid_points <- check_whole(grid_points, "grid_points", 2, call)
  check_flag(variable_splits_with_obs, "variable_splits_with_obs", call)
  obs <- observation_rows(new_observation, call)
  background <- data %||% unpack_explainer(x)$data
  if (!is.null(background)) background <- as.data.frame(background, stringsAsFactors = FALSE)
  # (The model, data and predict function checked as every entry point
  # checks them; the profiles are model_profile()'s of the observations.)
  rows <- if (nrow(obs) == 1L) c(1L, 1L) else seq_len(nrow(obs))
  inputs <- start_call("predict_profile", call, list(...), x, background %||% obs[rows, , drop = FALSE],
                       predict_function, label, NULL, NULL, getOption("modelprofiles.memory_budget", 256),
                       NULL, engine)$inputs
  g <- cp_grids(obs, background, variables, variable_splits, grid_points, variable_splits_type,
                variable_splits_with_obs, call, used = used_columns(inputs))
  obs <- g$obs
  ids <- rownames(obs)
  lacking <- setdiff(names(background), names(obs))
  # (A single row is profiled as two copies of it, the second dropped.)
  profile <- function(vars, splits) {
    withCallingHandlers(
      model_profile(x, data = obs[rows, , drop = FALSE], predict_function = predict_function, variables = vars,
                    N = NULL, variable_splits = splits, label = label, class = class, engine = engine,
                    weights = rep(1, length(rows)), keep_ice = TRUE),
      rlang_error = function(e) observation_failure(e, obs, lacking, user_call)
    )
  }
  res <- profile(g$variables, g$grids)
  blocks <- lapply(ice_blocks(ice_of(res)), function(b) {
    b <- block_rows(b, which(b$ids %in% seq_len(nrow(obs)) & !duplicated(b$ids)))
    b$ids <- ids[b$ids]
    # (No verdicts: the observations are not the data's support.)
    b$outside <- NULL
    b
  })
  cp <- new_mp_ice(blocks, obs, ids, res$grids)
  # The predictions at the observations: the first variable's profiles at
  # the observations' own values.
  v1 <- g$variables[1L]
  own <- obs[[v1]]
  at <- profile(v1, stats::setNames(list(unique(own)), v1))
  attr(cp, "observations") <- do.call(rbind, lapply(res$labels, function(l) {
    curves <- ice_curves_of(at, v1, l)
    o <- obs
    o$`_yhat_` <- curves$Y[cbind(match(own, unique(own)), match(seq_len(nrow(obs)), curves$ids))]
    o$`_label_` <- l
    o$`_ids_` <- seq_len(nrow(obs))
    o
  }))
  class(cp) <- c("mp_ice", "ceteris_paribus_explainer", "data.frame")
  cp
}

# The variables to profile (those of the observations `obs` that the
# background rows or `variable_splits` give a grid) and their grids (as
# ingredients makes them: cp_grid()); `obs` with its integer columns that
# are profiled as doubles (their grids' type), as ingredients profiles them.
# A name of no column is an error that lists those columns, of the model's
# (`used`, when known) only: not the observations' other columns.
cp_grids <- function(obs, background, variables, variable_splits, grid_points, splits_type, with_obs, call,
                     used = NULL) {
  if (!is.null(variable_splits) && (!is.list(variable_splits) || is.null(names(variable_splits)))) {
    cli::cli_abort("{.arg variable_splits} must be a named list of grids.", call = call)
  }
  if (is.null(background) && is.null(variable_splits)) {
    cli::cli_abort(c(
      "{.arg data} is needed for the grids: the rows the grids are made from.",
      i = "Give {.arg data} (e.g. the training rows) or the grids in {.arg variable_splits}."
    ), call = call)
  }
  known <- union(names(background), names(variable_splits))
  if (is.null(variables)) {
    variables <- intersect(names(obs), known)
    variables <- variables[vapply(variables, function(v) {
      !is.null(variable_splits[[v]]) || (column_kind(background[[v]]) != "unsupported" && varies(background[[v]]))
    }, logical(1))]
  } else {
    listed <- intersect(names(obs), known)
    if (!is.null(used)) listed <- intersect(listed, used)
    check_variables(variables, obs, call, listed = if (length(listed)) listed)
  }
  if (!length(variables)) cli::cli_abort("No column of {.arg new_observation} can be profiled.", call = call)
  no_grid <- setdiff(variables, known)
  if (length(no_grid)) {
    cli::cli_abort(c(
      "{.arg data} is needed for the grids of {.field {no_grid}}.",
      i = "Give {.arg data} (the rows the grids are made from) or the grids in {.arg variable_splits}."
    ), call = call)
  }
  grids <- lapply(stats::setNames(variables, variables), function(v) {
    variable_splits[[v]] %||% cp_grid(background[[v]], grid_points, splits_type, if (with_obs) obs[[v]])
  })
  for (v in variables) {
    if (is.integer(obs[[v]]) && !is.factor(obs[[v]]) && is.double(grids[[v]])) obs[[v]] <- as.double(obs[[v]])
  }
  list(variables = variables, grids = grids, obs = obs)
}

# ingredients' grid of a column: for numbers, the distinct quantiles (type
# 7) at grid_points evenly spaced probabilities, or grid_points evenly
# spaced values from the minimum to the maximum; else the sorted distinct
# values. `own`: values to add (the observations'), or NULL.
cp_grid <- function(x, grid_points, splits_type, own = NULL) {
  if (is.numeric(x) && !is.factor(x)) {
    z <- x[is.finite(x)]
    g <- if (splits_type == "quantiles") {
      unique(unname(stats::quantile(z, seq(0, 1, length.out = grid_points))))
    } else {
      seq(min(z), max(z), length.out = grid_points)
    }
    if (!is.null(own)) g <- sort(unique(c(g, stats::na.omit(as.double(own)))))
    return(g)
  }
  g <- sort(unique(x[!is.na(x)]))
  if (!is.null(own)) g <- sort(unique(c(g, own[!is.na(own)])))
  g
}

# The columns the model of `inputs` (or a setup) uses (NULL when its
# predict function is the user's, or they are not known).
used_columns <- function(inputs) {
  if (is_default_predictor(inputs$predict_function)) model_variables(inputs$model)
}

# An error of the model on the observations, said of them: a missing value
# or a column of `data` they lack (the model predicted `data`); else the
# error, in the user's call.
observation_failure <- function(e, obs, lacking, user_call) {
  na <- names(obs)[vapply(obs, anyNA, logical(1))]
  if (length(na)) {
    # (The model's own message counts the rows profiled and blames `data`.)
    cli::cli_abort(c(
      "The model cannot predict {.arg new_observation}: it has missing values in {.field {na}}.",
      i = "Give {.arg new_observation} a value in every column the model uses, or use {.arg engine} = {.val predict} if the model's own {.fn predict} handles missing values."
    ), call = user_call)
  }
  if (length(lacking)) {
    why <- if ("x" %in% names(e$body)) e$body[names(e$body) == "x"][1L] else conditionMessage(e)
    cli::cli_abort(c(
      "The model failed on {.arg new_observation}, which lacks column{?s} of {.arg data}: {.field {lacking}}.",
      x = "{why}",
      i = "Give {.arg new_observation} every column the model uses, e.g. rows of {.arg data}: {.code data[1, ]}."
    ), call = user_call)
  }
  e$call <- user_call
  rlang::cnd_signal(e)
}

# The observations to profile: a data frame with at least one row, named
# columns and row names.
observation_rows <- function(new_observation, call) {
  if (is.matrix(new_observation)) {
    if (is.null(colnames(new_observation))) {
      cli::cli_abort("{.arg new_observation} is a matrix without column names; name its columns.", call = call)
    }
    new_observation <- as.data.frame(new_observation, stringsAsFactors = FALSE)
  }
  if (!is.data.frame(new_observation)) {
    cli::cli_abort("{.arg new_observation} must be a data frame (e.g. {.code data[1, ]}), not {.obj_type_friendly {new_observation}}.", call = call)
  }
  if (!nrow(new_observation)) cli::cli_abort("{.arg new_observation} has no rows.", call = call)
  as.data.frame(new_observation, stringsAsFactors = FALSE)
}
