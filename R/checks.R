# Checks of the arguments the entry points share, raised in the user's
# call and naming the user's argument.

# Model, data, predict function, adapter and label, from an explainer or the
# arguments. The predict function is the adapter's own (which the native and
# linear engines may stand in for) when none is given, or when an
# explainer's is DALEX's default (DALEX::yhat), which gives the same numbers
# for the families the package knows; a function the user wrote is used as
# it is (an explainer's gets the rows as a matrix when its data is one).
resolve_inputs <- function(x, data, predict_function, label, call) {
  ex <- unpack_explainer(x)
  model <- ex$model
  data <- data %||% ex$data
  given <- predict_function %||% ex$predict_function
  label <- label %||% ex$label
  if (is.null(data)) {
    cli::cli_abort("{.arg data} is missing: give the background rows as a data frame.", call = call)
  }
  data <- as_background(data, call = call)
  adapter <- model_adapter(model)
  if (is.null(given)) {
    if (!is.null(adapter$refuse)) cli::cli_abort(adapter$refuse, call = call)
    predict_function <- adapter$predict
    if (!is.null(adapter$prepare)) data <- adapter$prepare(data)
  } else if (is_default_predictor(given)) {
    predict_function <- given
  } else {
    predict_function <- user_predictor(given, ex$as_matrix, call)
  }
  if (is.null(label)) label <- adapter$label %||% adapter$family
  if (!is.character(label) || length(label) != 1L || is.na(label)) {
    cli::cli_abort("{.arg label} must be a single string.", call = call)
  }
  list(model = model, data = data, predict_function = predict_function, label = label,
       adapter = adapter)
}

# Variable names (argument `arg`): a character vector of columns of data,
# without duplicates. An unknown name's error lists the data's columns, or
# those `listed` that can be profiled (and suggests the nearest of them).
check_variables <- function(variables, data, call, arg = "variables", listed = NULL) {
  if (!is.character(variables) || anyNA(variables) || length(variables) == 0L) {
    cli::cli_abort("{.arg {arg}} must be a character vector of column names, not {.val {format_value(variables)}}.",
                   call = call)
  }
  unknown <- setdiff(variables, names(data))
  if (length(unknown)) {
    cli::cli_abort(c(
      "{.arg {arg}} has {cli::qty(length(unknown))}name{?s} not in the data: {.val {unknown}}.",
      column_hint(unknown, listed %||% names(data)),
      i = if (is.null(listed)) "The data has {.val {names(data)}}." else "Columns of {.arg data} that can be profiled: {.val {listed}}."
    ), call = call)
  }
  unique(variables)
}

# The names of `known` nearest to `u`: the one equal but for case (`n` for
# `N`), else the nearest (fewest edits) of those it begins (R's partial
# matching), else of those within two edits (for a `u` of min_chars
# characters at least).
nearest_names <- function(u, known, min_chars = 4L) {
  d <- utils::adist(u, known)[1L, ]
  near <- known[tolower(known) == tolower(u)]
  if (!length(near)) {
    close <- startsWith(known, u)
    if (!any(close)) close <- nchar(u) >= min_chars & d <= 2L
    near <- known[close & d == min(d[close], Inf)]
  }
  near
}

# A "did you mean" line for names not among the columns `known`: the
# nearest column of each that has one (NULL when none has).
column_hint <- function(unknown, known) {
  near <- lapply(unknown, nearest_names, known = known, min_chars = 3L)
  has <- lengths(near) > 0L
  if (!any(has)) return(NULL)
  c(i = paste0("Did you mean ", paste0("{.val ", vapply(near[has], `[`, "", 1L), "} for {.val ", unknown[has], "}",
                                       collapse = ", "), "?"))
}

# The memory budget in MiB. A budget above max_memory_budget (Inf, or one
# whose bytes overflow) is taken as max_memory_budget: more than any machine
# has, and more than a chunk can use (chunk_policy() caps a chunk at
# .Machine$integer.max stacked rows).
check_budget <- function(memory_budget, call) {
  check_number(memory_budget, function(x) x > 0,
               "{.arg memory_budget} must be a positive number of MiB, not {.val {format_value(x)}}.", call)
  min(as.double(memory_budget), max_memory_budget)
}

# Rows with a missing value in the variable profiled by LD or AL are left
# out of its profile (PD sets the column, and uses them): one warning per
# variable and call, saying how many and what to do instead. An error when
# no row is left.
warn_left_out <- function(v, n_na, n, kind, call) {
  hint <- if (kind == "categorical") {
    "Set {.code na_level = TRUE} to profile the missing values as a level of their own, or impute them."
  } else {
    "Impute them to keep {cli::qty(n_na)}{?that row/those rows}; a PD profile ({.code type = \"partial\"}) uses every row."
  }
  if (n_na >= n) {
    cli::cli_abort(c(
      "{.field {v}} has only missing values among the {n} background rows; its LD or AL profile is not defined.",
      i = hint
    ), call = call)
  }
  mp_warn(c(
    "{.field {v}} has {n_na} missing value{?s} among the {n} background rows; {cli::qty(n_na)}{?that row is/those rows are} left out of its profile.",
    i = hint
  ), call = call, class = "modelprofiles_rows_left_out")
}

# Does a column take at least two distinct non-missing values?
varies <- function(x) {
  if (is.factor(x)) x <- as.integer(x)
  # Numbers: the smallest and largest observed values differ (no copy).
  if (is.numeric(x) || is.logical(x)) {
    if (anyNA(x) && all(is.na(x))) return(FALSE)
    return(min(x, na.rm = TRUE) != max(x, na.rm = TRUE))
  }
  x <- x[!is.na(x)]
  length(x) > 1L && any(x != x[1L])
}

resolve_method <- function(type, method, call) {
  if (type == "partial") {
    if (!is.null(method) && !identical(method, "exact")) {
      cli::cli_abort("{.arg method} applies to conditional and accumulated profiles, not partial dependence.", call = call)
    }
    return("exact")
  }
  if (is.null(method)) return(if (type == "conditional") "kernel" else "interval")
  if (!is.character(method) || length(method) != 1L || !method %in% c("kernel", "interval")) {
    cli::cli_abort("{.arg method} must be {.val kernel} or {.val interval}, not {.val {format(method)}}.", call = call)
  }
  method
}

as_background <- function(data, call) {
  if (is.matrix(data)) {
    if (is.null(colnames(data))) {
      cli::cli_abort("{.arg data} is a matrix without column names; name its columns.", call = call)
    }
    data <- as.data.frame(data, stringsAsFactors = FALSE)
  }
  if (!is.data.frame(data)) {
    cli::cli_abort("{.arg data} must be a data frame or a matrix, not {.cls {class(data)}}.", call = call)
  }
  if (nrow(data) < 2L) {
    cli::cli_abort(c(
      "{.arg data} has {nrow(data)} row{?s}; profiles need at least 2 background rows.",
      i = "The ceteris-paribus profiles of one observation are {.code predict_profile(x, new_observation, data = <background rows>)}."
    ), call = call)
  }
  if (!ncol(data)) {
    cli::cli_abort("{.arg data} has no columns: give the background rows with the columns the model uses.", call = call)
  }
  if (anyDuplicated(names(data)) || any(!nzchar(names(data))) || anyNA(names(data))) {
    cli::cli_abort(c(
      "The columns of {.arg data} must have unique, non-empty names.",
      i = if (anyNA(names(data))) "A column is named {.val NA}: rename it, e.g. {.code names(data)[is.na(names(data))] <- \"x\"}."
    ), call = call)
  }
  ok <- vapply(data, function(col) typeof(col) %in% c("double", "integer", "logical", "character"), logical(1))
  if (!all(ok)) {
    cli::cli_abort(c(
      "{.arg data} has column{?s} of a type that cannot be stacked: {.field {names(data)[!ok]}}.",
      i = "Columns must be numeric, integer, factor, character or logical."
    ), call = call)
  }
  data
}

usable_variables <- function(data, variables, type, explicit, call, given_grids = character()) {
  keep <- logical(length(variables))
  for (i in seq_along(variables)) {
    v <- variables[i]
    col <- data[[v]]
    kind <- column_kind(col)
    problem <- hint <- NULL
    n_inf <- if (kind == "numeric") n_infinite(col) else 0
    if (kind == "unsupported") {
      problem <- "is of class {.cls {class(col)}}; profiles need a numeric, factor, character or logical column"
    } else if (anyNA(col) && all(is.na(col))) {
      problem <- "has only missing values"
    } else if (n_inf > 0) {
      problem <- "has {n_inf} infinite value{?s} ({.val {Inf}} or {.val {-Inf}}); profiles need finite values"
      hint <- infinite_hint
    } else if (!varies(col) && !(type == "partial" && v %in% given_grids)) {
      # (A PD profile over a given grid does not need the rows to vary.)
      problem <- "is constant; a profile over a single value is not defined"
      hint <- "Leave {.val {v}} out of {.arg variables}."
    }
    if (is.null(problem)) {
      keep[i] <- TRUE
    } else if (explicit) {
      # (A constant column: the error names `variables`, which named it.)
      constant <- startsWith(problem, "is constant")
      lead <- if (constant) "{.arg variables} names {.field {v}}, which " else "{.field {v}} "
      cli::cli_abort(c(paste0(lead, problem, "."), i = hint), call = call,
                     class = if (constant) "modelprofiles_constant_variable")
    } else {
      cli::cli_inform(c(paste0("Skipping {.field {v}}: it ", problem, "."), i = hint))
    }
  }
  if (!any(keep)) cli::cli_abort("No column of {.arg data} can be profiled.", call = call)
  variables[keep]
}

# The variables without infinite values (h_statistic(), which has no other
# requirement on them): a variable with some is an error when the user
# named it, else left out with a message (as usable_variables() does).
finite_variables <- function(data, variables, explicit, call) {
  keep <- vapply(variables, function(v) {
    n_inf <- if (column_kind(data[[v]]) == "numeric") n_infinite(data[[v]]) else 0
    if (n_inf == 0) return(TRUE)
    msg <- "has {n_inf} infinite value{?s} ({.val {Inf}} or {.val {-Inf}}); the statistics need finite values."
    hint <- "Drop those rows, or set them to {.val {NA}} (a value of its own here, which the model must predict)."
    if (explicit) cli::cli_abort(c(paste("{.field {v}}", msg), i = hint), call = call)
    cli::cli_inform(c(paste("Skipping {.field {v}}: it", msg), i = hint))
    FALSE
  }, logical(1))
  variables[keep]
}

infinite_hint <- "Set them to {.val {NA}} (PD profiles use such rows; LD and AL profiles leave them out), or drop those rows."

check_splits <- function(splits, data, variables, call, na_level = FALSE) {
  if (is.null(splits)) return(list())
  if (!is.list(splits) || is.null(names(splits)) || any(!nzchar(names(splits)))) {
    cli::cli_abort("{.arg variable_splits} must be a named list of grids.", call = call)
  }
  bad <- setdiff(names(splits), variables)
  if (length(bad)) {
    cli::cli_abort("{.arg variable_splits} names variable{?s} not profiled: {.val {bad}}.", call = call)
  }
  for (v in names(splits)) {
    s <- splits[[v]]
    col <- data[[v]]
    # NA is a grid value only for the missing level of a categorical variable.
    na_ok <- na_level && column_kind(col) == "categorical"
    if (length(s) == 0L || (anyNA(s) && !na_ok)) {
      cli::cli_abort("{.arg variable_splits${v}} must be values without {.val {NA}}.", call = call)
    }
    if (column_kind(col) == "numeric") {
      if (!same_scale(col, s)) {
        cli::cli_abort("{.arg variable_splits${v}} must be numeric{if (is_time_scale(col)) paste0(' or of class <', class(col)[1L], '>')}, as {.field {v}} is; not {.cls {class(s)}}.", call = call)
      }
      if (any(is.infinite(as.double(unclass(s))))) {
        cli::cli_abort(c(
          "{.arg variable_splits${v}} must be finite values; it has {.val {s[is.infinite(as.double(unclass(s)))]}}.",
          i = "A grid holds values the model predicts at; give the ends of the range, e.g. {.code range(data${v})}."
        ), call = call)
      }
      splits[[v]] <- column_values(col, s)
    } else {
      allowed <- if (is.factor(col)) levels(col) else unique(as.character(stats::na.omit(col)))
      if (is.logical(col)) allowed <- c("FALSE", "TRUE")
      odd <- setdiff(as.character(s[!is.na(s)]), allowed)
      if (length(odd)) {
        cli::cli_abort("{.arg variable_splits${v}} has value{?s} that {.field {v}} cannot take: {.val {odd}}.", call = call)
      }
      splits[[v]] <- if (is.logical(col)) as.logical(s) else as.character(s)
    }
  }
  splits
}

# Bandwidths: one for every variable, or named by (profiled) variable.
check_bandwidth <- function(bandwidth, variables, call) {
  if (is.null(bandwidth)) return(list())
  if (!is.numeric(bandwidth) || !length(bandwidth) || !all(is.finite(bandwidth) & bandwidth > 0)) {
    cli::cli_abort("{.arg bandwidth} must be positive finite numbers.", call = call)
  }
  bandwidth <- stats::setNames(as.double(bandwidth), names(bandwidth))
  if (is.null(names(bandwidth))) {
    if (length(bandwidth) != 1L) {
      cli::cli_abort("{.arg bandwidth} must be one number or a vector named by variable.", call = call)
    }
    return(stats::setNames(as.list(rep(bandwidth, length(variables))), variables))
  }
  nm <- names(bandwidth)
  if (anyNA(nm) || any(!nzchar(nm)) || anyDuplicated(nm)) {
    cli::cli_abort("{.arg bandwidth} must be one number or a vector named by variable, each name once.", call = call)
  }
  unknown <- setdiff(nm, variables)
  if (length(unknown)) {
    cli::cli_abort(c(
      "{.arg bandwidth} names {cli::qty(length(unknown))}variable{?s} not profiled: {.val {unknown}}.",
      i = "The profiled variables are {.val {variables}}; names must match exactly (case included)."
    ), call = call)
  }
  as.list(bandwidth)
}

check_flag <- function(x, arg, call) {
  if (!isTRUE(x) && !isFALSE(x)) {
    shown <- if (is.atomic(x) && length(x) == 1L) x else format_value(x)
    cli::cli_abort("{.arg {arg}} must be {.code TRUE} or {.code FALSE}, not {.val {shown}}.", call = call)
  }
  invisible(x)
}

# One number `x` for which `ok(x)` holds, else the error `message` (whose
# glue may show the value, `{x}`), raised in `call`.
check_number <- function(x, ok, message, call) {
  if (!is.numeric(x) || length(x) != 1L || is.na(x) || !ok(x)) cli::cli_abort(message, call = call)
  invisible(x)
}

# One value of a choice argument whose default is `choices`: several values
# (`type = c("partial", "accumulated")`) is an error that says so and what
# to do instead (`hint`), not arg_match()'s "must be one of ..., not
# "partial"".
arg_one <- function(arg, choices, name, call, hint = NULL) {
  if (is.character(arg) && length(arg) > 1L && !identical(arg, choices)) {
    cli::cli_abort(c(
      "{.arg {name}} must be one value, not {length(arg)}: {.val {arg}}.",
      i = hint
    ), call = call)
  }
  rlang::arg_match(arg, choices, error_arg = name, error_call = call)
}

# The number of background rows to draw: NULL (all rows) or at least 2.
check_N <- function(N, call) {
  if (is.null(N)) return(NULL)
  check_whole(N, "N", 2, call, hint = "Use {.code N = NULL} for all rows.")
}

# The variables to profile: the user's (checked, an error for one that
# cannot be profiled), or every column that can be (others skipped with a
# message), less a groups or weights column named by the user.
profile_variables <- function(inputs, variables, type, group_column, given_grids, call) {
  explicit <- !is.null(variables)
  variables <- check_variables(variables %||% names(inputs$data), inputs$data, call)
  if (!explicit) variables <- setdiff(variables, c(group_column, attr(inputs$weights, "column")))
  variables <- used_variables(inputs, variables, explicit, call)
  usable_variables(inputs$data, variables, type, explicit, call, given_grids)
}

# Arguments given that the estimator does not read (`given`: a logical
# vector by argument name): one message naming them and what the estimator
# reads instead, so that none is ignored silently.
inform_unused <- function(type, method, given) {
  reads <- switch(
    paste(type, method),
    "partial exact" = "grid_points",
    "conditional kernel" = c("grid_points", "bandwidth"),
    "conditional interval" = c("grid_points", "intervals"),
    "accumulated interval" = "intervals",
    "accumulated kernel" = c("grid_points", "bandwidth"),
    names(given)
  )
  # (The grids of PD and LD are of variable_splits_type; AL's are not.)
  unused <- setdiff(names(given)[given], c(reads, if (type != "accumulated") "variable_splits_type"))
  if (!length(unused)) return(invisible())
  estimator <- switch(type, partial = "PD", conditional = "LD", accumulated = "AL")
  cli::cli_inform(c(
    "{.arg {unused}} {?is/are} not used by {method} {estimator}, which reads {.arg {reads}}.",
    i = if (type == "accumulated" && method == "interval" && any(c("grid_points", "variable_splits_type") %in% unused)) {
      "Its grid is the edges of {.arg intervals} quantile intervals (or {.arg variable_splits})."
    }
  ), class = "modelprofiles_unused_argument")
}

# DALEX's `center` for AL profiles: TRUE centres kernel AL as DALEX does
# (the profile's mean over its grid points is the mean prediction), with no
# bands; NULL this package's centring. Interval AL keeps ALEPlot's centring,
# with a message; FALSE (DALEX's profiles starting at 0) is an error.
check_al_center <- function(center, type, method, bands, call) {
  if (is.null(center) || type != "accumulated") return(NULL)
  if (isFALSE(center)) {
    cli::cli_abort(c(
      "{.code center = FALSE} (DALEX's AL profiles starting at 0) is not available: AL profiles are on the mean prediction.",
      i = "Subtract {.code x$mean_prediction} from {.code x$agr_profiles$`_yhat_`} for profiles centred at 0."
    ), call = call)
  }
  if (method == "interval") {
    cli::cli_inform(c(
      "{.code center = TRUE} centres DALEX's kernel AL; interval AL keeps ALEPlot's centring.",
      i = "{.code method = \"kernel\", span = 0.25, center = TRUE} is DALEX's estimator, centred as DALEX centres it."
    ), class = "modelprofiles_unused_argument")
    return(NULL)
  }
  if (!identical(bands, "none")) {
    cli::cli_abort("{.arg bands} are not computed for AL centred as DALEX centres it ({.code center = TRUE}); give one of them.",
                   call = call)
  }
  TRUE
}
