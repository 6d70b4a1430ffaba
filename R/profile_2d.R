# Two-variable partial dependence.

#' Two-variable profiles: partial dependence and second-order accumulated local effects
#'
#' `model_profile_2d()` profiles the predictions over pairs of variables.
#'
#' * `type = "partial"`: the partial dependence
#'   \eqn{g(z_1, z_2) = \frac{1}{n}\sum_i f(x_i^{j=z_1, k=z_2})}{g(z1, z2) = mean_i f(x_i with x^j = z1 and x^k = z2)}
#'   over the grid of all pairs of the two variables' grid values (numeric by
#'   numeric, numeric by categorical, categorical by categorical). The grids
#'   follow the rules of [model_profile()].
#' * `type = "accumulated"`: the second-order accumulated local effect of
#'   Apley and Zhu (2020, section 3), the pure interaction of the pair with
#'   both first-order effects removed, for numeric by numeric and categorical
#'   by numeric pairs, computed as `ALEPlot::ALEPlot(J = c(j1, j2), K = intervals)`
#'   does: Apley's edges (type-1 quantiles) on each numeric axis, the levels
#'   of a categorical variable in the order of [model_profile()]'s AL
#'   profiles, the mean second difference of the predictions over the
#'   corners of each cell (four predictions per row, or for a categorical
#'   variable the differences towards the adjacent levels), empty cells
#'   given the value of the nearest cell with rows (distances between cell
#'   midpoints scaled by each axis' range, as ALEPlot does), accumulated over
#'   both axes, less the first-order effects, centred on the rows' cells.
#'   The values are at the edges (and levels), and are not shifted by the
#'   mean prediction: a model without interaction has 0 everywhere.
#'
#' The background rows, sampling, `weights` (weighted means and counts,
#' weighted edges), classes, chunking under `memory_budget` and threads work
#' as in [model_profile()]. Rows with a missing value in either variable are
#' left out of an AL pair, with a warning.
#'
#' @inheritParams model_profile
#' @param variables A pair of variable names, or a list of pairs.
#' @param type `"partial"` or `"accumulated"`.
#' @param grid_points Maximum number of grid points per numeric variable
#'   (the grid has up to `grid_points^2` pairs), for partial dependence.
#' @param intervals Number of intervals K per numeric variable for
#'   `type = "accumulated"` (ALEPlot's `K`); the cells are the pairs of
#'   intervals, so fewer than for 1-D profiles keeps them populated.
#' @returns An object of class `mp_profile_2d`: a list with `agr_profiles`, a
#'   data frame with columns `_vname_`, `_vname2_`, `_label_`, `_x_`, `_x2_`,
#'   `_yhat_` and `_ids_` (`_x_` and `_x2_` are numeric, or character for
#'   categorical variables), one row per pair of grid values (the first
#'   variable's value varying fastest), one set per class of a multiclass
#'   model; `type`, `pairs`, `grids` (grid values, or edges and levels),
#'   `intervals` (K used per pair), `label`, `labels`, `class`, `weights`,
#'   `N`, `rows`, `n_predictions`, `threads` and `call`.
#' @references
#' Friedman, J. H. (2001). Greedy function approximation: a gradient boosting
#' machine. *Annals of Statistics*, 29(5), 1189--1232.
#' \doi{10.1214/aos/1013203451}
#'
#' Apley, D. W. and Zhu, J. (2020). Visualizing the effects of predictor
#' variables in black box supervised learning models. *Journal of the Royal
#' Statistical Society Series B*, 82(4), 1059--1086.
#' \doi{10.1111/rssb.12377}
#' @examples
#' fit <- lm(mpg ~ wt * hp + qsec, data = mtcars)
#' pd2 <- model_profile_2d(fit, mtcars[c("wt", "hp", "qsec")], variables = c("wt", "hp"),
#'                         grid_points = 10)
#' pd2
#' plot(pd2)
#' al2 <- model_profile_2d(fit, mtcars[c("wt", "hp", "qsec")], variables = c("wt", "hp"),
#'                         type = "accumulated", intervals = 5)
#' plot(al2)
#' @export
model_profile_2d <- function(x, data = NULL, predict_function = NULL, variables,
                             type = c("partial", "accumulated"),
                             N = 1000, grid_points = 21, intervals = 10,
                             variable_splits_type = c("quantiles", "uniform", "distinct"),
                             variable_splits = NULL, label = NULL, seed = NULL,
                             threads = NULL,
                             memory_budget = getOption("modelprofiles.memory_budget", 256),
                             class = NULL, weights = NULL,
                             level_order = c("similarity", "levels"),
                             engine = c("auto", "native", "predict"), ...) {
  call <- match.call()
  env <- environment()
  if (...length() > 0L) {
    cli::cli_abort("Unknown argument{?s}: {.arg {names(list(...))}}.", call = env)
  }
  if (missing(x)) cli::cli_abort("{.arg x} is missing: give a fitted model or an explainer.", call = env)
  variable_splits_type <- rlang::arg_match(variable_splits_type, error_call = env)
  type <- rlang::arg_match(type, error_call = env)
  level_order <- rlang::arg_match(level_order, error_call = env)
  engine <- rlang::arg_match(engine, error_call = env)
  inputs <- resolve_inputs(x, data, predict_function, label, env)
  data <- inputs$data
  weights <- resolve_weights(weights, x, data, env)
  if (!is.null(N)) N <- check_whole(N, "N", 1, env, hint = "Use {.code N = NULL} for all rows.")
  grid_points <- check_whole(grid_points, "grid_points", 2, env)
  intervals <- check_whole(intervals, "intervals", 1, env)
  threads <- resolve_threads(threads, env)
  memory_budget <- check_budget(memory_budget, env)
  if (missing(variables)) {
    cli::cli_abort("{.arg variables} is missing: give a pair of variable names.", call = env)
  }
  pairs <- if (is.list(variables)) variables else list(variables)
  for (pr in pairs) {
    if (!is.character(pr) || length(pr) != 2L || anyNA(pr) || pr[1] == pr[2]) {
      cli::cli_abort("{.arg variables} must be a pair of different variable names, or a list of pairs.", call = env)
    }
  }
  all_vars <- unique(unlist(pairs))
  unknown <- setdiff(all_vars, names(data))
  if (length(unknown)) {
    cli::cli_abort("{.arg variables} has name{?s} not in the data: {.val {unknown}}.", call = env)
  }
  usable_variables(data, all_vars, "partial", TRUE, env)
  variable_splits <- check_splits(variable_splits, data, all_vars, env)

  rows <- weighted_rows(sample_rows(nrow(data), N, seed), weights, env)
  background <- background_rows(data, rows)
  w <- if (is.null(weights)) rep(1, length(rows)) else as.double(weights[rows])
  ctx <- new_context(inputs$model, inputs$predict_function, unclass_frame(background), rows,
                     w, threads, memory_budget, class = class, call = env, engine = engine, adapter = inputs$adapter)
  labels <- output_labels(ctx, inputs$label)
  ctx$progress <- new_progress(length(pairs))
  if (type == "accumulated") {
    for (pr in pairs) {
      kinds <- vapply(pr, function(v) column_kind(data[[v]]), character(1))
      if (all(kinds == "categorical")) {
        cli::cli_abort(c(
          "Second-order AL profiles need at least one numeric variable; {.field {pr[1]}} and {.field {pr[2]}} are both categorical.",
          i = "Use {.code type = \"partial\"} for two categorical variables."
        ), call = env)
      }
    }
  }
  grids <- list()
  if (type == "partial") {
    grids <- lapply(stats::setNames(all_vars, all_vars), function(v) {
      variable_splits[[v]] %||% make_grid(data[[v]], grid_points, variable_splits_type, w = weights)
    })
  }
  for (pr in pairs) {
    G <- if (type == "partial") as.double(length(grids[[pr[1]]])) * length(grids[[pr[2]]]) else 0
    if (G > .Machine$integer.max) {
      cli::cli_abort("The grid of {.field {pr[1]}} x {.field {pr[2]}} has {format(G, big.mark = ',')} pairs of values, more than a table of predictions can hold; lower {.arg grid_points}.", call = env)
    }
  }
  intervals_used <- list()
  out <- lapply(pairs, function(pr) {
    js <- match(pr, names(data))
    if (type == "partial") {
      g1 <- grids[[pr[1]]]
      g2 <- grids[[pr[2]]]
      yhat <- partial_2d(ctx, js, g1, g2)
    } else {
      n_na <- sum(is.na(ctx$data[[js[1]]]) | is.na(ctx$data[[js[2]]]))
      if (n_na > 0L) {
        cli::cli_warn(c(
          "{n_na} background row{?s} with a missing {.field {pr[1]}} or {.field {pr[2]}} {?is/are} left out of their AL profile.",
          i = "Impute them to keep {cli::qty(n_na)}{?that row/those rows}; a PD profile ({.code type = \"partial\"}) uses every row."
        ), call = env, class = "modelprofiles_rows_left_out")
      }
      # ALEPlot's layout: a categorical variable comes first.
      swap <- column_kind(data[[pr[1]]]) == "numeric" && column_kind(data[[pr[2]]]) == "categorical"
      jj <- if (swap) rev(js) else js
      levels <- if (column_kind(data[[jj[1]]]) == "categorical") al_level_order(ctx, jj[1], level_order)
      res <- profile_accumulated_2d(ctx, jj, intervals, levels)
      f <- res$f
      if (swap) f <- aperm(f, c(2L, 1L, 3L))
      g1 <- if (swap) res$x2 else res$x1
      g2 <- if (swap) res$x1 else res$x2
      grids[[pr[1]]] <<- g1
      grids[[pr[2]]] <<- g2
      intervals_used[[paste(pr, collapse = ":")]] <<- if (swap) rev(res$intervals) else res$intervals
      yhat <- matrix(f, ncol = dim(f)[3L])
    }
    G <- length(g1) * length(g2)
    k1 <- cell_index(ctx$data[[js[1]]], g1)
    k2 <- cell_index(ctx$data[[js[2]]], g2)
    cells <- k1 + length(g1) * (k2 - 1L)
    support <- if (is.null(weights)) tabulate(cells, G) else weighted_counts(cells, w, G)
    data.frame(
      `_vname_` = pr[1], `_vname2_` = pr[2], `_label_` = rep(labels, each = G),
      `_x_` = rep(if (is.numeric(g1)) g1 else as.character(g1), times = length(g2) * length(labels)),
      `_x2_` = rep(rep(if (is.numeric(g2)) g2 else as.character(g2), each = length(g1)), length(labels)),
      `_yhat_` = as.vector(yhat), `_ids_` = 0L,
      `_support_` = rep(support, length(labels)),
      check.names = FALSE, stringsAsFactors = FALSE
    )
  })
  structure(
    list(
      agr_profiles = if (length(out) == 1L) out[[1L]] else out,
      type = type, pairs = pairs, grids = grids, intervals = intervals_used, engine = ctx$engine,
      label = inputs$label, labels = labels,
      class = ctx$outputs$classes, weights = if (!is.null(weights)) w, N = length(rows),
      n_data = nrow(data), rows = rows, observed = background[all_vars],
      n_predictions = ctx$n_predictions, threads = threads, call = call
    ),
    class = "mp_profile_2d"
  )
}

# PD over all pairs of g1 x g2 (g1 fastest): each background row stacked over
# the whole pair grid, in chunks.
partial_2d <- function(ctx, js, g1, g2) {
  G <- length(g1) * length(g2)
  n <- length(ctx$ids)
  c1 <- ctx$data[[js[1]]]
  c2 <- ctx$data[[js[2]]]
  v1 <- rep(g1, times = length(g2))
  v2 <- rep(g2, each = length(g1))
  sums <- matrix(0, G, n_outputs(ctx))
  chunks <- row_chunks(n, max(1, floor(ctx$chunk_rows / G)))
  predict_chunks(ctx, length(chunks), function(k) {
    pos <- chunks[[k]]
    m <- length(pos)
    vals <- list(pattern(column_values(c1, v1), times = m), pattern(column_values(c2, v2), times = m))
    list(list(src = pattern(pos - 1L, each = G), js = js, vals = vals))
  }, function(k, ys) {
    pos <- chunks[[k]]
    for (c in seq_len(ncol(sums))) {
      sums[, c] <<- sums[, c] + cpp_grid_sums(ys[[1L]], G, ctx$weights[pos], ctx$threads, c - 1L)
    }
  })
  sums / sum(ctx$weights)
}

#' @rdname model_profile_2d
#' @param n Number of rows to show.
#' @export
print.mp_profile_2d <- function(x, n = 6, ...) {
  pr <- vapply(x$pairs, paste, character(1), collapse = " x ")
  what <- if (identical(x$type, "accumulated")) "second-order accumulated local effects" else "partial dependence"
  cli::cat_line("<mp_profile_2d> two-variable ", what, " for ",
                encodeString(x$label, quote = "\""))
  cli::cat_line("  pairs: ", paste(pr, collapse = ", "))
  rows <- if (x$N < x$n_data) paste0(x$N, " of ", x$n_data) else paste0("all ", x$N)
  cli::cat_line("  background rows: ", rows, "; predictions: ",
                format(x$n_predictions, big.mark = ","), "; threads: ", x$threads)
  cli::cat_line("First rows of $agr_profiles:")
  print(utils::head(as.data.frame(x), n), row.names = FALSE)
  invisible(x)
}

#' @rdname model_profile_2d
#' @param row.names,optional Ignored.
#' @export
as.data.frame.mp_profile_2d <- function(x, row.names = NULL, optional = FALSE, ...) {
  a <- x$agr_profiles
  if (is.data.frame(a)) a else do.call(rbind, a)
}

#' @rdname model_profile_2d
#' @param object An `mp_profile_2d` result.
#' @param geom `"tiles"` (a cell per grid pair, coloured on a continuous scale
#'   with a colour bar) or `"contour"` (filled contours, numeric pairs only).
#' @param bins Number of contour levels for `geom = "contour"`.
#' @param title,subtitle Title and subtitle.
#' @details `plot()` draws each pair in its own panel: numeric pairs as
#'   tiles whose edges lie halfway between grid values (so uneven quantile
#'   grids are drawn faithfully) or as filled contours; pairs with a
#'   categorical variable as tiles on a discrete axis. The rug of background
#'   values shows where the surface is backed by data.
#' @exportS3Method ggplot2::autoplot
autoplot.mp_profile_2d <- function(object, ..., geom = c("tiles", "contour"), bins = 10,
                                   title = NULL, subtitle = NULL) {
  geom <- match.arg(geom)
  check_plot_dots(list(...), "autoplot.mp_profile_2d")
  d <- as.data.frame(object)
  pairs <- object$pairs
  if (length(pairs) > 1L) {
    cli::cli_abort(c(
      "Draw one pair at a time: the axes differ between pairs.",
      i = "Compute each pair separately, or subset {.code $agr_profiles}."
    ))
  }
  v <- pairs[[1]]
  al <- identical(object$type, "accumulated")
  fill_name <- if (al) "interaction\neffect" else "average\nprediction"
  num <- is.numeric(d$`_x_`) && is.numeric(d$`_x2_`)
  p <- ggplot2::ggplot(d)
  if (geom == "contour") {
    if (!num) cli::cli_abort("Filled contours need two numeric variables; use {.code geom = \"tiles\"}.")
    p <- p + ggplot2::geom_contour_filled(
      ggplot2::aes(.data[["_x_"]], .data[["_x2_"]], z = .data[["_yhat_"]]), bins = bins
    ) + ggplot2::labs(fill = fill_name)
  } else {
    sx <- tile_span(d$`_x_`, object$grids[[v[1]]])
    sy <- tile_span(d$`_x2_`, object$grids[[v[2]]])
    d$xmin <- sx$lo
    d$xmax <- sx$hi
    d$ymin <- sy$lo
    d$ymax <- sy$hi
    p <- ggplot2::ggplot(d) + ggplot2::geom_rect(
      ggplot2::aes(xmin = .data$xmin, xmax = .data$xmax, ymin = .data$ymin,
                   ymax = .data$ymax, fill = .data[["_yhat_"]])
    ) + ggplot2::scale_fill_viridis_c(name = fill_name)
    if (!is.null(sx$levels)) {
      p <- p + ggplot2::scale_x_continuous(breaks = seq_along(sx$levels), labels = sx$levels)
    }
    if (!is.null(sy$levels)) {
      p <- p + ggplot2::scale_y_continuous(breaks = seq_along(sy$levels), labels = sy$levels)
    }
  }
  if (num) {
    obs <- data.frame(a = as.double(object$observed[[v[1]]]), b = as.double(object$observed[[v[2]]]))
    p <- p + ggplot2::geom_rug(data = obs, ggplot2::aes(x = .data$a, y = .data$b),
                               alpha = 0.2, length = ggplot2::unit(0.015, "npc"), inherit.aes = FALSE)
  }
  if (length(unique(d$`_label_`)) > 1L) {
    p <- p + ggplot2::facet_wrap(ggplot2::vars(.data[["_label_"]]))
  }
  what <- if (al) "Second-order accumulated local effect," else "Partial dependence,"
  p + ggplot2::labs(x = v[1], y = v[2], title = title,
                    subtitle = subtitle %||% paste(what, object$label)) +
    ggplot2::theme_bw() +
    ggplot2::theme(panel.grid = ggplot2::element_blank())
}

#' @rdname model_profile_2d
#' @export
plot.mp_profile_2d <- function(x, ...) autoplot.mp_profile_2d(x, ...)

# The extent of each tile along one axis: between the cell edges of a
# numeric grid, or one unit around a level's position (with its levels).
tile_span <- function(values, grid) {
  if (is.numeric(values)) {
    e <- cell_edges(grid)
    i <- match(values, grid)
    return(list(lo = e$lo[i], hi = e$hi[i], levels = NULL))
  }
  lev <- as.character(grid)
  pos <- match(values, lev)
  list(lo = pos - 0.5, hi = pos + 0.5, levels = lev)
}
