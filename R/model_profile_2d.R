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
#' @param bands `"none"`, `"analytic"` or `"bootstrap"` (see
#'   [model_profile()]), or a setting of [profile_bands()] of these kinds,
#'   such as `profile_bands("analytic", level = 0.9)`.
#' @param grid The grids: a number of grid points, or a [profile_grids()]
#'   setting. By default 21 points per numeric variable (the grid has up to
#'   `points^2` pairs) for partial dependence, `"quantiles"` grids, and 10
#'   intervals per numeric variable for `type = "accumulated"` (ALEPlot's
#'   `K`; the cells are the pairs of intervals, so fewer than for 1-D
#'   profiles keeps them populated). `type = "splits"` (the exact grid of
#'   one-variable profiles) is not taken: it would pair thousands of split
#'   values with thousands. DALEX's names `grid_points`,
#'   `variable_splits_type` and `variable_splits` are taken too (in `...`).
#' @param ... DALEX's names of the fields of `grid` (see [profile_grids()]);
#'   the deprecated `intervals`, `level_order`, `level` and `B`.
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
#'   `N`, `rows`, `n_predictions`, `threads` and `call`. Partial
#'   dependence has the column `_extrapolation_` (the share of the points
#'   averaged in each cell that lie outside the data, see [extrapolation])
#'   and the field `extrapolation` (its setting). With `bands`,
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
#'                         type = "accumulated", grid = profile_grids(intervals = 5))
#' plot(al2)
#' @export
model_profile_2d <- function(x, data = NULL, predict_function = NULL, variables, ...,
                             type = c("partial", "accumulated"), N = 1000, grid = profile_grids(),
                             bands = c("none", "analytic", "bootstrap"),
                             label = NULL, seed = NULL, weights = NULL, class = NULL, threads = NULL,
                             memory_budget = getOption("modelprofiles.memory_budget", 256),
                             engine = c("auto", "native", "predict")) {
  env <- environment()
  call <- user_call(env)
  door <- front_door(list(...), "model_profile_2d", env)
  type <- rlang::arg_match(type, error_call = env)
  g <- grid_settings(grid, door$grid, list(points = 21L, type = "quantiles", splits = NULL, intervals = 10L,
                                           level_order = "similarity"), env)
  if (g$type == "splits") {
    cli::cli_abort("{.arg grid}: {.code type = \"splits\"} would pair thousands of split values with thousands; use {.val quantiles}, {.val uniform} or {.val distinct}.", call = env)
  }
  start <- start_call("model_profile_2d", env, list(), x, data, predict_function, label, weights, threads,
                      memory_budget, seed, engine, bands, c("none", "analytic", "bootstrap"), door$level, door$B)
  on.exit(start$restore_seed(), add = TRUE)
  inputs <- start$inputs
  N <- check_N(N, env)
  if (missing(variables)) {
    cli::cli_abort("{.arg variables} is missing: give a pair of variable names.", call = env)
  }
  pairs <- check_pairs(variables, inputs$data, type, env)
  all_vars <- unique(unlist(pairs))
  splits <- check_splits(g$splits, inputs$data, all_vars, env)
  grids <- list()
  if (type == "partial") {
    grids <- lapply(stats::setNames(all_vars, all_vars), function(v) {
      splits[[v]] %||% make_grid(inputs$data[[v]], g$points, g$type, w = inputs$weights)
    })
    check_pair_grids(pairs, grids, env)
  }
  setup <- new_setup(inputs, setup_rows(inputs, N, seed), class, start$engine)
  makers <- lapply(pairs, function(pr) pair_maker(setup, pr, type, grids, g$intervals, g$level_order))
  res <- execute(setup, makers, new_progress(length(pairs)))
  for (r in res) grids[names(r$grids)] <- r$grids
  space <- profile_space(setup, inputs, type, all_vars)
  frames <- lapply(seq_along(pairs), function(k) {
    f <- res[[k]]$frame
    ext <- extrapolation_share(space, setup, pairs[[k]], grids[pairs[[k]]], seq_len(setup$n), pair = TRUE)
    if (is.null(ext)) return(f)
    # (After `_support_`, as in one-variable profiles.)
    reps <- attr(f, "replicates")
    f$`_extrapolation_` <- rep(ext$share, length.out = nrow(f))
    at <- match("_support_", names(f))
    f <- f[unique(c(names(f)[seq_len(at)], "_extrapolation_", names(f)))]
    attr(f, "replicates") <- reps
    f
  })
  agr <- bind_rows(frames)
  replicates <- attr(agr, "replicates")
  attr(agr, "replicates") <- NULL
  new_mp_profile_2d(list(
      agr_profiles = agr, bands = band_report(setup), replicates = replicates,
      type = type, pairs = pairs, grids = grids,
      intervals = if (type == "accumulated") {
        stats::setNames(lapply(res, `[[`, "intervals"), vapply(pairs, paste, character(1), collapse = ":"))
      },
      engine = setup$engine, label = setup$label, labels = output_labels(setup),
      class = setup$outputs$classes, weights = if (setup$weighted) setup$case_weights, N = setup$n,
      n_data = nrow(inputs$data), rows = setup$rows,
      observed = as.data.frame(setup$data[all_vars], stringsAsFactors = FALSE, optional = TRUE),
      n_predictions = sum(attr(res, "n_predictions")), threads = setup$threads,
      extrapolation = extrapolation_info(space), call = call
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
    cli::cli_abort(c("{.arg variables} has name{?s} not in the data: {.val {unknown}}.",
                     column_hint(unknown, names(data))), call = call)
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
