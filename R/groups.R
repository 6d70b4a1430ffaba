# Profiles within subgroups of the background rows.

# The subgroup of each background row: a factor. A numeric g is cut at its
# type-7 quantiles, with case weights w (NULL for none) those of the values
# repeated w times.
group_factor <- function(g, bins, w = NULL) {
  if (is.numeric(g) && length(unique(g[!is.na(g)])) > bins) {
    ok <- !is.na(g)
    br <- unique(grid_quantiles(as.double(g[ok]), if (!is.null(w)) w[ok],
                                seq(0, 1, length.out = bins + 1L), 7L))
    return(cut(g, br, include.lowest = TRUE, dig.lab = 4))
  }
  if (is.factor(g)) droplevels(g) else factor(g)
}

grouped_profile <- function(inputs, data, rows, groups, group_bins, min_group_size,
                            variables, type, method, grid_points, variable_splits_type,
                            variable_splits, intervals, bandwidth, threads,
                            memory_budget, keep_ice, class, weights, level_order, na_level,
                            al_shift, k, engine, call, env) {
  check_whole(group_bins, "group_bins", 2, env)
  check_whole(min_group_size, "min_group_size", 1, env)
  # `groups`: a column name, or a one-element list holding a vector (named by
  # the title to show).
  values <- if (is.list(groups)) groups[[1]] else data[[groups]]
  groups <- if (is.list(groups)) names(groups) else groups
  g <- group_factor(values[rows], group_bins, if (!is.null(weights)) weights[rows])
  if (anyNA(g)) {
    cli::cli_warn("{sum(is.na(g))} background row{?s} with a missing {.field {groups}} {?is/are} left out of the subgroups.", call = env)
  }
  sizes <- table(g)
  small <- names(sizes)[sizes < min_group_size]
  if (length(small)) {
    cli::cli_inform(c(
      "{cli::qty(length(small))}Subgroup{?s} of {.field {groups}} with fewer than {min_group_size} background rows left out: {paste0(small, ' (', sizes[small], ' rows)')}.",
      i = "Lower {.arg min_group_size} or {.arg group_bins}, or raise {.arg N}, to keep them."
    ), class = "modelprofiles_small_groups")
  }
  keep <- setdiff(names(sizes), small)
  if (!length(keep)) {
    cli::cli_abort("No subgroup of {.field {groups}} has {min_group_size} or more background rows.", call = env)
  }
  # Shared grids (from all rows of the data) and bandwidths (from all
  # background rows), so that the subgroups' profiles are comparable; with
  # case weights, a row of weight w counts as w rows in both.
  splits <- variable_splits
  bw <- bandwidth
  if (type != "accumulated") {
    for (v in variables) {
      if (is.null(splits[[v]])) splits[[v]] <- make_grid(data[[v]], grid_points, variable_splits_type, na_level, weights)
    }
  }
  m <- if (type == "partial") "exact" else method
  if (m == "kernel") {
    for (v in variables) {
      if (is.null(bw[[v]]) && column_kind(data[[v]]) == "numeric") {
        bw[[v]] <- weighted_bw_nrd0(data[[v]][rows], if (!is.null(weights)) weights[rows])
      }
    }
  }
  bw <- if (length(bw)) unlist(bw) else NULL
  parts <- lapply(keep, function(lev) {
    sub <- rows[!is.na(g) & g == lev]
    # LD and AL need a variable to vary within the subgroup (PD does not).
    here <- variables
    if (type != "partial") {
      fixed <- !vapply(variables, function(v) varies(data[[v]][sub]), logical(1))
      if (any(fixed)) {
        cli::cli_inform("{.field {variables[fixed]}} take{?s} a single value in subgroup {.val {lev}} of {.field {groups}}: not profiled there.")
      }
      here <- variables[!fixed]
      if (!length(here)) return(NULL)
    }
    res <- model_profile(
      inputs$model, data[sub, , drop = FALSE], inputs$predict_function,
      variables = here, type = type, N = NULL,
      method = if (type == "partial") NULL else method,
      grid_points = grid_points,
      variable_splits = non_empty(splits[intersect(names(splits), here)]),
      intervals = intervals, bandwidth = non_empty(bw[intersect(names(bw), here)]),
      label = paste0(inputs$label, "_", lev),
      threads = threads, memory_budget = memory_budget, keep_ice = keep_ice,
      class = class, level_order = level_order, na_level = na_level, engine = engine,
      weights = if (!is.null(weights)) as.double(weights[sub])
    )
    # Labels `<label>_<group>`, or `<label>.<class>_<group>` per class.
    lp <- res$label_parts
    relabel <- stats::setNames(
      paste0(inputs$label, ifelse(is.na(lp$class), "", paste0(".", lp$class)), "_", lev),
      lp$label
    )
    res$agr_profiles$`_label_` <- unname(relabel[res$agr_profiles$`_label_`])
    if (!is.null(res$cp_profiles)) res$cp_profiles$`_label_` <- unname(relabel[res$cp_profiles$`_label_`])
    res$labels <- res$label_parts$label <- unname(relabel)
    res$rows <- sub[res$rows]
    if (!is.null(res$cp_profiles)) res$cp_profiles$`_ids_` <- sub[res$cp_profiles$`_ids_`]
    res$agr_profiles$`_groups_` <- lev
    res
  })
  dropped <- vapply(parts, is.null, logical(1))
  if (all(dropped)) {
    cli::cli_abort("No subgroup of {.field {groups}} has a variable that varies within it.", call = env)
  }
  parts <- parts[!dropped]
  keep <- keep[!dropped]
  if (type == "accumulated" && al_shift == "common") {
    # DALEX's convention: every subgroup's AL profile on the mean prediction
    # over the rows of all the subgroups shown, not its own.
    wsum <- vapply(parts, function(p) if (is.null(p$weights)) length(p$rows) else sum(p$weights), numeric(1))
    mps <- do.call(rbind, lapply(parts, `[[`, "mean_prediction"))
    common <- colSums(wsum * mps) / sum(wsum)
    parts <- lapply(seq_along(parts), function(i) {
      p <- parts[[i]]
      shift <- common - mps[i, ]
      a <- p$agr_profiles
      a$`_yhat_` <- a$`_yhat_` + unname(shift[match(a$`_label_`, p$labels)])
      p$agr_profiles <- a
      p
    })
  }
  first <- parts[[1]]
  agr <- do.call(rbind, lapply(parts, `[[`, "agr_profiles"))
  rownames(agr) <- NULL
  cps <- lapply(parts, `[[`, "cp_profiles")
  cp <- if (!any(vapply(cps, is.null, logical(1)))) {
    out <- do.call(rbind, cps)
    rownames(out) <- NULL
    out
  }
  out <- first
  out$agr_profiles <- agr
  out$cp_profiles <- cp
  out$label <- inputs$label
  out$rows <- sort(unlist(lapply(parts, `[[`, "rows")))
  out$N <- length(rows)
  out$n_data <- nrow(data)
  out$observed <- data[out$rows, variables, drop = FALSE]
  out$n_predictions <- sum(vapply(parts, `[[`, numeric(1), "n_predictions"))
  mp <- lapply(parts, `[[`, "mean_prediction")
  out$mean_prediction <- if (!any(vapply(mp, is.null, logical(1)))) {
    if (length(mp[[1]]) == 1L) stats::setNames(unlist(mp, use.names = FALSE), keep) else stats::setNames(mp, keep)
  }
  out$labels <- unlist(lapply(parts, `[[`, "labels"))
  out$label_parts <- do.call(rbind, Map(function(p, lev) {
    lp <- p$label_parts
    lp$group <- lev
    lp
  }, parts, keep))
  if (!is.null(weights)) out$weights <- as.double(weights[out$rows])
  out$intervals <- lapply(stats::setNames(parts, keep), `[[`, "intervals")
  # Variables (and their grids) of any subgroup, in the order asked for.
  present <- unique(unlist(lapply(parts, `[[`, "variables")))
  out$variables <- variables[variables %in% present]
  out$grids <- lapply(stats::setNames(out$variables, out$variables), function(v) {
    for (p in parts) if (!is.null(p$grids[[v]])) return(p$grids[[v]])
  })
  if (type == "accumulated") out$group_grids <- lapply(stats::setNames(parts, keep), `[[`, "grids")
  out$groups <- list(column = groups, levels = keep, sizes = as.vector(sizes[keep]),
                     left_out = small, left_out_sizes = as.vector(sizes[small]))
  out$call <- call
  out
}

non_empty <- function(x) if (length(x)) x
