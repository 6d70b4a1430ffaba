# DALEX interoperability: the front door of the entry points (DALEX's
# names of arguments, and the deprecated ones), results converted both ways
# (as_dalex() for DALEX's and ingredients' plot methods; from_dalex() for
# plot() of ours), and the once-a-session note that an explainer's weights
# are used.

# The names the entry points take in `...`: DALEX's (`dalex`, silently)
# and the package's former arguments (deprecated for one release), each a
# field of a setting (R/settings.R), `level` and `B` of the bands
# (deprecated; start_call() warns of them), or DALEX's `variable_type`
# and `span`. `door_accepted` lists those each entry point takes.
door_names <- data.frame(
  name = c("grid_points", "variable_splits_type", "variable_splits", "intervals", "level_order",
           "na_level", "group_bins", "min_group_size", "group_title", "al_shift", "k", "center",
           "cluster_center", "level", "B", "variable_type", "span"),
  setting = c(rep("grid", 6L), rep("groups", 4L), rep("clusters", 3L), "bands", "bands", "dalex", "dalex"),
  field = c("points", "type", "splits", "intervals", "level_order", "na_level", "bins", "min_size",
            "title", "al_shift", "k", "center", "center", "level", "B", "variable_type", "span"),
  dalex = c(TRUE, TRUE, TRUE, FALSE, FALSE, FALSE, FALSE, FALSE, FALSE, FALSE, TRUE, TRUE, FALSE,
            FALSE, FALSE, TRUE, TRUE),
  stringsAsFactors = FALSE
)

door_accepted <- list(
  model_profile = door_names$name,
  model_profile_2d = c("grid_points", "variable_splits_type", "variable_splits", "intervals", "level_order",
                       "level", "B"),
  compare_profiles = c("grid_points", "intervals", "level", "B"),
  hidden_interactions = c("grid_points", "variable_splits_type", "variable_splits", "group_bins",
                          "min_group_size"),
  find_regions = c("grid_points", "variable_splits_type")
)

# The front door: the named arguments `dots` of the entry point `fn`, each
# checked. Returns list(grid, groups, clusters) of the fields given (by
# field: list(value, arg)), `level`, `B`, `variable_type` and `span`; any
# other argument is an error naming it (check_entry()), and a former
# argument a deprecation warning.
front_door <- function(dots, fn, call) {
  nms <- names(dots) %||% rep("", length(dots))
  known <- nms %in% door_accepted[[fn]]
  if (!all(known)) check_entry(FALSE, sum(!known), nms[!known], fn, call)
  rows <- door_names[match(nms, door_names$name), , drop = FALSE]
  # A field given by DALEX's name and by the old argument.
  twice <- rows$field[duplicated(paste(rows$setting, rows$field))]
  if (length(twice)) {
    both <- rows$name[rows$field == twice[1L]]
    cli::cli_abort("{.arg {both[1]}} is DALEX's name for {.arg {both[2]}}; give one of them.", call = call)
  }
  out <- list(grid = list(), groups = list(), clusters = list())
  for (i in seq_along(dots)) {
    r <- rows[i, ]
    value <- dots[[i]]
    if (r$setting %in% c("bands", "dalex")) {
      out[r$field] <- list(value)
      next
    }
    # (NULL is not given: DALEX's defaults, such as `variable_splits = NULL`.)
    if (is.null(value)) next
    value <- check_setting_field(r$field, value, call, r$name)
    if (!r$dalex) {
      maker <- switch(r$setting, grid = "grid = profile_grids", groups = "groups = profile_groups",
                      clusters = "groups = profile_clusters")
      deprecated_arg(r$name, paste0(maker, "(", r$field, " = )"), NULL, FALSE, call)
    }
    out[[r$setting]][[r$field]] <- list(value = value, arg = r$name)
  }
  out
}

# The variables of kind `variable_type` ("numerical": numbers, dates and
# time differences; "categorical": factors, character and logical columns),
# as DALEX's `variable_type` chooses them; those of the other kind that the
# user named are left out with a message. NULL keeps every kind.
variables_of_type <- function(variables, data, variable_type, explicit, call) {
  if (is.null(variable_type)) return(variables)
  kind <- vapply(variables, function(v) column_kind(data[[v]]), character(1))
  want <- if (variable_type == "numerical") "numeric" else "categorical"
  keep <- variables[kind == want]
  dropped <- setdiff(variables, keep)
  if (!length(keep)) {
    among <- if (explicit) " among {.arg variables}" else ""
    cli::cli_abort(c(
      paste0("No {variable_type} variable to profile", among, "."),
      i = "Use {.code variable_type = NULL} for every kind of variable."
    ), call = call)
  }
  if (explicit && length(dropped)) {
    cli::cli_inform("{.code variable_type = \"{variable_type}\"}: leaving out {.val {dropped}}.")
  }
  keep
}

check_variable_type <- function(variable_type, call) {
  if (is.null(variable_type)) return(NULL)
  if (!is.character(variable_type) || length(variable_type) != 1L ||
      !variable_type %in% c("numerical", "categorical")) {
    cli::cli_abort("{.arg variable_type} must be {.val numerical}, {.val categorical} or {.code NULL}, not {.val {format_value(variable_type)}}.", call = call)
  }
  variable_type
}

# An explainer's weights (checked, `w`) that are not all equal change the
# profiles; DALEX ignores them. Said once a session.
inform_explainer_weights <- function(w) {
  if (length(unique(w)) <= 1L) return(invisible())
  cli::cli_inform(c(
    "The explainer's {.field weights} are used as case weights: means over the background rows are weighted.",
    i = "{.fn DALEX::model_profile} ignores them; {.code weights = rep(1, nrow(data))} gives unweighted results."
  ), .frequency = "once", .frequency_id = "modelprofiles_explainer_weights")
  invisible()
}

#' Convert profiles to DALEX's `model_profile` objects
#'
#' `as_dalex()` turns a [model_profile()] result into the object
#' `DALEX::model_profile()` returns (class `"model_profile"`), so that
#' DALEX's and ingredients' plot methods draw it as they draw their own:
#' `plot(as_dalex(x))`, `plot(as_dalex(x), geom = "profiles")`, or
#' ingredients' `plot(as_dalex(x)$agr_profiles)`.
#'
#' Results in one chart need no conversion: `plot()` of a modelprofiles
#' result draws DALEX results given with it, `plot(x, dalex_result)`, and
#' DALEX's plot method draws ours given after its own,
#' `plot(dalex_result, x)` (a modelprofiles result is of DALEX's class
#' `"model_profile"` too, after its own, and is converted as here when
#' ingredients binds the rows of the results; when both carry the same
#' label, ours is labelled `"<label>, modelprofiles"`).
#'
#' Why a converter: ingredients' plot methods take DALEX's tables, with
#' exactly DALEX's columns, while a modelprofiles result carries more
#' (`_support_`, bands) and keeps its ICE curves compactly.
#'
#' The conversion keeps DALEX's conventions:
#' * `agr_profiles` has DALEX's columns `_vname_`, `_label_`, `_x_`,
#'   `_yhat_`, `_ids_` (and `_groups_` for subgroups, `_cluster_` for
#'   clusters), and DALEX's classes (`"aggregated_profiles_explainer"`,
#'   `"partial_dependence_explainer"`, ...);
#' * one kind of variable, as DALEX computes: `variable_type =
#'   "numerical"` (the default when `x` has numeric variables, with a
#'   message naming the categorical ones left out) or `"categorical"`;
#' * `cp_profiles`, when `x` keeps ICE curves, is ingredients' wide
#'   `ceteris_paribus_explainer` table: a row per curve point with the
#'   profiled variables' columns (the variable of the curve set to the grid
#'   value), `_yhat_`, `_vname_`, `_ids_` and `_label_`, and attribute
#'   `"observations"` (the background rows, at most `max_curves` of them).
#'   The prediction an observation has there (`_yhat_`, which DALEX's
#'   `geom = "points"` draws) is read off its ICE curve of the first
#'   variable, interpolated linearly between grid points.
#'
#' @param x An `mp_profile` result of [model_profile()].
#' @param variable_type `NULL` (see above), `"numerical"` or
#'   `"categorical"`: the variables kept.
#' @param max_curves Maximum number of ICE curves kept per variable (an
#'   evenly spaced selection of the background rows).
#' @param label `NULL` (the result's label) or a new label of the model:
#'   DALEX's plot tells results apart by their labels only.
#' @returns An object of class `"model_profile"`: a list with
#'   `cp_profiles` (or `NULL`), `agr_profiles` and `color`, as
#'   `DALEX::model_profile()` returns.
#' @seealso [plot.mp_profile()], which draws DALEX results next to ours.
#' @examples
#' if (requireNamespace("DALEX", quietly = TRUE)) {
#'   fit <- lm(mpg ~ wt * hp, data = mtcars)
#'   ex <- DALEX::explain(fit, data = mtcars[c("wt", "hp")], y = mtcars$mpg,
#'                        label = "lm", verbose = FALSE)
#'   ours <- modelprofiles::model_profile(ex, N = NULL, type = "accumulated")
#'   plot(as_dalex(ours))          # DALEX's plot of ours
#'   # Also: with theirs <- DALEX::model_profile(ex, N = NULL, type =
#'   # "accumulated"), plot(theirs, ours) is DALEX's plot of both results,
#'   # plot(ours, theirs) this package's.
#' }
#' @export
as_dalex <- function(x, variable_type = NULL, max_curves = 100, label = NULL) {
  call <- rlang::current_env()
  if (!inherits(x, "mp_profile")) {
    cli::cli_abort("{.arg x} must be a {.fn model_profile} result, not {.cls {class(x)}}.", call = call)
  }
  variable_type <- check_variable_type(variable_type, call)
  max_curves <- check_whole(max_curves, "max_curves", 1, call)
  if (is.null(variable_type)) {
    variable_type <- if (length(dalex_variables(x, "numerical"))) "numerical" else "categorical"
    other <- setdiff(x$variables, dalex_variables(x, variable_type))
    if (length(other)) {
      cli::cli_inform(c(
        "A DALEX result has one kind of variable: keeping the numerical ones.",
        i = "Convert {.val {other}} with {.code as_dalex(x, variable_type = \"categorical\")}."
      ))
    }
  }
  vars <- dalex_variables(x, variable_type)
  if (!length(vars)) cli::cli_abort("{.arg x} has no {variable_type} variable.", call = call)
  a <- dalex_agr(x$agr_profiles[x$agr_profiles$`_vname_` %in% vars, , drop = FALSE], variable_type)
  kind_class <- if (!is.null(a$`_cluster_`)) character() else
    switch(x$type, partial = "partial_dependence_explainer",
           conditional = "conditional_dependence_explainer",
           accumulated = "accumulated_dependence_explainer")
  class(a) <- c("aggregated_profiles_explainer", kind_class, "data.frame")
  if (!is.null(x$mean_prediction)) attr(a, "mean_prediction") <- unname(x$mean_prediction[1L])
  cp <- dalex_cp(x, vars, max_curves)
  # DALEX's plot draws ICE curves by ingredients' plot method, which is
  # registered only once ingredients is loaded (DALEX loads it when it
  # computes, not when it is attached).
  if (!is.null(cp)) requireNamespace("ingredients", quietly = TRUE)
  if (!is.null(label)) {
    if (!is.character(label) || length(label) != 1L || is.na(label)) {
      cli::cli_abort("{.arg label} must be a single string.", call = call)
    }
    relabel <- function(l) ifelse(startsWith(l, x$label), paste0(label, substring(l, nchar(x$label) + 1L)), l)
    a$`_label_` <- relabel(a$`_label_`)
    if (!is.null(cp)) {
      cp$`_label_` <- relabel(cp$`_label_`)
      attr(cp, "observations")$`_label_` <- label
    }
  }
  single <- is.null(x$groups) && is.null(a$`_cluster_`) && length(unique(a$`_label_`)) == 1L
  colour <- if (!single) "_label_" else if (requireNamespace("DALEX", quietly = TRUE)) {
    DALEX::colors_discrete_drwhy(1)
  } else {
    "#4378bf"
  }
  structure(list(cp_profiles = cp, agr_profiles = a, color = colour), class = "model_profile")
}

# The variables of an mp_profile of DALEX's kind `variable_type`
# ("numerical" or "categorical").
dalex_variables <- function(x, variable_type) {
  kinds <- vapply(x$variables, function(v) column_kind(x$grids[[v]]), character(1))
  x$variables[kinds == if (variable_type == "numerical") "numeric" else "categorical"]
}

# DALEX's table of aggregated profiles from rows `a` of ours: DALEX's
# columns, `_x_` numbers (`kind` "numerical") or text, `_ids_` 0.
dalex_agr <- function(a, kind) {
  a <- a[intersect(c("_vname_", "_label_", "_x_", "_groups_", "_cluster_", "_yhat_", "_ids_"),
                   names(a))]
  a$`_x_` <- if (kind == "numerical") as.numeric(as.character(a$`_x_`)) else as.character(a$`_x_`)
  a$`_vname_` <- as.character(a$`_vname_`)
  a$`_ids_` <- rep(0, nrow(a))
  rownames(a) <- NULL
  a
}

# ingredients' wide table of ICE curves (ceteris_paribus_explainer) of
# variables `vars`, with the background rows as attribute "observations".
dalex_cp <- function(x, vars, max_curves) {
  long <- ice_frame_of(x, vars, max_curves)
  if (is.null(long) || !nrow(long)) return(NULL)
  ids <- unique(long$`_ids_`)
  obs <- ice_observed(x)[match(ids, x$rows), , drop = FALSE]
  wide <- obs[match(long$`_ids_`, ids), , drop = FALSE]
  for (v in vars) {
    r <- long$`_vname_` == v
    col <- wide[[v]]
    val <- long$`_x_`[r]
    wide[[v]][r] <- if (is.factor(col)) as.character(val) else if (is.numeric(col)) as.numeric(as.character(val)) else val
  }
  wide$`_yhat_` <- long$`_yhat_`
  wide$`_vname_` <- as.character(long$`_vname_`)
  wide$`_ids_` <- as.character(long$`_ids_`)
  wide$`_label_` <- long$`_label_`
  rownames(wide) <- NULL
  # The prediction at each observation: its first variable's curve (of the
  # first label it has a curve under: its subgroup's or cluster's) at its
  # own value.
  v1 <- vars[1L]
  first <- long[long$`_vname_` == v1, , drop = FALSE]
  own_label <- first$`_label_`[match(ids, first$`_ids_`)]
  obs$`_yhat_` <- vapply(seq_along(ids), function(k) {
    r <- first$`_ids_` == ids[k] & first$`_label_` %in% own_label[k]
    if (any(r)) curve_at(matrix(first$`_yhat_`[r]), first$`_x_`[r], obs[[v1]][k]) else NA_real_
  }, numeric(1))
  obs$`_label_` <- x$label
  obs$`_ids_` <- seq_along(ids)
  rownames(obs) <- as.character(ids)
  attr(wide, "observations") <- obs
  class(wide) <- c("ceteris_paribus_explainer", "data.frame")
  wide
}

# The classes of a DALEX result of a classifier, whose labels are
# "<label>.<column>" (columns of parsnip's probabilities are ".pred_<class>",
# e.g. "_multinom..pred_setosa"): the label and the classes, or NULL.
dalex_classes <- function(labels) {
  if (length(labels) < 2L) return(NULL)
  chars <- strsplit(labels, "", fixed = TRUE)
  n <- min(lengths(chars))
  same <- vapply(seq_len(n), function(i) length(unique(vapply(chars, `[`, "", i))) == 1L, logical(1))
  k <- if (all(same)) n else which(!same)[1L] - 1L
  prefix <- substr(labels[1L], 1L, k)
  base <- if (grepl("\\.\\.pred_$", prefix)) sub("\\.\\.pred_$", "", prefix) else sub("\\.[^.]*$", "", prefix)
  if (!nzchar(base) || identical(base, prefix) || !all(startsWith(labels, paste0(base, ".")))) return(NULL)
  list(base = base, class = sub("^\\.pred_", "", substring(labels, nchar(base) + 2L)))
}

# A DALEX result (DALEX::model_profile()) as an mp_profile that the plot
# methods can draw: its profiles, ICE curves and observations.
from_dalex <- function(d, call = rlang::caller_env()) {
  a <- d$agr_profiles
  if (!is.data.frame(a) || !all(c("_vname_", "_label_", "_x_", "_yhat_") %in% names(a))) {
    cli::cli_abort("A DALEX {.cls model_profile} result must have {.field agr_profiles} with DALEX's columns.", call = call)
  }
  type <- if (inherits(a, "conditional_dependence_explainer")) "conditional" else
    if (inherits(a, "accumulated_dependence_explainer")) "accumulated" else "partial"
  a <- as.data.frame(structure(a, class = "data.frame"), stringsAsFactors = FALSE)
  a$`_label_` <- as.character(a$`_label_`)
  a$`_vname_` <- as.character(a$`_vname_`)
  vars <- unique(a$`_vname_`)
  cp <- d$cp_profiles
  obs <- if (!is.null(cp)) attr(cp, "observations")
  base <- if (!is.null(cp)) as.character(cp$`_label_`[1L]) else a$`_label_`[1L]
  labels <- unique(a$`_label_`)
  prefix <- paste0(base, "_")
  group <- ifelse(startsWith(labels, prefix), substring(labels, nchar(prefix) + 1L), NA_character_)
  label_parts <- data.frame(label = labels, group = group, class = NA_character_, stringsAsFactors = FALSE)
  cls <- dalex_classes(labels)
  if (all(is.na(group)) && !is.null(cls)) {
    label_parts$class <- cls$class
    base <- cls$base
  }
  long <- NULL
  if (!is.null(cp)) {
    cp <- structure(cp, class = "data.frame")
    cp <- cp[as.character(cp$`_vname_`) %in% vars, , drop = FALSE]
    vn <- as.character(cp$`_vname_`)
    x <- lapply(vars, function(v) cp[[v]][vn == v])
    numeric_x <- all(vapply(x, is.numeric, logical(1)))
    xs <- vector(if (numeric_x) "numeric" else "character", nrow(cp))
    for (i in seq_along(vars)) xs[vn == vars[i]] <- if (numeric_x) x[[i]] else as.character(x[[i]])
    long <- data.frame(`_vname_` = vn, `_label_` = as.character(cp$`_label_`),
                       `_ids_` = as.character(cp$`_ids_`), `_x_` = xs, `_yhat_` = cp$`_yhat_`,
                       check.names = FALSE, stringsAsFactors = FALSE)
    if (!base %in% labels && is.null(cls)) {
      label_parts <- rbind(label_parts, data.frame(label = base, group = NA_character_, class = NA_character_))
    }
  }
  rows <- if (!is.null(long)) unique(long$`_ids_`) else character()
  observed <- NULL
  if (!is.null(obs)) {
    observed <- as.data.frame(obs[intersect(vars, names(obs))], stringsAsFactors = FALSE)
    rows <- if (all(rows %in% rownames(obs))) rownames(obs) else rows[seq_len(nrow(obs))]
  }
  grids <- lapply(stats::setNames(vars, vars), function(v) unique(a$`_x_`[a$`_vname_` == v]))
  new_mp_profile(list(
    agr_profiles = a, cp_profiles = long, type = type, method = NA_character_,
    variables = vars, label = base, labels = label_parts$label,
    label_parts = if (any(!is.na(label_parts$group)) || any(!is.na(label_parts$class))) label_parts,
    grids = grids, observed = observed, rows = rows, weights = NULL, bands = NULL,
    groups = NULL, source = "DALEX"
  ))
}

is_dalex_result <- function(x) inherits(x, "model_profile") && !inherits(x, "mp_profile")

# DALEX's span: for the kernel methods only, one positive number, not with
# a bandwidth.
check_span <- function(span, bandwidth, type, method, call) {
  if (is.null(span)) return(invisible())
  if (!is.numeric(span) || length(span) != 1L || !is.finite(span) || span <= 0) {
    cli::cli_abort("{.arg span} must be one positive number, not {.val {format_value(span)}}.", call = call)
  }
  if (!is.null(bandwidth)) cli::cli_abort("Give {.arg span} (DALEX's) or {.arg bandwidth}, not both.", call = call)
  if (type == "partial" || !identical(method, "kernel")) {
    cli::cli_abort(c(
      "{.arg span} sets the kernel's bandwidth, which {if (type == 'partial') 'partial dependence' else 'the interval method'} does not have.",
      i = "Use {.code type = \"conditional\"} or {.code method = \"kernel\"}."
    ), call = call)
  }
  invisible()
}

# The bandwidths of DALEX's span: span times the range of each numeric
# variable's grid (given, or made from the values of the rows of positive
# weight, whose extremes it spans).
span_bandwidth <- function(span, inputs, variables, variable_splits) {
  w <- inputs$weights
  out <- list()
  for (v in variables) {
    x <- if (!is.null(variable_splits[[v]])) variable_splits[[v]] else inputs$data[[v]]
    if (!is.numeric(x) || is.factor(x) || is_time_scale(x)) next
    if (is.null(variable_splits[[v]]) && !is.null(w)) x <- x[w > 0]
    r <- diff(range(x[is.finite(x)]))
    out[[v]] <- span * if (r > 0) r else 1
  }
  if (length(out)) unlist(out)
}
