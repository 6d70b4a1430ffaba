# The result of model_profile(), class "mp_profile", made from the estimates
# of run_profiles(): constructor, methods, and the helpers of results' print().

# The profile of every variable within every part, as an mp_profile. `run`:
# run_profiles()'s result; `groups`: the subgroups' description (NULL
# without subgroups); al_shift: "group" or "common" (see model_profile()).
profile_result <- function(setup, inputs, s, variables, parts, run, call, groups = NULL,
                           al_shift = "group") {
  grouped <- !is.null(groups)
  # Subgroups in which no variable varies (LD, AL) are left out.
  alive <- vapply(run$raw, function(r) any(!vapply(r, is.null, logical(1))), logical(1))
  if (!any(alive)) {
    cli::cli_abort("No subgroup of {.field {groups$column}} has a variable that varies within it.", call = setup$error_call)
  }
  if (grouped) {
    groups$levels <- groups$levels[alive]
    groups$sizes <- groups$sizes[alive]
  }
  parts <- parts[alive]
  raw <- run$raw[alive]
  base <- output_labels(setup)
  classes <- if (isTRUE(setup$outputs$suffix)) setup$outputs$classes else rep(NA_character_, length(base))
  label_parts <- do.call(rbind, lapply(parts, function(p) {
    lab <- if (!grouped) base else paste0(setup$label, ifelse(is.na(classes), "", paste0(".", classes)), "_", p$level)
    data.frame(label = lab, group = if (grouped) p$level else NA_character_, class = classes,
               stringsAsFactors = FALSE)
  }))
  if (grouped && s$type == "accumulated" && al_shift == "common") raw <- al_common_shift(raw)
  means <- al_mean_prediction(raw, variables, label_parts$label)
  present <- variables[vapply(variables, function(v) any(vapply(raw, function(r) !is.null(r[[v]]), logical(1))), logical(1))]
  mixed <- mixed_scales(unlist(lapply(raw, function(r) lapply(r[present], function(e) e$x)), recursive = FALSE))
  agr <- list()
  cp <- list()
  C <- length(base)
  space <- profile_space(setup, inputs, s$type, present)
  for (p in seq_along(parts)) {
    labels <- label_parts$label[(p - 1L) * C + seq_len(C)]
    # The measure of every variable of the part at once (the rows'
    # distances are shared), with the ICE points' verdicts when kept.
    vs <- present[!vapply(raw[[p]][present], is.null, logical(1))]
    exts <- extrapolation_share(space, setup, vs, lapply(raw[[p]][vs], `[[`, "x"), parts[[p]]$rows,
                                keep = any(!vapply(raw[[p]][vs], function(e) is.null(e$ice), logical(1))))
    for (v in vs) {
      e <- raw[[p]][[v]]
      ext <- exts[[v]]
      e$extrapolation <- ext$share
      agr[[length(agr) + 1L]] <- agr_frame(setup, v, e, parts[[p]]$rows, labels, mixed, if (grouped) parts[[p]]$level)
      if (!is.null(e$ice)) {
        cp[[length(cp) + 1L]] <- ice_block(v, labels, setup$rows[e$ice_rows],
                                           if (mixed) as.character(e$x) else e$x, e$ice, outside = ext$outside)
      }
    }
  }
  rows <- row_union(lapply(parts, `[[`, "rows"), setup$n)
  columns <- ice_row_values(setup$data, present, rows, length(cp) > 0L)
  grids <- lapply(stats::setNames(present, present),
                  function(v) Find(Negate(is.null), lapply(raw, `[[`, v))$x)
  agr <- bind_rows(agr)
  replicates <- attr(agr, "replicates")
  attr(agr, "replicates") <- NULL
  new_mp_profile(list(
    agr_profiles = agr,
    bands = band_report(setup, replicates), replicates = replicates, settings = s,
    cp_profiles = if (length(cp)) new_mp_ice(cp, columns, at_rows(setup$rows, rows), grids),
    type = s$type, method = s$method, variables = present, label = setup$label,
    labels = label_parts$label, label_parts = label_parts,
    grids = grids,
    intervals = interval_table(raw, present, parts),
    bandwidth = if (length(run$bandwidth)) unlist(run$bandwidth[intersect(names(run$bandwidth), present)]),
    N = setup$n, n_data = nrow(inputs$data), rows = at_rows(setup$rows, rows),
    background_prints = background_prints(inputs$data, at_rows(setup$rows, rows)),
    observed = columns[present],
    observed_group = if (grouped) part_of_rows(parts, rows),
    prediction_quantiles = prediction_quantiles(setup, parts, run$fitted, label_parts$label),
    mean_prediction = means, class = setup$outputs$classes, task = setup$adapter$task,
    weights = if (setup$weighted) at_rows(setup$case_weights, rows),
    n_predictions = run$n_predictions, no_support = no_support_list(raw, present),
    threads = setup$threads, engine = profile_engine(setup, s), groups = groups,
    steps = run$steps, steps_mid = if (!is.null(run$steps)) run$steps_mid, extrapolation = extrapolation_info(space), call = call
  ))
}

# Rows of data frames, without row names (and their "replicates"
# attributes, bound too).
bind_rows <- function(frames) {
  reps <- lapply(frames, attr, "replicates")
  out <- do.call(rbind, frames)
  rownames(out) <- NULL
  if (!all(vapply(reps, is.null, logical(1)))) attr(out, "replicates") <- do.call(rbind, reps)
  out
}

# The aggregated profile of variable v in one part (rows), DALEX's columns
# and `_support_` (with `_extrapolation_`, see ?extrapolation, and
# `_groups_` for a subgroup).
agr_frame <- function(setup, v, e, rows, labels, mixed, group = NULL) {
  G <- length(e$x)
  w <- if (setup$weighted) at_rows(setup$case_weights, rows)
  out <- data.frame(
    `_vname_` = v, `_label_` = rep(labels, each = G),
    `_x_` = rep(if (mixed) as.character(e$x) else e$x, length(labels)),
    `_yhat_` = as.vector(e$yhat), `_ids_` = 0L,
    `_support_` = rep(grid_support(at_rows(setup$data[[v]], rows), e$x, w), length(labels)),
    check.names = FALSE, stringsAsFactors = FALSE
  )
  if (!is.null(e$extrapolation)) out$`_extrapolation_` <- rep(e$extrapolation, length(labels))
  if (!is.null(group)) out$`_groups_` <- group
  band_columns(out, setup, e)
}

# The subgroup (level) of each of the sorted background rows `rows`.
part_of_rows <- function(parts, rows) {
  level <- rep(vapply(parts, function(p) as.character(p$level), character(1)), lengths(lapply(parts, `[[`, "rows")))
  level[match(rows, unlist(lapply(parts, `[[`, "rows")))]
}

# Weighted quantiles of the predictions at each part's rows, at 201 evenly
# spaced probabilities, a column per profile label (the reference of
# NALED and NALER, see effect_sizes()); NULL when the rows were not all
# predicted (only AL profiles predict them).
prediction_quantiles <- function(setup, parts, fitted, labels) {
  if (is.null(fitted)) return(NULL)
  p <- seq(0, 1, length.out = 201)
  out <- list()
  for (part in parts) {
    f <- if (length(part$rows) == nrow(fitted)) fitted else fitted[part$rows, , drop = FALSE]
    if (anyNA(f)) return(NULL)
    w <- at_rows(setup$case_weights, part$rows)
    for (c in seq_len(ncol(f))) out[[length(out) + 1L]] <- weighted_quantile7(f, w, p, c)
  }
  matrix(unlist(out), length(p), dimnames = list(NULL, labels))
}

# The number of intervals used, variables x parts (NULL for estimators
# without intervals).
interval_table <- function(raw, variables, parts) {
  K <- vapply(raw, function(r) {
    vapply(variables, function(v) as.integer(r[[v]]$intervals %||% NA_integer_), integer(1))
  }, integer(length(variables)))
  K <- matrix(K, length(variables), length(parts),
              dimnames = list(variables, vapply(parts, function(p) if (is.na(p$level)) "all" else p$level, character(1))))
  if (all(is.na(K))) NULL else K
}

# Grid points without support, by variable (over all parts).
no_support_list <- function(raw, variables) {
  out <- lapply(stats::setNames(variables, variables), function(v) {
    unique(unlist(lapply(raw, function(r) if (any(r[[v]]$no_support)) r[[v]]$x[r[[v]]$no_support])))
  })
  if (any(lengths(out) > 0L)) out[lengths(out) > 0L] else list()
}

# The one constructor of mp_profile results: the fields, checked. The
# class "model_profile" after its own is DALEX's: DALEX's plot method then
# counts it among the results it draws (plot(dalex_result, ours)), whose
# rows ingredients binds through rbind.aggregated_profiles_explainer().
# A result read from DALEX (from_dalex(), field source = "DALEX") has what
# DALEX gives: no counts of rows and predictions, no engine or call, and
# aggregated profiles without `_support_`. `fields` is a list, or an
# mp_profile being remade (refit_bands(), cluster_result()).
new_mp_profile <- function(fields) {
  x <- structure(fields, class = c("mp_profile", "model_profile"))
  dalex <- identical(x[["source"]], "DALEX")
  need <- c("agr_profiles", "type", "method", "variables", "label", "labels", "label_parts", "grids")
  if (!dalex) need <- c(need, "N", "n_data", "rows", "n_predictions", "engine", "call")
  missing <- setdiff(need, names(x))
  if (length(missing)) stop("internal: an mp_profile lacks ", paste(missing, collapse = ", "))
  cols <- c("_vname_", "_label_", "_x_", "_yhat_", "_ids_", "_support_")
  if (!all(cols[if (dalex) 1:4 else 1:6] %in% names(x$agr_profiles))) {
    stop("internal: agr_profiles lacks DALEX's columns")
  }
  if (!all(x$agr_profiles$`_label_` %in% x$labels)) stop("internal: agr_profiles has unknown labels")
  if (!is.null(x$replicates) && NROW(x$replicates) != nrow(x$agr_profiles)) {
    stop("internal: an mp_profile's replicates are not one row per row of agr_profiles")
  }
  cp <- ice_of(x)
  if (!is.null(cp) && !inherits(cp, "mp_ice") && !all(cols[1:5] %in% names(cp))) {
    stop("internal: cp_profiles lacks DALEX's columns")
  }
  x
}

# ---- Methods ---------------------------------------------------------------

profile_title <- function(type) {
  switch(type,
    partial = "partial-dependence",
    conditional = "local-dependence",
    accumulated = "accumulated-local"
  )
}

#' Print, summarise and convert profiles
#'
#' @param x,object An `mp_profile` result of [model_profile()].
#' @param n Number of rows of `agr_profiles` to show.
#' @param what `"agr_profiles"` (the profiles) or `"cp_profiles"` (the ICE
#'   curves as DALEX's long data frame, made from the compact [mp_ice]
#'   curves each time it is asked for).
#' @param row.names,optional Ignored; for compatibility with the generic.
#' @param ... Ignored.
#' @returns `print()` returns `x` invisibly; `summary()` a data frame of class
#'   `summary_mp_profile` with one row per variable and profile label (one
#'   per subgroup with `groups`) (grid size, range of the
#'   grid, minimum, maximum and range of the profile, number of grid points
#'   without support, and the fewest background rows near a grid point,
#'   `min_rows`, from `_support_`; for partial dependence, `extrapolated`:
#'   the grid values or ranges where over half of the points averaged lie
#'   outside the data, see [extrapolation]), the importance of [effect_sizes()] and,
#'   for AL profiles, its ALED and NALED (with their percentile bands,
#'   `<statistic>_lower` and `_upper`, when the profile has bootstrap or
#'   refit replicates; `print()` shows them as "estimate \[lower,
#'   upper\]"), and `flat`: whether the
#'   variable's profiles are flat for every label (the predictions do not
#'   change with it, as for a column the model does not use; `print()`
#'   names such variables too), ordered by importance, largest first;
#'   `as.data.frame()` the requested data frame.
#' @examples
#' fit <- lm(mpg ~ wt + hp, data = mtcars)
#' pd <- model_profile(fit, mtcars[c("wt", "hp")])
#' print(pd, n = 3)
#' summary(pd)
#' head(as.data.frame(pd, what = "cp_profiles"))
#' @name mp_profile-methods
NULL

# The variables whose profiles are flat for every label (class, subgroup):
# the predictions do not change with them over the grid, to rounding (a
# range within 1e-10 of the predictions' scale), as for a column the model
# does not use.
flat_variables <- function(x) {
  a <- x$agr_profiles
  if (is.null(a) || !nrow(a)) return(character())
  y <- a$`_yhat_`
  scale <- max(1, abs(y), na.rm = TRUE)
  key <- paste(a$`_vname_`, a$`_label_`, sep = "\r")
  rng <- vapply(split(y, key), function(v) {
    v <- v[!is.na(v)]
    if (length(v) < 2L) NA_real_ else max(v) - min(v)
  }, numeric(1))
  vname <- vapply(split(as.character(a$`_vname_`), key), `[`, "", 1L)
  flat <- tapply(rng <= 1e-10 * scale, vname, all)
  vars <- names(flat)[flat %in% TRUE]
  x$variables[x$variables %in% vars]
}

#' @rdname mp_profile-methods
#' @export
print.mp_profile <- function(x, n = 6, ...) {
  method <- if (x$type == "partial") "" else paste0(" (", x$method, ")")
  cli::cat_line("<mp_profile> ", profile_title(x$type), " profiles", method,
                " of ", length(x$variables), " variable", if (length(x$variables) != 1) "s",
                " for ", encodeString(x$label, quote = "\""))
  cli::cat_line("  variables: ", paste(x$variables, collapse = ", "))
  print_rows(x, if (identical(x$engine, "native")) "; native engine")
  if (!is.null(x$groups)) {
    cli::cat_line("  subgroups of ", x$groups$column, ": ",
                  paste0(x$groups$levels, " (", x$groups$sizes, " rows)", collapse = ", "))
  }
  k <- if (length(x$intervals) && ncol(x$intervals) == 1L) stats::setNames(x$intervals[, 1L], rownames(x$intervals))
  k <- k[!is.na(k)] # (categorical variables have no intervals)
  if (length(k)) cli::cat_line("  intervals (K): ", paste0(names(k), " = ", k, collapse = ", "))
  if (length(x$bandwidth)) {
    cli::cat_line("  bandwidth: ", paste0(names(x$bandwidth), " = ", format(x$bandwidth, digits = 4), collapse = ", "))
  }
  cp <- ice_of(x)
  if (!is.null(cp)) {
    size <- if (inherits(cp, "mp_ice")) ice_size(cp) else nrow(cp)
    cli::cat_line("  ICE curves: ", format_count(size), " rows in $cp_profiles",
                  if (inherits(cp, "mp_ice")) paste0(" (kept compactly, ", format_bytes(ice_compact_bytes(cp)),
                                                     "; about ", format_bytes(ice_long_bytes(cp)), " as a data frame)"))
  }
  if (!is.null(x$bands)) cli::cat_line("  bands: ", band_text(x$bands))
  print_extrapolation(x)
  flat <- flat_variables(x)
  if (length(flat)) {
    cli::cat_line("  flat (the predictions do not change with ", if (length(flat) > 1L) "them" else "it",
                  "; a column the model does not use?): ", paste(flat, collapse = ", "))
  }
  cli::cat_line("First rows of $agr_profiles:")
  print(utils::head(x$agr_profiles, n), row.names = FALSE)
  invisible(x)
}

#' @rdname mp_profile-methods
#' @export
summary.mp_profile <- function(object, ...) {
  a <- object$agr_profiles
  keys <- unique(a[c("_vname_", "_label_")])
  out <- do.call(rbind, lapply(seq_len(nrow(keys)), function(k) {
    v <- keys$`_vname_`[k]
    d <- a[a$`_vname_` == v & a$`_label_` == keys$`_label_`[k], ]
    xr <- if (is.numeric(d$`_x_`)) range(d$`_x_`) else c(NA, NA)
    yr <- suppressWarnings(range(d$`_yhat_`, na.rm = TRUE))
    data.frame(
      variable = v, label = keys$`_label_`[k], points = nrow(d),
      x_min = xr[1], x_max = xr[2],
      yhat_min = yr[1], yhat_max = yr[2], yhat_range = yr[2] - yr[1],
      no_support = sum(is.na(d$`_yhat_`)),
      min_rows = if (is.null(d$`_support_`)) NA_integer_ else min(d$`_support_`),
      extrapolated = extrapolation_range(d, object$grids[[v]], object$extrapolation$level %||% extrapolation_level),
      stringsAsFactors = FALSE
    )
  }))
  if (all(is.na(out$extrapolated))) out$extrapolated <- NULL
  out <- summary_effects(object, out)
  out$flat <- out$variable %in% flat_variables(object)
  level <- attr(out, "level")
  out <- out[order(-out$importance, -out$yhat_range, na.last = TRUE), , drop = FALSE]
  rownames(out) <- NULL
  attr(out, "type") <- object$type
  attr(out, "level") <- level
  class(out) <- c("summary_mp_profile", "data.frame")
  out
}

#' @export
print.summary_mp_profile <- function(x, ...) {
  level <- attr(x, "level")
  cli::cat_line("Summary of ", profile_title(attr(x, "type")), " profiles (largest importance first)",
                if (!is.null(level)) paste0(", with ", format(100 * level), "% percentile bands of the statistics"),
                ":")
  tab <- structure(x, class = "data.frame", level = NULL, type = NULL)
  print(with_intervals(tab, c("importance", "aled", "naled"), 4), row.names = FALSE, digits = 4)
  flat <- unique(x$variable[x$flat %in% TRUE])
  if (length(flat)) {
    cli::cat_line("Flat profiles (the predictions do not change with ", if (length(flat) > 1L) "them" else "it",
                  "): ", paste(flat, collapse = ", "), ".")
  }
  invisible(x)
}

#' @rdname mp_profile-methods
#' @export
as.data.frame.mp_profile <- function(x, row.names = NULL, optional = FALSE, ...,
                                     what = c("agr_profiles", "cp_profiles")) {
  what <- match.arg(what)
  out <- .subset2(x, what)
  if (is.null(out)) {
    cli::cli_abort("This result has no ICE curves: they are kept for partial dependence and the kernel methods, when they fit in {.arg memory_budget}.")
  }
  if (inherits(out, "mp_ice")) ice_plain(out) else out
}

# ---- Helpers of the results' print methods ---------------------------------

# print()'s line of the background rows, predictions and threads (`more`
# after them); with `details`, the classes and case weights when there are.
print_rows <- function(x, more = NULL, details = TRUE) {
  rows <- if (x$N < x$n_data) paste0(x$N, " of ", x$n_data) else paste0("all ", x$N)
  cli::cat_line("  background rows: ", rows, "; predictions: ", format_count(x$n_predictions),
                "; threads: ", x$threads, more)
  if (!details) return(invisible())
  if (length(x$class)) {
    cli::cat_line("  class", if (length(x$class) > 1L) "es", ": ", paste(x$class, collapse = ", "))
  }
  if (!is.null(x$weights)) {
    cli::cat_line("  case weights: ", format(sum(x$weights), digits = 6), " in total")
  }
}

format_count <- function(n) format(n, big.mark = ",", scientific = FALSE)

# The columns `stats` of a table that have bands (`<stat>_lower`,
# `<stat>_upper`) as text "estimate [lower, upper]", without the limits.
with_intervals <- function(tab, stats, digits) {
  for (s in stats) {
    lo <- paste0(s, "_lower")
    hi <- paste0(s, "_upper")
    if (is.null(tab[[lo]])) next
    tab[[s]] <- interval_text(tab[[s]], tab[[lo]], tab[[hi]], digits)
    tab[[lo]] <- tab[[hi]] <- NULL
  }
  tab
}
