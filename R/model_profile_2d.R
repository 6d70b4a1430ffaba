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
#' @param variable_splits_type `"quantiles"`, `"uniform"` or `"distinct"`
#'   grids (see [profile_grid()]). (The exact grid of one-variable profiles,
#'   `"splits"`, would pair thousands of split values with thousands.)
#' @param type `"partial"` or `"accumulated"`.
#' @param bands `"none"`, `"analytic"` or `"bootstrap"` (see
#'   [model_profile()]), or a setting of [profile_bands()] of these kinds,
#'   such as `profile_bands("analytic", level = 0.9)`.
#' @param grid_points Maximum number of grid points per numeric variable
#'   (the grid has up to `grid_points^2` pairs), for partial dependence.
#' @param intervals Number of intervals K per numeric variable for
#'   `type = "accumulated"` (ALEPlot's `K`); the cells are the pairs of
#'   intervals, so fewer than for 1-D profiles keeps them populated.
#' @returns An object of class `mp_profile_2d`: a list with `agr_profiles`, a
#'   data frame with columns `_vname_`, `_vname2_`, `_label_`, `_x_`, `_x2_`,
#'   `_yhat_` and `_ids_` (`_x_` and `_x2_` are numeric, or character for
#'   categorical variables; character, `as.character()` of the numbers, also
#'   where pairs of several kinds put a numeric and a categorical variable in
#'   the same position, as `model_profile()` does for mixed scales: `grids`
#'   keeps the exact values), one row per pair of grid values (the first
#'   variable's value varying fastest), one set per class of a multiclass
#'   model; `type`, `pairs`, `grids` (grid values, or edges and levels),
#'   `intervals` (K used per pair), `label`, `labels`, `class`, `weights`,
#'   `N`, `rows`, `n_predictions`, `threads` and `call`. With `bands`,
#'   `agr_profiles` also has `_lower_` and `_upper_` (and `_se_` for analytic
#'   bands), `bands` the setting and `replicates` the bootstrap replicates
#'   (see [profile_bands]).
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
                             variable_splits = NULL, level_order = c("similarity", "levels"),
                             bands = c("none", "analytic", "bootstrap"),
                             label = NULL, seed = NULL, weights = NULL, class = NULL, threads = NULL,
                             memory_budget = getOption("modelprofiles.memory_budget", 256),
                             engine = c("auto", "native", "predict"), ..., level = NULL, B = NULL) {
  env <- environment()
  variable_splits_type <- rlang::arg_match(variable_splits_type, error_call = env)
  type <- rlang::arg_match(type, error_call = env)
  level_order <- rlang::arg_match(level_order, error_call = env)
  grid_points <- check_whole(grid_points, "grid_points", 2, env)
  intervals <- check_whole(intervals, "intervals", 1, env)
  start <- start_call("model_profile_2d", env, list(...), x, data, predict_function, label, weights, threads,
                      memory_budget, seed, engine, bands, c("none", "analytic", "bootstrap"), level, B)
  on.exit(start$restore_seed(), add = TRUE)
  inputs <- start$inputs
  N <- check_N(N, env)
  if (missing(variables)) {
    cli::cli_abort("{.arg variables} is missing: give a pair of variable names.", call = env)
  }
  pairs <- check_pairs(variables, inputs$data, type, env)
  all_vars <- unique(unlist(pairs))
  splits <- check_splits(variable_splits, inputs$data, all_vars, env)
  grids <- list()
  if (type == "partial") {
    grids <- lapply(stats::setNames(all_vars, all_vars), function(v) {
      splits[[v]] %||% make_grid(inputs$data[[v]], grid_points, variable_splits_type, w = inputs$weights)
    })
    check_pair_grids(pairs, grids, env)
  }
  setup <- new_setup(inputs, setup_rows(inputs, N, seed), class, start$engine)
  makers <- lapply(pairs, function(pr) pair_maker(setup, pr, type, grids, intervals, level_order))
  res <- execute(setup, makers, new_progress(length(pairs)))
  for (r in res) grids[names(r$grids)] <- r$grids
  agr <- bind_rows(lapply(res, `[[`, "frame"))
  replicates <- attr(agr, "replicates")
  attr(agr, "replicates") <- NULL
  call <- match.call()
  new_mp_profile_2d(list(
      agr_profiles = agr, bands = if (band_type(setup) != "none") setup$bands, replicates = replicates,
      type = type, pairs = pairs, grids = grids,
      intervals = if (type == "accumulated") {
        stats::setNames(lapply(res, `[[`, "intervals"), vapply(pairs, paste, character(1), collapse = ":"))
      },
      engine = setup$engine, label = setup$label, labels = output_labels(setup),
      class = setup$outputs$classes, weights = if (setup$weighted) setup$case_weights, N = setup$n,
      n_data = nrow(inputs$data), rows = setup$rows,
      observed = as.data.frame(setup$data[all_vars], stringsAsFactors = FALSE, optional = TRUE),
      n_predictions = sum(attr(res, "n_predictions")), threads = setup$threads, call = call
    ))
}

# The bands of a surface (cells of an n1 x n2 grid, first axis fastest) on
# the swapped axes.
swap_bands <- function(bands, dims, swap) {
  if (!swap || !length(bands)) return(bands)
  if (!is.null(bands$se)) {
    bands$se <- matrix(aperm(array(bands$se, dims), c(2L, 1L, 3L)), ncol = dims[3L])
  }
  if (!is.null(bands$reps)) {
    B <- dim(bands$reps)[2L]
    r <- aperm(array(bands$reps, c(dims[1:2], B, dims[3L])), c(2L, 1L, 3L, 4L))
    bands$reps <- array(r, c(prod(dims[1:2]), B, dims[3L]))
  }
  bands
}

# Pairs of variables: a pair of names or a list of them, of columns of data
# that can be profiled (for AL, at least one numeric).
check_pairs <- function(variables, data, type, call) {
  pairs <- if (is.list(variables)) variables else list(variables)
  for (pr in pairs) {
    if (!is.character(pr) || length(pr) != 2L || anyNA(pr) || pr[1] == pr[2]) {
      cli::cli_abort("{.arg variables} must be a pair of different variable names, or a list of pairs.", call = call)
    }
  }
  all_vars <- unique(unlist(pairs))
  unknown <- setdiff(all_vars, names(data))
  if (length(unknown)) {
    cli::cli_abort("{.arg variables} has name{?s} not in the data: {.val {unknown}}.", call = call)
  }
  usable_variables(data, all_vars, "partial", TRUE, call)
  if (type == "accumulated") {
    for (pr in pairs) {
      if (all(vapply(pr, function(v) column_kind(data[[v]]), character(1)) == "categorical")) {
        cli::cli_abort(c(
          "Second-order AL profiles need at least one numeric variable; {.field {pr[1]}} and {.field {pr[2]}} are both categorical.",
          i = "Use {.code type = \"partial\"} for two categorical variables."
        ), call = call)
      }
    }
  }
  pairs
}

check_pair_grids <- function(pairs, grids, call) {
  for (pr in pairs) {
    G <- as.double(length(grids[[pr[1]]])) * length(grids[[pr[2]]])
    if (G > .Machine$integer.max) {
      cli::cli_abort("The grid of {.field {pr[1]}} x {.field {pr[2]}} has {format(G, big.mark = ',')} pairs of values, more than a table of predictions can hold; lower {.arg grid_points}.", call = call)
    }
  }
}

# The request of one pair, made when it starts: its result is list(frame
# (the pair's rows of agr_profiles), grids, intervals).
pair_maker <- function(setup, pr, type, grids, intervals, level_order) {
  force(pr)
  function() {
    js <- match(pr, names(setup$data))
    if (type == "partial") {
      req <- partial_2d_request(setup, js, grids[[pr[1]]], grids[[pr[2]]])
      finish <- req$finish
      req$finish <- function(acc) {
        e <- finish(acc)
        list(frame = pair_frame(setup, pr, e$x1, e$x2, e$yhat, e[intersect(c("se", "reps"), names(e))]),
             grids = list())
      }
      return(req)
    }
    n_na <- sum(is.na(setup$data[[js[1]]]) | is.na(setup$data[[js[2]]]))
    if (n_na > 0L) {
      mp_warn(c(
        "{n_na} background row{?s} with a missing {.field {pr[1]}} or {.field {pr[2]}} {cli::qty(n_na)}{?is/are} left out of their AL profile.",
        i = "Impute them to keep {cli::qty(n_na)}{?that row/those rows}; a PD profile ({.code type = \"partial\"}) uses every row."
      ), call = setup$error_call, class = "modelprofiles_rows_left_out")
    }
    # ALEPlot's layout: a categorical variable comes first.
    swap <- column_kind(setup$data[[js[1]]]) == "numeric" && column_kind(setup$data[[js[2]]]) == "categorical"
    jj <- if (swap) rev(js) else js
    levels <- if (column_kind(setup$data[[jj[1]]]) == "categorical") al_level_order(setup, jj[1], level_order)
    req <- accumulated_2d_request(setup, jj, intervals, levels)
    finish <- req$finish
    req$finish <- function(acc) {
      e <- finish(acc)
      f <- if (swap) aperm(e$f, c(2L, 1L, 3L)) else e$f
      g1 <- if (swap) e$x2 else e$x1
      g2 <- if (swap) e$x1 else e$x2
      bands <- swap_bands(e[intersect(c("se", "reps"), names(e))], dim(e$f), swap)
      list(frame = pair_frame(setup, pr, g1, g2, matrix(f, ncol = dim(f)[3L]), bands),
           grids = stats::setNames(list(g1, g2), pr),
           intervals = if (swap) rev(e$intervals) else e$intervals)
    }
    req
  }
}

# A pair's rows of agr_profiles: every pair of grid values (g1 fastest), per
# output, with the background rows' support of each cell.
pair_frame <- function(setup, pr, g1, g2, yhat, bands = list()) {
  labels <- output_labels(setup)
  G <- length(g1) * length(g2)
  w <- if (setup$weighted) setup$case_weights
  cells <- cell_index(setup$data[[pr[1]]], g1) + length(g1) * (cell_index(setup$data[[pr[2]]], g2) - 1L)
  support <- if (is.null(w)) tabulate(cells, G) else weighted_counts(cells, w, G)
  out <- data.frame(
    `_vname_` = pr[1], `_vname2_` = pr[2], `_label_` = rep(labels, each = G),
    `_x_` = rep(if (is.numeric(g1)) g1 else as.character(g1), times = length(g2) * length(labels)),
    `_x2_` = rep(rep(if (is.numeric(g2)) g2 else as.character(g2), each = length(g1)), length(labels)),
    `_yhat_` = as.vector(yhat), `_ids_` = 0L,
    `_support_` = rep(support, length(labels)),
    check.names = FALSE, stringsAsFactors = FALSE
  )
  band_columns(out, setup, c(list(yhat = yhat), bands))
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
                format(x$n_predictions, big.mark = ",", scientific = FALSE), "; threads: ", x$threads)
  cli::cat_line("First rows of $agr_profiles:")
  print(utils::head(as.data.frame(x), n), row.names = FALSE)
  invisible(x)
}

#' @rdname model_profile_2d
#' @param row.names,optional Ignored.
#' @export
as.data.frame.mp_profile_2d <- function(x, row.names = NULL, optional = FALSE, ...) {
  x$agr_profiles
}

#' @rdname model_profile_2d
#' @param object An `mp_profile_2d` result.
#' @param geom `"tiles"` (a cell per grid pair, coloured on a continuous scale
#'   with a colour bar) or `"contour"` (filled contours, numeric pairs only).
#' @param bins Number of contour levels for `geom = "contour"`.
#' @param title,subtitle Title and subtitle.
#' @details `plot()` draws each pair in its own panel: numeric pairs as
#'   tiles whose edges lie halfway between grid values (so uneven quantile
#'   grids are drawn faithfully; the outer tiles end at the grid's ends, not
#'   past the data's range) or as filled contours; pairs with a
#'   categorical variable as tiles on a discrete axis. The rug of background
#'   values shows where the surface is backed by data. Partial dependence
#'   is coloured on a sequential scale (viridis); second-order accumulated
#'   local effects, which are signed, on a diverging scale centred at 0
#'   (blue below, red above); when every effect is within 1e-9 of 0 (an
#'   additive model, to rounding) they are drawn as 0 and the subtitle
#'   says there is no interaction.
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
  # Second-order effects that are 0 to rounding (an additive model): drawn
  # as 0, without a colour bar, and said in the subtitle; a diverging scale
  # would otherwise stretch the rounding errors over its colours.
  no_interaction <- al && max(abs(d$`_yhat_`), na.rm = TRUE) <= 1e-9
  if (no_interaction) d$`_yhat_`[!is.na(d$`_yhat_`)] <- 0
  fill_name <- if (al) "interaction\neffect" else "average\nprediction"
  num <- is.numeric(d$`_x_`) && is.numeric(d$`_x2_`)
  p <- ggplot2::ggplot(d)
  if (geom == "contour" && no_interaction) geom <- "tiles"
  if (geom == "contour") {
    if (!num) cli::cli_abort("Filled contours need two numeric variables; use {.code geom = \"tiles\"}.")
    if (al) {
      # Signed effects: levels symmetric about 0, on a diverging palette.
      m <- max(abs(d$`_yhat_`), na.rm = TRUE)
      if (!is.finite(m) || m == 0) m <- 1
      breaks <- seq(-m, m, length.out = bins + 1L)
      p <- p + ggplot2::geom_contour_filled(
        ggplot2::aes(.data[["_x_"]], .data[["_x2_"]], z = .data[["_yhat_"]]), breaks = breaks
      ) + ggplot2::scale_fill_manual(values = diverging_colours(bins), drop = FALSE, name = fill_name)
    } else {
      p <- p + ggplot2::geom_contour_filled(
        ggplot2::aes(.data[["_x_"]], .data[["_x2_"]], z = .data[["_yhat_"]]), bins = bins
      ) + ggplot2::labs(fill = fill_name)
    }
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
    ) + if (al) {
      # Signed effects on a diverging palette centred at 0.
      m <- max(abs(d$`_yhat_`), na.rm = TRUE)
      ggplot2::scale_fill_gradient2(name = fill_name, low = "#2166AC", mid = "#F7F7F7", high = "#B2182B",
                                    midpoint = 0, limits = if (is.finite(m) && m > 0) c(-m, m),
                                    guide = if (no_interaction) "none" else "colourbar")
    } else {
      ggplot2::scale_fill_viridis_c(name = fill_name)
    }
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
  auto <- paste(what, object$label)
  if (no_interaction) auto <- paste0(auto, ": no interaction (every effect is within 1e-9 of 0)")
  p + ggplot2::labs(x = v[1], y = v[2], title = title, subtitle = subtitle %||% auto) +
    ggplot2::theme_bw() +
    ggplot2::theme(panel.grid = ggplot2::element_blank())
}

#' @rdname model_profile_2d
#' @export
plot.mp_profile_2d <- function(x, ...) autoplot.mp_profile_2d(x, ...)

# `n` colours from blue through near-white to red (ColorBrewer's RdBu ends).
diverging_colours <- function(n) {
  grDevices::colorRampPalette(c("#2166AC", "#92C5DE", "#F7F7F7", "#F4A582", "#B2182B"))(n)
}

# The extent of each tile along one axis: between the cell edges of a
# numeric grid, the outer tiles ending at the grid's ends (a tile does not
# reach past the data's range); or one unit around a level's position
# (with its levels).
tile_span <- function(values, grid) {
  if (is.numeric(values)) {
    e <- cell_edges(grid)
    if (length(unique(grid)) > 1L) {
      e$lo <- pmax(e$lo, min(grid))
      e$hi <- pmin(e$hi, max(grid))
    }
    i <- match(values, grid)
    return(list(lo = e$lo[i], hi = e$hi[i], levels = NULL))
  }
  lev <- as.character(grid)
  pos <- match(values, lev)
  list(lo = pos - 0.5, hi = pos + 0.5, levels = lev)
}
