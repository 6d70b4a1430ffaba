# Settings objects of the entry points: the grids, the subgroups and the
# bands (its checks; the band plan and arithmetic are R/bands*.R).
# grid_settings() and group_settings() resolve a setting, with the fields
# DALEX's names and the old arguments gave (front_door(), R/dalex.R), into
# the plain list the estimators read.

#' Settings of grids and subgroups
#'
#' `profile_grids()` says where profiles are evaluated, `profile_groups()`
#' and `profile_clusters()` which subsets of the background rows get
#' profiles of their own. Give them as `grid` and `groups` to
#' [model_profile()] (and, where they apply, to [model_profile_2d()],
#' [compare_profiles()], [hidden_interactions()] and [find_regions()]), as
#' [profile_bands()] is given as `bands`. A field left `NULL` takes the
#' entry point's default (for example 101 grid points in [model_profile()]
#' and 21 in [model_profile_2d()]).
#'
#' @section DALEX's names:
#' DALEX's arguments of `model_profile()` are taken as they are, without a
#' warning, by every entry point where they apply: `grid_points` is
#' `grid = profile_grids(points = )`, `variable_splits_type` is
#' `profile_grids(type = )`, `variable_splits` is
#' `profile_grids(splits = )`, `groups = "column"` is
#' `profile_groups("column")`, and `k` and `center` are
#' `groups = profile_clusters(k, center)`.
#'
#' The package's own former arguments `intervals`, `level_order`,
#' `na_level`, `group_bins`, `min_group_size`, `group_title`, `al_shift`
#' and `cluster_center` still work for one release, with a warning that
#' says which field of which setting to use instead (as the entry points'
#' `level` and `B` do for [profile_bands()]).
#'
#' @param points Maximum number of grid points per numeric variable: a
#'   variable with at most that many distinct values is profiled at exactly
#'   those values.
#' @param type `"quantiles"`, `"uniform"` or `"distinct"` grids (see
#'   [profile_grid()], which computes one variable's grid), or, in
#'   [model_profile()], `"splits"` for a tree ensemble (ranger,
#'   randomForest, gbm, xgboost, lightgbm): every distinct value at which
#'   the model splits a numeric variable, within the data's range, and the
#'   range's ends. A tree ensemble's partial dependence changes only there,
#'   so such a profile is exact everywhere, and `plot()` draws it as steps;
#'   `points` is not used for such variables. An error for other models.
#' @param splits A named list of grids, one per variable, used as given
#'   (DALEX's `variable_splits`); for interval AL, the edges.
#' @param intervals Number of intervals K for the interval methods
#'   (ALEPlot's `K`). With ties, fewer intervals may result; the number used
#'   is in the result's `$intervals`.
#' @param level_order Order of the levels of a categorical variable in AL
#'   profiles: `"similarity"` (ALEPlot's order; see the section on AL for
#'   categorical variables of [model_profile()]) or `"levels"` (the factor's
#'   own order). Ordered factors and logical columns always keep their
#'   order.
#' @param na_level For categorical variables: treat missing values as a
#'   level of their own, the grid point `NA` (see the section on missing
#'   values of [model_profile()])?
#' @returns `profile_grids()`: a grid setting, a list of class `mp_grids`
#'   with the fields above (`NULL` where not given).
#' @seealso [profile_bands()], the setting of bands.
#' @examples
#' fit <- lm(mpg ~ wt * hp, data = mtcars)
#' X <- mtcars[c("wt", "hp", "cyl")]
#' model_profile(fit, X, variables = "wt", grid = profile_grids(points = 5, type = "uniform"))
#' model_profile(fit, X, variables = "wt", type = "accumulated", grid = profile_grids(intervals = 8))
#' # Subgroups of a column, and clusters of ICE curves.
#' model_profile(fit, X, variables = "wt", groups = profile_groups("cyl", bins = 2, min_size = 5))
#' model_profile(fit, X, variables = "wt", groups = profile_clusters(2))
#' # DALEX's names mean the same.
#' model_profile(fit, X, variables = "wt", grid_points = 5, variable_splits_type = "uniform")
#' @export
profile_grids <- function(points = NULL, type = NULL, splits = NULL, intervals = NULL,
                          level_order = NULL, na_level = NULL) {
  call <- rlang::current_env()
  new_setting(list(points = points, type = type, splits = splits, intervals = intervals,
                   level_order = level_order, na_level = na_level), "mp_grids", call)
}

#' @rdname profile_grids
#' @param by The subgroups: the name of a column of `data`, or a vector
#'   with one value per row of `data` (in [hidden_interactions()], several
#'   column names, or a named list of such vectors).
#' @param bins Number of quantile bins for a numeric column with more
#'   distinct values than that.
#' @param min_size Subgroups with fewer background rows are left out, with
#'   a message that names them.
#' @param title Name shown for a vector `by` (not a column) in legends;
#'   by default `"group"` in [model_profile()], and the expression given
#'   as `by` in [hidden_interactions()].
#' @param al_shift For AL profiles within subgroups: `"group"` (each on its
#'   subgroup's mean prediction) or `"common"` (all on the mean prediction
#'   over the rows of all subgroups shown, DALEX's convention, so that
#'   vertical offsets between subgroups are not read as effects).
#' @returns `profile_groups()`: a subgroup setting, a list of class
#'   `mp_groups` with `by`, `bins`, `min_size`, `title`, `al_shift` and
#'   `expr` (the expression given as `by`).
#' @export
profile_groups <- function(by, bins = NULL, min_size = NULL, title = NULL, al_shift = NULL) {
  call <- rlang::current_env()
  if (missing(by) || is.null(by)) {
    cli::cli_abort("{.arg by} is missing: give a column name or a vector with one value per row.", call = call)
  }
  out <- new_setting(list(by = by, bins = bins, min_size = min_size, title = title, al_shift = al_shift),
                     "mp_groups", call)
  out$expr <- deparse1(substitute(by))
  out
}

#' @rdname profile_grids
#' @param k Number of clusters of ICE curves (partial dependence only): see
#'   the section on clusters of [model_profile()].
#' @param center Cluster the ICE curves by their shape, each centred on its
#'   mean (`TRUE`, DALEX's default), or by their values (`FALSE`)?
#' @returns `profile_clusters()`: a cluster setting, a list of class
#'   `mp_clusters` with `k` and `center`.
#' @export
profile_clusters <- function(k, center = TRUE) {
  call <- rlang::current_env()
  if (missing(k)) cli::cli_abort("{.arg k} is missing: give a number of clusters.", call = call)
  new_setting(list(k = k, center = center), "mp_clusters", call)
}

#' @export
print.mp_grids <- function(x, ...) {
  print_setting(x, "mp_grids", "default grids")
}

#' @export
print.mp_groups <- function(x, ...) {
  x$by <- if (is.character(x$by) && length(x$by) <= 3L) x$by else x$expr
  x$expr <- NULL
  print_setting(x, "mp_groups", "")
}

#' @export
print.mp_clusters <- function(x, ...) {
  print_setting(x, "mp_clusters", "")
}

print_setting <- function(x, class, none) {
  given <- Filter(Negate(is.null), unclass(x))
  shown <- vapply(names(given), function(f) {
    v <- given[[f]]
    paste0(f, " = ", if (is.list(v)) paste0("<grids of ", paste(names(v), collapse = ", "), ">") else
      paste(format(v), collapse = ", "))
  }, character(1))
  cli::cat_line("<", class, "> ", if (length(shown)) paste(shown, collapse = "; ") else none)
  invisible(x)
}

# A setting of class `class` from its fields, each checked where given
# (check_setting_field(); errors name the field as an argument of `call`).
new_setting <- function(fields, class, call) {
  for (f in names(fields)) {
    if (!is.null(fields[[f]])) fields[f] <- list(check_setting_field(f, fields[[f]], call))
  }
  structure(fields, class = class)
}

# One field of a setting, checked; `arg` is how an error names it (the
# field, or the old argument that gave it).
check_setting_field <- function(field, value, call, arg = field) {
  switch(field,
    points = check_whole(value, arg, 2, call),
    intervals = check_whole(value, arg, 1, call),
    bins = check_whole(value, arg, 2, call),
    min_size = check_whole(value, arg, 1, call),
    k = check_whole(value, arg, 2, call),
    type = arg_one(value, c("quantiles", "uniform", "distinct", "splits"), arg, call),
    level_order = arg_one(value, c("similarity", "levels"), arg, call),
    al_shift = arg_one(value, c("group", "common"), arg, call),
    na_level = check_flag(value, arg, call),
    center = check_flag(value, arg, call),
    title = if (!is.character(value) || length(value) != 1L || is.na(value)) {
      cli::cli_abort("{.arg {arg}} must be a single string.", call = call)
    } else value,
    splits = if (!is.list(value) || is.null(names(value)) || any(!nzchar(names(value)))) {
      cli::cli_abort("{.arg {arg}} must be a named list of grids.", call = call)
    } else value,
    value
  )
}

# The grid setting of an entry point: `grid` (a number of points or a
# profile_grids() setting) with the fields DALEX's names and old arguments
# gave (`given`, by field, from front_door()), each field given once, and
# the entry point's `defaults` (a named list; the fields it takes) for the
# rest. A field the entry point does not take is an error.
grid_settings <- function(grid, given, defaults, call) {
  if (is.numeric(grid) && length(grid) == 1L) grid <- profile_grids(points = check_whole(grid, "grid", 2, call))
  if (!inherits(grid, "mp_grids")) {
    cli::cli_abort(c(
      "{.arg grid} must be a number of grid points or a {.fn profile_grids} setting, not {.obj_type_friendly {grid}}.",
      i = "For example {.code grid = profile_grids(points = 51, type = \"uniform\")}."
    ), call = call)
  }
  merge_setting(unclass(grid), given, defaults, "grid", "profile_grids", call)
}

# The setting's fields (`set`, NULL where not given) with `given` (fields
# from DALEX's names and old arguments: list(value, arg) each) and the
# `defaults` of the entry point.
merge_setting <- function(set, given, defaults, arg, maker, call) {
  for (f in names(given)) {
    if (!is.null(set[[f]])) {
      cli::cli_abort("{.arg {given[[f]]$arg}} and {.arg {arg}} both give {.code {maker}({f} = )}; give it once.",
                     call = call)
    }
    set[f] <- list(check_setting_field(f, given[[f]]$value, call, given[[f]]$arg))
  }
  given_fields <- names(Filter(Negate(is.null), set))
  extra <- setdiff(given_fields, c(names(defaults), "expr", "by"))
  if (length(extra)) {
    cli::cli_abort("{.arg {arg}}: {.code {maker}({extra[1]} = )} does not apply here; it takes {.field {names(defaults)}}.",
                   call = call)
  }
  for (f in names(defaults)) if (is.null(set[[f]])) set[f] <- list(defaults[[f]])
  set$given <- given_fields
  set
}

# The subgroups of an entry point: `groups` (NULL, a column name, a vector
# with a value per row, a profile_groups() setting, or, where `clusters`,
# a profile_clusters() setting) with the fields DALEX's names and old
# arguments gave (`given`: list(groups, clusters) of fields, from
# front_door()). Returns NULL, or a list with `kind` ("groups" or
# "clusters") and the setting's fields, defaults filled in.
group_settings <- function(groups, given, defaults, call, clusters = FALSE) {
  if (inherits(groups, "mp_clusters") || !is.null(given$clusters$k)) {
    if (!clusters) cli::cli_abort("{.arg groups} takes no {.fn profile_clusters} here.", call = call)
    if (!is.null(groups) && !inherits(groups, "mp_clusters")) {
      cli::cli_abort("Give {.arg groups} or {.arg k}, not both.", call = call)
    }
    set <- if (is.null(groups)) list(k = NULL, center = NULL) else unclass(groups)
    out <- merge_setting(set, given$clusters, list(k = NULL, center = TRUE), "groups", "profile_clusters", call)
    return(c(list(kind = "clusters"), out))
  }
  # (DALEX's `center` without `k` changes nothing, as in DALEX.)
  if (is.null(groups)) {
    if (length(given$groups)) {
      cli::cli_abort("{.arg {given$groups[[1]]$arg}} applies to subgroups; give {.arg groups} too.", call = call)
    }
    return(NULL)
  }
  set <- if (inherits(groups, "mp_groups")) unclass(groups) else list(by = groups, expr = NULL)
  c(list(kind = "groups"), merge_setting(set, given$groups, defaults, "groups", "profile_groups", call))
}

# ---- Bands ------------------------------------------------------------------------

# The kinds of bands: of the background rows' sampling (analytic,
# bootstrap) and of a forest's trees (trees, infjack).
band_kinds <- c("none", "analytic", "bootstrap", "trees", "infjack")

#' @rdname profile_bands
#' @param type The kind of bands: `"none"`, `"analytic"` (standard errors
#'   from the per-row contributions), `"bootstrap"` (`B` resamples of the
#'   background rows), or, for the partial dependence of a forest,
#'   `"trees"` or `"infjack"` (see [model_profile()]). Each entry point
#'   takes the kinds its `bands` argument lists.
#' @param level Confidence level of the pointwise bands, a number between
#'   0 and 1.
#' @param B Number of bootstrap resamples (at least 10); used by
#'   `type = "bootstrap"` only (`"trees"` takes every tree's profile).
#' @returns `profile_bands()`: a band setting, a list of class `mp_bands`
#'   with `type`, `level` and `B`.
#' @export
profile_bands <- function(type = c("bootstrap", "analytic", "none", "trees", "infjack"), level = 0.95, B = 200) {
  call <- rlang::current_env()
  type <- arg_one(type, eval(formals(profile_bands)$type), "type", call)
  structure(band_values(type, level, B, call), class = "mp_bands")
}

#' @export
print.mp_bands <- function(x, ...) {
  cli::cat_line("<mp_bands> ", if (x$type == "none") "no bands" else band_text(x))
  invisible(x)
}

# A band setting's values, checked: list(type, level, B); errors name
# `level` and `B`, the arguments of `call`.
band_values <- function(type, level, B, call) {
  check_number(level, function(x) x > 0 && x < 1,
               "{.arg level} must be a single number between 0 and 1, such as 0.95, not {.val {format_value(x)}}.", call)
  # (B is the bootstrap's alone: other kinds keep the default, unchecked.)
  B <- if (type == "bootstrap") check_whole(B, "B", 10, call) else 200L
  list(type = type, level = as.double(level), B = B)
}

# The `bands` argument of an entry point, checked: a kind (a string) or a
# profile_bands() setting, of a kind in `types`, as list(type, level, B).
# `level` and `B` are the deprecated arguments of the entry point (NULL
# when not given): with a kind, they set its level and number of resamples.
check_bands <- function(bands, call, types = c("none", "analytic", "bootstrap"), level = NULL, B = NULL) {
  if (inherits(bands, "mp_bands")) {
    if (!is.null(level) || !is.null(B)) {
      cli::cli_abort(c(
        "Give {.arg level} and {.arg B} in {.arg bands}, not as arguments of their own.",
        i = "For example {.code bands = profile_bands(\"{bands$type}\", level = 0.9, B = 100)}."
      ), call = call)
    }
    if (!bands$type %in% types) {
      cli::cli_abort("{.arg bands} must be of type {.or {.val {types}}}, not {.val {bands$type}}.", call = call)
    }
    return(unclass(bands))
  }
  if (!is.character(bands)) {
    cli::cli_abort(c(
      "{.arg bands} must be a kind of bands, such as {.val bootstrap}, or a {.fn profile_bands} setting, not {.obj_type_friendly {bands}}.",
      i = "For example {.code bands = profile_bands(\"bootstrap\", level = 0.9, B = 100)}."
    ), call = call)
  }
  if (length(bands) > 1L && !identical(bands, types)) {
    cli::cli_abort(c(
      "{.arg bands} must be one kind of bands, not {length(bands)}: {.val {bands}}.",
      i = "One call draws one kind; e.g. {.code bands = {.val {bands[1L]}}}."
    ), call = call)
  }
  type <- rlang::arg_match0(bands[1L], types, arg_nm = "bands", error_call = call)
  band_values(type, level %||% 0.95, B %||% 200, call)
}

# The deprecated `level` and `B` arguments of an entry point (NULL when not
# given): one warning per call, of class "deprecated", that says how to
# give them in `bands`.
warn_band_args <- function(bands, level, B, call) {
  given <- c(level = !is.null(level), B = !is.null(B))
  if (!any(given) || inherits(bands, "mp_bands")) return(invisible())
  kind <- if (is.character(bands_kind(bands))) bands_kind(bands) else "bootstrap"
  args <- c(sprintf("\"%s\"", kind), if (given[["level"]]) paste("level =", format_value(level)),
            if (given[["B"]]) paste("B =", format_value(B)))
  nm <- names(given)[given]
  cli::cli_warn(c(
    "The {.arg {nm}} argument{?s} {?is/are} deprecated.",
    i = "Use {.code bands = profile_bands({paste(args, collapse = ', ')})}."
  ), class = c("modelprofiles_deprecated", "deprecated"), call = call)
}

# The kind of bands an entry point's `bands` argument asks for (before it
# is checked).
bands_kind <- function(bands) if (inherits(bands, "mp_bands")) bands$type else bands[1L]

# No bands: the setting of entry points that make none.
no_bands <- function() list(type = "none", level = 0.95, B = 0L)

# A band setting in words, for print methods.
band_text <- function(b) {
  what <- switch(b$type,
    analytic = "analytic standard errors",
    bootstrap = paste(b$B, "bootstrap resamples of the background rows"),
    trees = paste("percentiles of", b$B, "trees' profiles"),
    infjack = "infinitesimal jackknife over the trees",
    refit = paste(b$B, "refits of the model"),
    b$type
  )
  paste0(format(100 * b$level), "% pointwise, ", what)
}
